import HTTP1
import JSON
import SystemSupport

/// One way a request, or a forwarded answer, departs from the API's description.
package struct ContractViolation: Sendable, Equatable {
    /// What part of the exchange broke the contract.
    package enum Kind: String, Sendable {
        /// No operation of the document has this method and path.
        case operation
        case path
        case query
        case header
        case cookie
        /// The request's Content-Type is not one the operation documents.
        case mediaType
        /// The body is missing, not parseable, or does not validate against its schema.
        case body
        /// None of the operation's security requirements is present.
        case security
        /// A forwarded answer: its status, required headers or body.
        case response
    }

    package let kind: Kind
    /// Where in the exchange: `query.limit`, `body.items[0].id`, `header.X-Request-Id`.
    package let place: String
    package let message: String
    /// Where the rule is written in the document (`#/paths/~1pets/get/parameters/0`,
    /// `common.yaml#/Pet/required`), when one place says it.
    package let rule: String?

    package init(_ kind: Kind, place: String, message: String, rule: String? = nil) {
        self.kind = kind
        self.place = place
        self.message = message
        self.rule = rule
    }

    /// `query.limit: expected an integer, found the string "ten" (#/paths/~1pets/get/parameters/0)`.
    package var line: String {
        place + ": " + message + (rule.map { " (\($0))" } ?? "")
    }
}

