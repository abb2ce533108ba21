#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine
import RegularExpressions
import SystemSupport

/// How stubs and journal entries look in admin API answers (docs/admin-api.md).
enum AdminJSON {
    static func stub(_ stub: Stub) -> JSONNode {
        var members: [(String, JSONNode)] = [
            ("id", .string(stub.id)),
            ("name", .string(stub.name)),
            ("source", .string(sourceText(stub.source))),
            ("priority", .number(stub.priority)),
        ]
        // Where to edit it: the file and the line the stub starts on.
        if case .file(let path, _) = stub.source, let line = stub.definition?.position.line, line > 0 {
            members.append(("location", .string("\(path):\(line)")))
        }
        for key in ["request", "response", "responses", "after", "scenario", "webhooks", "websocket"] {
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
        // Its head read once (the journal keeps the bytes as they came).
        let request = e.request
        var members: [(String, JSONNode)] = [
            ("id", .number(e.id)),
            (
                "receivedAt",
                .string(DateFormats.rfc3339(epochMilliseconds: e.receivedAtMilliseconds, withMilliseconds: true))
            ),
            ("method", .string(request.method)),
            ("path", .string(request.path)),
            ("target", .string(request.target)),
            ("host", request.authority.map { .string($0) } ?? .null),
            ("query", grouped(request.queryItems.map { ($0.name, $0.value) })),
            ("headers", grouped(request.headers.map { ($0.name, $0.value) })),
        ]
        members += body(e.body, size: e.bodySize)
        members.append(
            ("stub", e.stubID.map { .object([("id", .string($0)), ("name", .string(e.stubName ?? ""))]) } ?? .null)
        )
        members.append(("status", e.status.map { .number($0) } ?? .null))
        members.append(("durationMs", .number(e.durationMilliseconds, decimals: 3)))
        // A delayed or dribbled answer the client left before (or the server stopped before).
        if e.isAbandoned { members.append(("abandoned", .bool(true))) }
        if let proxy = e.proxy {
            let result = proxy.result
            var fields: [(String, JSONNode)] = [("upstream", .string(proxy.upstream))]
            if let status = result.status { fields.append(("status", .number(status))) }
            if let ms = result.milliseconds { fields.append(("ms", .number(Int(ms)))) }
            if let error = result.error { fields.append(("error", .string(error))) }
            members.append(("proxy", .object(fields)))
        }
        if let response = e.response {
            if response.delayMilliseconds > 0 { members.append(("delayMs", .number(response.delayMilliseconds))) }
            if let fault = response.fault { members.append(("fault", .string(fault))) }
            // The stub's answer, its status included even when a fault was sent instead.
            var answer: [(String, JSONNode)] = [
                ("status", .number(response.status)),
                ("headers", grouped(response.headers.map { ($0.name, $0.value) })),
            ]
            answer += body(response.body, size: response.bodySize)
            members.append(("response", .object(answer)))
            if let stream = response.stream { members.append(("stream", Self.stream(stream.snapshot))) }
        }
        if let tunnel = e.tunnel { members.append(("tunnel", Self.tunnel(tunnel))) }
        if let authority = e.tunnelAuthority { members.append(("via", .string("https://\(authority)"))) }
        if let nearMiss = e.nearMiss { members.append(("nearMiss", closest(nearMiss))) }
        if let refusal = e.refusal { members.append(("refused", .string(refusal))) }
        if let contract = e.contract { members.append(("contract", contract.json)) }
        if !e.regexAborts.isEmpty { members.append(("regexAborted", .array(e.regexAborts.map(aborted)))) }
        return .object(members)
    }

    /// A `CONNECT` tunnel: `mode` (`intercept`: TLS ended here, its requests are entries of
    /// their own; `relay`: a blind tunnel), `state` (`connecting`, `open`, `failed`, `closed`),
    /// the bytes each way (a relay's), `durationMs` once it ended, `error` when it failed or ended
    /// other than by both sides (an intercepted tunnel: its client) closing (a reset, the idle
    /// timeout).
    static func tunnel(_ tunnel: ConnectionTunnel) -> JSONNode {
        let progress = tunnel.progress
        var fields: [(String, JSONNode)] = [
            ("host", .string(tunnel.host)),
            ("port", .number(tunnel.port)),
            ("mode", .string(tunnel.mode.rawValue)),
            ("state", .string(progress.state.rawValue)),
            ("bytesFromClient", .number(progress.bytesFromClient)),
            ("bytesToClient", .number(progress.bytesToClient)),
        ]
        if let ms = progress.milliseconds { fields.append(("durationMs", .number(Int(ms)))) }
        if let error = progress.error { fields.append(("error", .string(error))) }
        return .object(fields)
    }

    /// What happened on a stream: `kind` (`events`, `websocket`), the items in order (`atMs`
    /// after it opened, `direction` `sent`, `received` or `note`, `text`, and for an unmatched
    /// message its `nearMiss` lines), `omitted` past the bound with `omittedAfter` (how many of
    /// `items` came before them), and `ended` (null while open).
    static func stream(_ snapshot: StreamTranscript.Snapshot) -> JSONNode {
        let items: [JSONNode] = snapshot.items.map { item in
            var fields: [(String, JSONNode)] = [
                ("atMs", .number(item.atMilliseconds)),
                ("direction", .string(item.direction.rawValue)),
                ("text", .string(item.text)),
            ]
            if !item.nearMiss.isEmpty { fields.append(("nearMiss", .array(item.nearMiss.map { .string($0) }))) }
            return .object(fields)
        }
        var members: [(String, JSONNode)] = [
            ("kind", .string(snapshot.kind.rawValue)),
            ("items", .array(items)),
            ("omitted", .number(snapshot.omitted)),
        ]
        // Where the omitted ones were: between the first items kept and the latest.
        if snapshot.omitted > 0 { members.append(("omittedAfter", .number(snapshot.omittedAfter))) }
        members.append(("ended", snapshot.ended.map { .string($0) } ?? .null))
        return .object(members)
    }

    /// A webhook call (`GET /__admin/webhooks`): what was sent, and how it ended.
    static func webhook(_ r: WebhookRecord) -> JSONNode {
        let time = { (ms: Int) in JSONNode.string(DateFormats.rfc3339(epochMilliseconds: ms, withMilliseconds: true)) }
        var members: [(String, JSONNode)] = [
            ("id", .number(r.id)),
            ("firedAt", time(r.firedAtMilliseconds)),
            ("stub", .object([("id", .string(r.stubID)), ("name", .string(r.stubName))])),
            ("trigger", .string(r.trigger)),
            ("depth", .number(r.depth)),
            ("method", .string(r.call.method)),
            ("url", .string(r.call.url)),
            ("headers", grouped(r.call.headers.map { ($0.name, $0.value) })),
        ]
        members += body(r.call.body, size: r.call.body.count)
        members.append(("delayMs", .number(r.delayMilliseconds)))
        members.append(("state", .string(r.state.rawValue)))
        if let sent = r.sentAtMilliseconds { members.append(("sentAt", time(sent))) }
        members.append(("status", r.status.map { .number($0) } ?? .null))
        if let ms = r.durationMilliseconds { members.append(("durationMs", .number(Int(ms)))) }
        if let error = r.error { members.append(("error", .string(error))) }
        return .object(members)
    }

    /// A regex match that gave up: the stub and condition it belonged to, the pattern, why.
    static func aborted(_ abort: RegexAbort) -> JSONNode {
        var fields: [(String, JSONNode)] = []
        if let id = abort.ruleID {
            fields.append(("stub", .object([("id", .string(id)), ("name", .string(abort.ruleName ?? ""))])))
        }
        if let condition = abort.condition { fields.append(("condition", .string(condition))) }
        fields.append(("pattern", .string(abort.pattern)))
        fields.append(("reason", .string(abort.reason)))
        return .object(fields)
    }

    /// `body` as text, or `bodyBase64` when it is not UTF-8; `bodySize` when cut (or unknown).
    private static func body(_ bytes: [UInt8], size: Int?) -> [(String, JSONNode)] {
        var members: [(String, JSONNode)] = []
        if let text = String(bytes: bytes, encoding: .utf8) {
            members.append(("body", .string(text)))
        } else {
            members.append(("bodyBase64", .string(Base64.encode(bytes))))
        }
        if let size, size > bytes.count { members.append(("bodySize", .number(size))) }
        return members
    }

    /// The closest stubs of a near-miss report, as in the 404's JSON body, each with its id.
    static func closest(_ report: NearMissReport) -> JSONNode {
        .array(
            report.candidates.map { candidate in
                .object([
                    ("id", .string(candidate.id)),
                    ("name", .string(candidate.name)),
                    ("source", .string(candidate.source)),
                    (
                        "mismatches",
                        .array(
                            candidate.mismatches.map { m in
                                var fields: [(String, JSONNode)] = [
                                    ("condition", .string(m.condition)), ("expected", .string(m.expected)),
                                    ("actual", .string(m.actual)),
                                ]
                                if let aborted = m.aborted { fields.append(("aborted", .string(aborted))) }
                                return .object(fields)
                            }
                        )
                    ),
                ])
            }
        )
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
