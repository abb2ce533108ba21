#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine
import SystemSupport

/// The shapes WireMock's admin clients send and expect: mappings with `id` and `uuid`, serve
/// events and logged requests (headers as single strings, `loggedDate`, `loggedDateString`),
/// near misses, errors as `{"errors": [...]}`.
enum WireMockAdminJSON {
    /// A mapping as WireMock lists it: as written, with its `id` and `uuid`.
    static func mapping(_ stub: Stub) -> JSONNode {
        var members = (stub.definition?.members ?? []).filter { $0.key != "id" && $0.key != "uuid" }.map {
            ($0.key, $0.value)
        }
        members.insert(("id", .string(stub.id)), at: 0)
        members.insert(("uuid", .string(stub.id)), at: 1)
        if stub.definition?["priority"] == nil, stub.priority != 5 {
            members.append(("priority", .number(stub.priority)))
        }
        return .object(members)
    }

    /// A mapping node with its id set (the id in the path wins over the body's).
    static func withID(_ node: JSONNode, _ id: String) -> JSONNode {
        let rest = (node.members ?? []).filter { $0.key != "id" && $0.key != "uuid" }
        return JSONNode(
            .object([JSONNode.Member(key: "id", keyPosition: node.position, value: .string(id))] + rest),
            at: node.position
        )
    }

    /// A journal entry's WireMock id: a UUID carrying the entry's number, so either id finds it.
    static func eventID(_ entryID: Int) -> String {
        WireMockIDs.uuid(high: 0x0000_0000_0000_4000, low: UInt64(entryID) & 0x0000_FFFF_FFFF_FFFF, version: 4)
    }

    static func entryID(_ eventID: String) -> Int? {
        let text = eventID.lowercased()
        guard text.hasPrefix("00000000-0000-4000-8000-"), text.count == 36 else { return nil }
        return Int(text.suffix(12), radix: 16)
    }

    /// A logged request.
    static func loggedRequest(_ e: JournalEntry) -> JSONNode {
        // Its head read once (the journal keeps the bytes as they came).
        let request = e.request
        let host = request.headers["Host"] ?? "localhost"
        let url =
            request.target.hasPrefix("/")
            ? request.target
            : (URL(string: request.target).map { ($0.path.isEmpty ? "/" : $0.path) + ($0.query.map { "?" + $0 } ?? "") }
                ?? request.target)
        var headers: [(String, JSONNode)] = []
        var seen: [String: Int] = [:]
        for field in request.headers {
            if let i = seen[field.name.lowercased()] {
                headers[i].1 = .string((headers[i].1.string ?? "") + ", " + field.value)
            } else {
                seen[field.name.lowercased()] = headers.count
                headers.append((field.name, .string(field.value)))
            }
        }
        var query: [(String, JSONNode)] = []
        for name in request.queryItems.map(\.name).reduce(into: [String](), { if !$0.contains($1) { $0.append($1) } }) {
            let values = request.queryItems.filter { $0.name == name }.map { JSONNode.string($0.value) }
            query.append((name, .object([("key", .string(name)), ("values", .array(values))])))
        }
        let text = String(bytes: e.body, encoding: .utf8)
        let ip =
            e.peer.hasPrefix("[")
            ? String(e.peer.dropFirst().prefix { $0 != "]" }) : String(e.peer.prefix { $0 != ":" })
        return .object([
            ("url", .string(url)),
            ("absoluteUrl", .string("http://\(host)\(url)")),
            ("method", .string(request.method)),
            ("clientIp", .string(ip.isEmpty ? "127.0.0.1" : ip)),
            ("headers", .object(headers)),
            ("cookies", .object([])),
            ("browserProxyRequest", .bool(false)),
            ("loggedDate", .number(e.receivedAtMilliseconds)),
            ("bodyAsBase64", .string(Base64.encode(e.body))),
            ("body", .string(text ?? "")),
            ("protocol", .string("HTTP/1.1")),
            ("scheme", .string("http")),
            ("host", .string(String(host.prefix { $0 != ":" }))),
            ("queryParams", .object(query)),
            (
                "loggedDateString",
                .string(DateFormats.rfc3339(epochMilliseconds: e.receivedAtMilliseconds, withMilliseconds: false))
            ),
        ])
    }