/// What the contract (`--openapi SPEC` while serving) says of one exchange: the operation the
/// request targets and how the request departs from it; for a forwarded request, later, how
/// the upstream's answer departs from the documented responses.
///
/// A class because the answer's part is filled in when a forwarded body has passed, after the
/// journal and the log have taken the report (as a near-miss report computed off the loop is).
/// A contract may hand every clean request of an operation the same report (made once, so a
/// clean request allocates none); a forwarded request's answer is then checked on a report of
/// its own (`forAnswer`), since that part is one exchange's.
package final class ContractReport: Sendable {
    /// `POST /pets (createPet)`; nil when no operation of the document fits the request.
    package let operation: String?
    /// An index the contract gives the operation, to check its answer later.
    package let operationIndex: Int?
    /// The request's violations, in the order checked: operation, path, query, headers,
    /// cookies, security, media type, body.
    package let violations: [ContractViolation]
    private let answer = Locked(AnswerCheck())

    private struct AnswerCheck {
        var violations: [ContractViolation] = []
        var done = false
        var listeners: [@Sendable ([ContractViolation]) -> Void] = []
    }

    package init(operation: String?, operationIndex: Int?, violations: [ContractViolation]) {
        self.operation = operation
        self.operationIndex = operationIndex
        self.violations = violations
    }

    /// Whether the request keeps to the contract.
    package var isClean: Bool { violations.isEmpty }

    /// The same findings on the request, with an answer's part of its own, for a forwarded
    /// request whose answer is yet to be checked.
    package func forAnswer() -> ContractReport {
        ContractReport(operation: operation, operationIndex: operationIndex, violations: violations)
    }

    /// 422 when only the body's content is wrong (the request was understood), 400 otherwise.
    package var rejectionStatus: Int {
        violations.allSatisfy { $0.kind == .body } ? 422 : 400
    }

    // MARK: The forwarded answer

    /// How the upstream's answer departs from the documented responses; empty until checked.
    package var answerViolations: [ContractViolation] { answer.withLock { $0.violations } }

    /// Called once the forwarded answer has been checked (its body has passed).
    package func recordAnswer(_ violations: [ContractViolation]) {
        let listeners = answer.withLock { state -> [@Sendable ([ContractViolation]) -> Void] in
            guard !state.done else { return [] }
            state.done = true
            state.violations = violations
            defer { state.listeners = [] }
            return state.listeners
        }
        for listener in listeners { listener(violations) }
    }

    /// Runs `listener` with the answer's violations once they are known (at once if they are):
    /// the request log writes them on a line of their own.
    package func whenAnswerChecked(_ listener: @escaping @Sendable ([ContractViolation]) -> Void) {
        let known = answer.withLock { state -> [ContractViolation]? in
            if state.done { return state.violations }
            state.listeners.append(listener)
            return nil
        }
        if let known { listener(known) }
    }

    // MARK: Reporting

    /// The `X-Stubserver-Contract` value: the count and the first violation, one line of
    /// visible ASCII (a header cannot carry more safely).
    package var headerValue: String {
        guard let first = violations.first else { return "ok" }
        let count = violations.count == 1 ? "1 violation" : "\(violations.count) violations"
        return Self.headerSafe("\(count); \(first.line)", limit: 400)
    }

    /// Each violation on a line, `query.limit: expected ...`; the answer's prefixed `response`.
    package var lines: [String] {
        violations.map(\.line) + answerViolations.map(\.line)
    }

    /// The report in the journal and the JSON log: `{"operation": ..., "violations": [...]}`.
    package var json: JSONNode {
        var members: [(String, JSONNode)] = [("operation", operation.map { .string($0) } ?? .null)]
        members.append(("violations", .array(violations.map(Self.json))))
        let answered = answerViolations
        if !answered.isEmpty { members.append(("response", .array(answered.map(Self.json)))) }
        return .object(members)
    }

    package static func json(_ violation: ContractViolation) -> JSONNode {
        var members: [(String, JSONNode)] = [
            ("kind", .string(violation.kind.rawValue)),
            ("at", .string(violation.place)),
            ("message", .string(violation.message)),
        ]
        if let rule = violation.rule { members.append(("rule", .string(rule))) }
        return .object(members)
    }

    /// `--openapi-enforce`: the problem report (RFC 9457) that answers a request breaking the
    /// contract, before any stub runs.
    package func rejection(for request: IncomingRequest) -> OutgoingResponse {
        let status = rejectionStatus
        let title =
            status == 422
            ? "The request body does not match the API description"
            : "The request does not match the API description"
        let count = violations.count == 1 ? "1 violation" : "\(violations.count) violations"
        let detail = operation.map { "\(count) of \($0)" } ?? "\(count): \(violations.first?.message ?? "")"
        let body: JSONNode = .object([
            ("type", .string("urn:stubserver:problem:contract-violation")),
            ("title", .string(title)),
            ("status", .number(status)),
            ("detail", .string(detail)),
            ("instance", .string(request.target)),
            ("operation", operation.map { .string($0) } ?? .null),
            ("violations", .array(violations.map(Self.json))),
        ])
        var headers = HeaderFields()
        headers.add("Content-Type", "application/problem+json")
        headers.add(Self.headerName, headerValue)
        return OutgoingResponse(status: status, headers: headers, body: JSONSerializer.bytes(body))
    }

    package static let headerName = "X-Stubserver-Contract"

    /// Visible ASCII only, cut at `limit` with "...": messages quote what the client sent.
    static func headerSafe(_ text: String, limit: Int) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            guard out.utf8.count < limit else {
                out += "..."
                break
            }
            out.unicodeScalars.append((0x20...0x7E).contains(scalar.value) ? scalar : "?")
        }
        return out
    }
}

/// The OpenAPI contract as the engine sees it: something that checks a request against the
/// operation it targets, and a forwarded answer against that operation's responses. The engine
/// knows nothing of OpenAPI documents; `StubImport`'s `OpenAPIContract` is the implementation.
package protocol RequestContract: Sendable {
    func check(_ facts: RequestFacts) -> ContractReport

    /// The forwarded answer of a request `report` was made for: status, headers and body (the
    /// whole body; nil when it was too large to collect, and then it is not checked).
    func checkAnswer(
        status: Int,
        headers: HeaderFields,
        body: [UInt8]?,
        of report: ContractReport
    ) -> [ContractViolation]
}
