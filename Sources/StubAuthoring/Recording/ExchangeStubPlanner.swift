import HTTP1
import JSON
import StubEngine
import SystemSupport

/// The one way captured traffic becomes stub files, for recordings and imported captures (HAR)
/// alike: one file per method and path, in order of first capture (the grouping,
/// `CaptureFile`); in it, one stub per set of conditions (query, the chosen request fields, the
/// session cookies, the body), each answering its responses in capture order (a `responses`
/// sequence when they differ).
package struct ExchangeStubPlanner {
    package enum BodyConditions: Sendable {
        /// Every request with a body matches on it (the recorder: a replay must tell apart what
        /// the app sent).
        case always
        /// Only where bodies tell exchanges with the same other conditions apart (archives,
        /// whose bodies often carry timestamps).
        case whenTheyDiffer
    }

    package var bodyConditions: BodyConditions
    package var keepSecrets: Bool
    /// Secret fields written anyway, lower-cased (`--keep-header`).
    package var keptHeaders: Set<String> = []
    /// Names already in the folder and in its `__files/`, never reused.
    package var reservedStubNames: Set<String>
    package var reservedBodyNames: Set<String>
    /// Secret fields left out, by lower-cased name, and how often.
    package internal(set) var droppedSecrets: [String: Int] = [:]

    package init(
        bodyConditions: BodyConditions,
        keepSecrets: Bool,
        reservedStubNames: Set<String> = [],
        reservedBodyNames: Set<String> = []
    ) {
        self.bodyConditions = bodyConditions
        self.keepSecrets = keepSecrets
        self.reservedStubNames = reservedStubNames
        self.reservedBodyNames = reservedBodyNames
    }

    package mutating func plan(_ exchanges: [RecordedExchange]) -> StubFolderPlan {
        var plan = StubFolderPlan()
        var names = FileNameAllocator(reserving: reservedStubNames)
        var bodyNames = FileNameAllocator(reserving: reservedBodyNames)
        let sessions = SessionCookies(exchanges, keepSecrets: keepSecrets)
        let files = CaptureFile.group(
            exchanges,
            method: \.method,
            path: \.path,
            conditionKey: { Self.conditionKey($0, session: sessions.session(of: $0)) },
            body: \.requestBody
        )
        for file in files {
            let name = names.allocate(file.slug, extension: "json")
            let base = String(name.dropLast(".json".count))
            var stubs: [JSONNode] = []
            // Body files are shared only among this endpoint's answers: two endpoints that
            // happen to answer the same bytes (`{"ok":true}`) get a file each, so editing one
            // changes one.
            var saved: [[UInt8]: String] = [:]
            var bodyCount = 0
            for group in file.groups {
                let distinguish = bodyConditions == .always || group.variants.count > 1
                for (n, variant) in group.variants.enumerated() {
                    var responses: [JSONNode] = []
                    for exchange in variant.items {
                        let response = self.response(exchange, sessions: sessions) { bytes, ext in
                            // A body recorded twice (a repeated request) is one file.
                            if let known = saved[bytes] { return known }
                            bodyCount += 1
                            let path = "__files/" + bodyNames.allocate("\(base)-\(bodyCount)", extension: ext)
                            plan.files.append(.init(relativePath: path, bytes: bytes))
                            saved[bytes] = path
                            return path
                        }
                        responses.append(response)
                    }
                    // The same answer every time is one response, not a sequence of copies.
                    let firstBytes = JSONSerializer.bytes(responses[0])
                    if responses.dropFirst().allSatisfy({ JSONSerializer.bytes($0) == firstBytes }) {
                        responses = [responses[0]]
                    }
                    let first = variant.items[0]
                    let session = sessions.session(of: first)
                    var title =
                        "\(first.method) \(first.host ?? "")\(captureTarget(path: first.path, query: first.query))"
                    if !session.isEmpty {
                        title += " (session " + session.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") + ")"
                    }
                    if group.variants.count > 1 && !variant.body.isEmpty { title += " (request body \(n + 1))" }
                    let matchBody = distinguish && !variant.body.isEmpty
                    // A WebSocket passed through answers with its script; a later connection to
                    // the same place is answered the same way (a script cannot be a sequence).
                    let answer: (String, JSONNode) =
                        if let webSocket = variant.items.first(where: { $0.webSocket != nil })?.webSocket {
                            ("websocket", Self.webSocketNode(webSocket))
                        } else if responses.count == 1 {
                            ("response", responses[0])
                        } else {
                            ("responses", .array(responses))
                        }
                    stubs.append(stub(title, first, session: session, matchBody: matchBody, answer))
                }
            }
            plan.addStubFile(name, stubs)
        }
        return plan
    }

    /// Exchanges with the same key are answered by one stub, bodies aside: the same method,
    /// path, query, chosen fields and session, whatever the order of the parameters.
    private static func conditionKey(
        _ exchange: RecordedExchange,
        session: [(name: String, value: String)]
    ) -> String {
        let query = exchange.query.sorted { ($0.name, $0.value) < ($1.name, $1.value) }.flatMap { [$0.name, $0.value] }
        let fields = exchange.requestHeaders.map { ($0.name.lowercased(), $0.value) }.sorted { $0 < $1 }
            .flatMap { [$0.0, $0.1] }
        let cookies = session.flatMap { [$0.name, $0.value] }
        return ([exchange.host ?? "", exchange.method, exchange.path] + query + ["|"] + fields + ["|"] + cookies)
            .map { "\($0.utf8.count):\($0)" }.joined()
    }

    private mutating func stub(
        _ name: String,
        _ exchange: RecordedExchange,
        session: [(name: String, value: String)],
        matchBody: Bool,
        _ answer: (String, JSONNode)
    ) -> JSONNode {
        var request: [(String, JSONNode)] = [
            ("method", .string(exchange.method)),
            ("path", .string(Self.encodePath(exchange.path))),
        ]
        if let host = exchange.host { request.append(("host", .string(host))) }
        if !exchange.query.isEmpty {
            request.append(("query", .object(exchange.query.map { ($0.name, JSONNode.string($0.value)) })))
        }
        var headers: [(String, JSONNode)] = exchange.requestHeaders.map { field in
            let verdict = RecordedFields.verdict(field.name, field.value, keepSecrets: keepSecrets, kept: keptHeaders)
            if verdict == .secret {
                droppedSecrets[field.name.lowercased(), default: 0] += 1
                return (field.name, .object([("present", .bool(true))]))
            }
            return (field.name, .object([("equals", .string(field.value))]))
        }
        // The session the request carried (a `--match-header Cookie` condition says more).
        if !session.isEmpty, !headers.contains(where: { asciiCaseInsensitiveEquals($0.0, "Cookie") }) {
            headers.append(("Cookie", SessionCookies.condition(session)))
        }
        if !headers.isEmpty { request.append(("headers", .object(headers))) }
        if matchBody, let condition = Self.bodyCondition(exchange) { request.append(("body", condition)) }
        var members: [(String, JSONNode)] = [("name", .string(name)), ("request", .object(request))]
        members.append(answer)
        return .object(members)
    }

    /// JSON bodies as `jsonEquals` (exactly this value: `json` would let one recorded body match
    /// another that only adds keys), text as `equals`; binary bodies are not matched on.
    static func bodyCondition(_ exchange: RecordedExchange) -> JSONNode? {
        if MediaTypes.isJSON(exchange.requestContentType),
            let value = try? JSONParser.parse(exchange.requestBody, rejectDuplicateKeys: true, limits: .requestBody)
        {
            return .object([("jsonEquals", value)])
        }
        guard let text = UTF8Text.decode(exchange.requestBody) else { return nil }
        return .object([("equals", .string(text))])
    }

    /// A decoded path as a stub `path` the loader decodes back to it: every `%` and the
    /// characters the path syntax gives a meaning (`*`, `{`, `}`, `?`, `#`) percent-encoded.
    /// `keepingEscapes`: a `%` that already starts an escape stays one (a path written as text,
    /// such as an OpenAPI path, rather than a decoded one).
    package static func encodePath(_ path: String, keepingEscapes: Bool = false) -> String {
        var out = ""
        let scalars = path.unicodeScalars
        for i in scalars.indices {
            let scalar = scalars[i]
            switch scalar {
            case "%":
                let next = scalars[scalars.index(after: i)...].prefix(2)
                let escape = keepingEscapes && next.count == 2 && next.allSatisfy(\.properties.isASCIIHexDigit)
                out += escape ? "%" : "%25"
            case "*": out += "%2A"
            case "{": out += "%7B"
            case "}": out += "%7D"
            case "?": out += "%3F"
            case "#": out += "%23"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
