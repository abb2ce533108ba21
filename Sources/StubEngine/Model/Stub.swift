import HTTP1
import JSON
import RegularExpressions

/// Where a stub came from: a file (and its index there) or the admin API.
package enum StubSource: Sendable, Equatable, CustomStringConvertible {
    case file(path: String, index: Int)
    case runtime(id: String)

    package var description: String {
        switch self {
        case .file(let path, let index): "\(path)#\(index)"
        case .runtime(let id): "runtime:\(id)"
        }
    }
}

/// One stub, validated and compiled: everything the request path needs is precomputed.
package final class Stub: Sendable {
    package let name: String
    package let source: StubSource
    /// 1 is highest; default 5.
    package let priority: Int
    package let request: RequestPattern
    /// One response, or a sequence (`responses`): successive matches get the next one.
    package let responses: [StubResponse]
    package let afterLast: SequenceEnd
    /// Whether `fixedAnswer` has one. Stored beside `afterLast`, in the padding before the next
    /// field, so it costs no memory; deciding it per request copied the whole `StubResponse`.
    private let answersFixed: Bool
    /// Matches only while the named scenario is in a state; may move it on.
    package let scenario: ScenarioRule?
    /// Position in load order (file order, then index in file); the last tie-breaker.
    package let order: Int
    /// The stub as written (JSON), for the admin API's listing.
    package let definition: JSONNode?
    /// The format it was written in (a WireMock mapping is served as a stub too).
    package let dialect: StubDialect
    /// Calls made after each answer (`"webhooks"`; WireMock's `serveEventListeners`).
    package let webhooks: [Webhook]

    /// `id` replaces the id the source implies (a WireMock mapping keeps its own). `order` is
    /// the load position; for a WireMock mapping, lower is more recently added.
    package init(
        name: String,
        source: StubSource,
        priority: Int,
        request: RequestPattern,
        responses: [StubResponse],
        afterLast: SequenceEnd = .repeatLast,
        scenario: ScenarioRule? = nil,
        order: Int,
        definition: JSONNode? = nil,
        dialect: StubDialect = .native,
        id: String? = nil,
        webhooks: [Webhook] = []
    ) {
        precondition(!responses.isEmpty, "a stub has at least one response")
        self.name = name
        self.source = source
        self.priority = priority
        self.request = request
        self.responses = responses
        self.afterLast = afterLast
        self.answersFixed = responses.count == 1 && scenario == nil && responses[0].isFixed
        self.scenario = scenario
        self.order = order
        self.definition = definition
        self.dialect = dialect
        self.webhooks = webhooks
        switch (id, source) {
        case (let given?, _): self.id = given
        case (nil, .file): self.id = "file:\(source)"
        case (nil, .runtime(let runtimeID)): self.id = runtimeID
        }
        // A dialect may break ties by order alone (WireMock: recency), not by how specific a stub is.
        let bySpecificity = dialect.ranksBySpecificity
        mayBacktrack = definition.map(Self.mayHoldBacktrackingPattern) ?? true
        self.rank = StubRank(
            priority: priority,
            pathClass: bySpecificity ? request.path?.specificityClass ?? 0 : 0,
            literalSegments: bySpecificity ? request.path?.literalSegmentCount ?? 0 : 0,
            conditions: bySpecificity ? request.conditionCount : 0,
            isRuntime: source.isRuntime,
            order: order
        )
    }

    /// Ranks stubs that all match: lower sorts first and wins. Computed once, compared often.
    package let rank: StubRank

    /// Whether a pattern of this stub may need the backtracking engine (an over-approximation
    /// from its definition's strings): matching it then keeps the request's regex budget
    /// (`RegexBudgetLog`), which costs nothing to the stubs that cannot.
    package let mayBacktrack: Bool

    private static func mayHoldBacktrackingPattern(_ node: JSONNode) -> Bool {
        switch node.value {
        case .string(let s): return ParsedPattern.mayNeedBacktracking(s)
        case .array(let elements): return elements.contains(where: mayHoldBacktrackingPattern)
        case .object(let members):
            return members.contains {
                ParsedPattern.mayNeedBacktracking($0.key) || mayHoldBacktrackingPattern($0.value)
            }
        default: return false
        }
    }

    /// The first (or only) response.
    package var response: StubResponse { responses[0] }

    /// The answer of a stateless stub whose response is the same every time (no template,
    /// delay, fault, dribble, proxy or code): its prepared bytes as they are, without copying
    /// the whole `StubResponse` (`response` does) or making a response from it. Made per
    /// request from the stored prepared bytes: a stored answer cost 0.6 MiB with 10,000 stubs.
    var fixedAnswer: OutgoingResponse? {
        answersFixed ? OutgoingResponse(responses[0].prepared) : nil
    }

    /// A stable id: `file:PATH#INDEX` for file stubs, the assigned id for runtime stubs.
    /// Stored: the journal records it for every request.
    package let id: String

    /// The same stub answering with other responses (a computed one, for a stub built in code).
    package func replacingResponses(with responses: [StubResponse]) -> Stub {
        Stub(
            name: name,
            source: source,
            priority: priority,
            request: request,
            responses: responses,
            afterLast: afterLast,
            scenario: scenario,
            order: order,
            definition: definition,
            webhooks: webhooks
        )
    }

    /// Whether answering changes engine state (a sequence position or a scenario).
    package var isStateful: Bool { responses.count > 1 || scenario != nil }

    /// The captures when the request matches this stub's pattern. A method, so the pattern is
    /// read in place: the catalog passing `stub.request` to the matcher copied the whole
    /// pattern out of the stub, retaining and releasing each of its fields, on every request.
    /// `pathMatched`: the request's path is known to meet the stub's (an exact-path hit).
    func match(_ facts: RequestFacts, pathMatched: Bool = false) -> [String: String]? {
        RequestMatcher.match(request, facts, pathMatched: pathMatched)
    }
}

