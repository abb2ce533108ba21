import Foundation
import HTTP1

/// How stubs and journal entries look in admin API answers (docs/admin-api.md).
enum AdminJSON {
    static func stub(_ stub: Stub) -> JSONNode {
        var members: [(String, JSONNode)] = [
            ("id", .string(stub.id)),
            ("name", .string(stub.name)),
            ("source", .string(sourceText(stub.source))),
            ("priority", .number(stub.priority)),
        ]
        for key in ["request", "response", "responses", "after", "scenario"] {
            if let value = stub.definition?[key] { members.append((key, value)) }
        }
        return .object(members)
    }

    static func sourceText(_ source: StubSource) -> String {
        switch source {
        case .file(let path, let index): "file:\(path)#\(index)"
        case .runtime: "runtime"
        }
    }

    static func entry(_ e: JournalEntry) -> JSONNode {
        var members: [(String, JSONNode)] = [
            ("id", .number(e.id)),
            ("receivedAt", .string(DateFormats.rfc3339(epochMilliseconds: e.receivedAtMilliseconds, withMilliseconds: true))),
            ("method", .string(e.method)),
            ("path", .string(e.path)),
            ("query", grouped(e.queryItems.map { ($0.name, $0.value) })),
            ("headers", grouped(e.headers.map { ($0.name, $0.value) })),
        ]
        if let text = String(bytes: e.body, encoding: .utf8) {
            members.append(("body", .string(text)))
        } else {
            var base64 = ""
            base64 = Base64.encode(e.body)
            members.append(("bodyBase64", .string(base64)))
        }
        if e.bodySize > e.body.count { members.append(("bodySize", .number(e.bodySize))) }
        members.append(("stub", e.stubID.map { .object([("id", .string($0)), ("name", .string(e.stubName ?? ""))]) } ?? .null))
        members.append(("status", .number(e.status)))
        members.append(("durationMs", .number(e.durationMilliseconds, decimals: 3)))
        if let proxy = e.proxy {
            let result = proxy.result
            var fields: [(String, JSONNode)] = [("upstream", .string(proxy.upstream))]
            if let status = result.status { fields.append(("status", .number(status))) }
            if let ms = result.milliseconds { fields.append(("ms", .number(Int(ms)))) }
            if let error = result.error { fields.append(("error", .string(error))) }
            members.append(("proxy", .object(fields)))
        }
        if let nearMiss = e.nearMiss, let parsed = try? JSONParser.parse(nearMiss.json) {
            members.append(("nearMiss", parsed["closest"] ?? .null))
        }
        return .object(members)
    }

    /// Name to array of values, in first-seen order; names as received.
    static func grouped(_ pairs: [(String, String)]) -> JSONNode {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for (name, value) in pairs {
            if values[name] == nil { order.append(name) }
            values[name, default: []].append(value)
        }
        return .object(order.map { ($0, .array(values[$0]!.map { .string($0) })) })
    }

}

enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < bytes.count {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])
            out += [table[n >> 18 & 63], table[n >> 12 & 63], table[n >> 6 & 63], table[n & 63]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = Int(bytes[i]) << 16
            out += [table[n >> 18 & 63], table[n >> 12 & 63], UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if rest == 2 {
            let n = Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8
            out += [table[n >> 18 & 63], table[n >> 12 & 63], table[n >> 6 & 63], UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