    /// A serve event: the request, what answered it, the response.
    static func serveEvent(_ e: JournalEntry, stub: Stub?) -> JSONNode {
        var members: [(String, JSONNode)] = [
            ("id", .string(eventID(e.id))),
            ("request", loggedRequest(e)),
        ]
        if let stub, stub.dialect == .wiremock { members.append(("stubMapping", mapping(stub))) }
        // The mapping's status even when a fault sent none (the journal's `status` is nil then).
        let status = e.response?.status ?? e.status ?? 0
        var definition: [(String, JSONNode)] = [("status", .number(status))]
        if e.stubID == nil { definition.append(("fromConfiguredStub", .bool(false))) }
        members.append(("responseDefinition", .object(definition)))
        if let response = e.response {
            let text = String(bytes: response.body, encoding: .utf8)
            members.append(
                (
                    "response",
                    .object([
                        ("status", .number(status)),
                        ("headers", .object(response.headers.map { ($0.name, .string($0.value)) })),
                        ("body", .string(text ?? "")),
                        ("bodyAsBase64", .string(Base64.encode(response.body))),
                    ])
                )
            )
        }
        members.append(("wasMatched", .bool(e.stubID != nil)))
        let ms = Int(e.durationMilliseconds.rounded())
        members.append(
            (
                "timing",
                .object([
                    ("addedDelay", .number(e.response?.delayMilliseconds ?? 0)), ("processTime", .number(ms)),
                    ("responseSendTime", .number(0)), ("serveTime", .number(ms)), ("totalTime", .number(ms)),
                ])
            )
        )
        return .object(members)
    }

    /// `{"errors": [...]}` with status 422 (a mapping that does not load), as WireMock answers.
    static func problems(_ problems: [StubProblem]) -> OutgoingResponse {
        let errors = problems.filter { $0.severity == .error }
        var reported: [JSONNode] = errors.prefix(StubProblem.reportLimit).map { problem in
            .object([
                ("code", .number(10)),
                ("source", .object([("pointer", .string(StubProblem.bounded(pointer(problem.jsonPath ?? "$"))))])),
                ("title", .string(StubProblem.bounded(problem.message))),
                ("detail", .string(problem.reportedDescription)),
            ])
        }
        if errors.count > StubProblem.reportLimit {
            let more = "and \(errors.count - StubProblem.reportLimit) more"
            reported.append(.object([("code", .number(10)), ("title", .string(more))]))
        }
        return json(422, .object([("errors", .array(reported))]))
    }

    /// `$.request.headers.Accept` → `/request/headers/Accept`.
    static func pointer(_ jsonPath: String) -> String {
        var out = ""
        var current = ""
        var inBrackets = false
        for ch in jsonPath.dropFirst() {
            if inBrackets {
                if ch == "]" {
                    out += "/" + String(current.drop { $0 == "\"" }.reversed().drop { $0 == "\"" }.reversed())
                    current = ""
                    inBrackets = false
                } else {
                    current.append(ch)
                }
            } else if ch == "." || ch == "[" {
                if !current.isEmpty {
                    out += "/" + current
                    current = ""
                }
                inBrackets = ch == "["
            } else {
                current.append(ch)
            }
        }
        if !current.isEmpty { out += "/" + current }
        return out.isEmpty ? "/" : out
    }

    static func error(_ status: Int, _ message: String) -> OutgoingResponse {
        json(
            status,
            .object([("errors", .array([.object([("code", .number(status)), ("title", .string(message))])]))])
        )
    }

    static func json(_ status: Int, _ node: JSONNode) -> OutgoingResponse {
        OutgoingResponse(
            status: status,
            headers: HeaderFields([("Content-Type", "application/json")]),
            body: JSONSerializer.bytes(node)
        )
    }

    static let empty = OutgoingResponse(status: 200)
}