/// What a sequence does after its last response.
package enum SequenceEnd: String, Sendable {
    case repeatLast
    case cycle
}

/// `"scenario": {"name": "checkout", "when": "Started", "then": "paid"}`.
package struct ScenarioRule: Sendable, Equatable {
    package static let initialState = "Started"
    package let name: String
    /// The state the stub needs; nil matches in any state (a WireMock mapping may only move a
    /// scenario on).
    package let when: String?
    package let then: String?

    package init(name: String, when: String?, then: String?) {
        self.name = name
        self.when = when
        self.then = then
    }
}

extension StubSource {
    var isRuntime: Bool { if case .runtime = self { true } else { false } }
}

/// The selection order from the contract as one comparable value: priority, then the more
/// specific path, then more conditions, then runtime stubs before file stubs, then load order.
package struct StubRank: Sendable, Comparable {
    let priority: Int
    let pathClass: Int
    let literalSegments: Int
    let conditions: Int
    let isRuntime: Bool
    package let order: Int

    package init(priority: Int, pathClass: Int, literalSegments: Int, conditions: Int, isRuntime: Bool, order: Int) {
        self.priority = priority
        self.pathClass = pathClass
        self.literalSegments = literalSegments
        self.conditions = conditions
        self.isRuntime = isRuntime
        self.order = order
    }

    package static func < (a: StubRank, b: StubRank) -> Bool {
        if a.priority != b.priority { return a.priority < b.priority }
        if a.pathClass != b.pathClass { return a.pathClass > b.pathClass }
        if a.literalSegments != b.literalSegments { return a.literalSegments > b.literalSegments }
        if a.conditions != b.conditions { return a.conditions > b.conditions }
        if a.isRuntime != b.isRuntime { return a.isRuntime }
        return a.order < b.order
    }
}

/// The request conditions of a stub. Absent keys are nil: they match everything.
package struct RequestPattern: Sendable {
    /// nil is ANY.
    package let methods: [String]?
    package let path: PathPattern?
    package let host: ValueMatcher?
    package let query: [(name: String, matcher: ValueMatcher)]
    package let headers: [(name: String, matcher: ValueMatcher)]
    package let body: BodyMatcher?
    /// A dialect's conditions beyond these (see `RequestCondition`).
    package let conditions: [any RequestCondition]

    package init(
        methods: [String]? = nil,
        path: PathPattern? = nil,
        host: ValueMatcher? = nil,
        query: [(name: String, matcher: ValueMatcher)] = [],
        headers: [(name: String, matcher: ValueMatcher)] = [],
        body: BodyMatcher? = nil,
        conditions: [any RequestCondition] = []
    ) {
        self.methods = methods
        self.path = path
        self.host = host
        self.query = query
        self.headers = headers
        self.body = body
        self.conditions = conditions
    }

    package var conditionCount: Int {
        (methods == nil ? 0 : 1) + (path == nil ? 0 : 1) + (host == nil ? 0 : 1)
            + query.count + headers.count + (body == nil ? 0 : 1) + conditions.count
    }
}

/// A condition on the request body.
package enum BodyMatcher: Sendable {
    /// The body is JSON that the pattern matches (`JSONCondition`).
    case json(JSONCondition)
    case jsonEquals(JSONNode)
    /// The body is JSON and the value each pointer selects matches its pattern.
    case jsonPointer([(pointer: JSONPointer, condition: JSONCondition)])
    case text(ValueMatcher)
    case form([(name: String, matcher: ValueMatcher)])
    case multipart(MultipartCondition)

    package var description: String {
        switch self {
        case .json(let condition): "JSON matching \(condition.summary)"
        case .jsonPointer(let entries):
            "JSON with " + entries.map { "\($0.pointer) \($0.condition.summary)" }.joined(separator: ", ")
        case .jsonEquals(let node): "JSON equal to \(JSONSerializer.string(node))"
        case .text(let matcher): matcher.description
        case .form(let fields):
            "form with " + fields.map { "\($0.name) \($0.matcher.description)" }.joined(separator: ", ")
        case .multipart(let condition): condition.description
        }
    }
}
