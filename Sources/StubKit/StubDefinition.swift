/// A stub built in Swift: the same shape and names as a stub file, and loaded by the same
/// loader, so it means the same thing and a mistake gets the same message.
///
///     StubDefinition(name: "Register: username already exists",
///                    request: .post("/v1/register", body: .json(["username": "swift-senpai"])),
///                    response: .json(["error_code": "E001", "message": "Username already exists"], status: 409))
///
/// Or with an answer computed in Swift:
///
///     StubDefinition(request: .get("/v1/users/{id}")) { request in
///         .json(["id": .string(request.pathParameters["id"] ?? "")])
///     }
public struct StubDefinition: Sendable {
    /// Shown in logs and near-miss reports.
    public var name: String?
    /// 1 is the highest; nil is 5.
    public var priority: Int?
    public var request: RequestDefinition
    public var response: ResponseDefinition?
    /// A sequence: successive matching requests get the next response.
    public var responses: [ResponseDefinition]?
    /// After a sequence's last response.
    public var after: SequenceEnd?
    public var scenario: ScenarioDefinition?
    /// Calls the server makes after each answer (`"webhooks"` in a stub file).
    public var webhooks: [WebhookDefinition] = []
    /// Answers a WebSocket upgrade instead of a response (`"websocket"` in a stub file).
    public var webSocket: WebSocketDefinition?
    /// Computes the answer for each request instead of `response`.
    let responder: Responder?

    public init(
        name: String? = nil,
        priority: Int? = nil,
        request: RequestDefinition = RequestDefinition(),
        response: ResponseDefinition,
        scenario: ScenarioDefinition? = nil
    ) {
        self.init(
            name: name,
            priority: priority,
            request: request,
            response: response,
            responses: nil,
            after: nil,
            scenario: scenario,
            responder: nil
        )
    }

    public init(
        name: String? = nil,
        priority: Int? = nil,
        request: RequestDefinition = RequestDefinition(),
        responses: [ResponseDefinition],
        after: SequenceEnd? = nil,
        scenario: ScenarioDefinition? = nil
    ) {
        self.init(
            name: name,
            priority: priority,
            request: request,
            response: nil,
            responses: responses,
            after: after,
            scenario: scenario,
            responder: nil
        )
    }

    /// A WebSocket stub: the upgrade request matched like any other, then `webSocket`'s script.
    /// A plain request that matches it gets 426 Upgrade Required.
    public init(
        name: String? = nil,
        priority: Int? = nil,
        request: RequestDefinition = RequestDefinition(),
        webSocket: WebSocketDefinition,
        scenario: ScenarioDefinition? = nil
    ) {
        self.init(
            name: name,
            priority: priority,
            request: request,
            response: nil,
            responses: nil,
            after: nil,
            scenario: scenario,
            responder: nil
        )
        self.webSocket = webSocket
    }

    /// A stub whose answer `respond` computes for each request it matches. It runs off the
    /// server's threads, may take its time (`await`), and what it throws becomes a 500 that says
    /// why. Its answer is checked as a stub file's response is: a mistake is a 500 with the
    /// loader's message.
    public init(
        name: String? = nil,
        priority: Int? = nil,
        request: RequestDefinition = RequestDefinition(),
        scenario: ScenarioDefinition? = nil,
        respond: @escaping @Sendable (StubRequest) async throws -> ResponseDefinition
    ) {
        self.init(
            name: name,
            priority: priority,
            request: request,
            response: nil,
            responses: nil,
            after: nil,
            scenario: scenario,
            responder: Responder(respond: respond)
        )
    }

    private init(
        name: String?,
        priority: Int?,
        request: RequestDefinition,
        response: ResponseDefinition?,
        responses: [ResponseDefinition]?,
        after: SequenceEnd?,
        scenario: ScenarioDefinition?,
        responder: Responder?
    ) {
        self.name = name
        self.priority = priority
        self.request = request
        self.response = response
        self.responses = responses
        self.after = after
        self.scenario = scenario
        self.responder = responder
    }

    /// What a sequence does after its last response.
    public enum SequenceEnd: String, Sendable {
        /// Every later request gets the last response (the default).
        case repeatLast
        /// The sequence starts over.
        case cycle
    }

    /// A closure, wrapped so the definition stays a value that can be passed around.
    struct Responder: Sendable {
        let respond: @Sendable (StubRequest) async throws -> ResponseDefinition
    }
}

/// `"scenario": {"name": "checkout", "when": "Started", "then": "paid"}`: the stub matches only
/// while the scenario is in state `when` (every scenario starts in "Started") and moves it to
/// `then` after answering.
public struct ScenarioDefinition: Sendable, Equatable {
    public var name: String
    public var when: String?
    public var then: String?
    public init(name: String, when: String? = nil, then: String? = nil) {
        self.name = name
        self.when = when
        self.then = then
    }
}

/// Builds a list of stubs from statements, `if`s and `for`s:
///
///     let stubs = try Stubs {
///         StubDefinition(request: .get("/v1/me"), response: .json(["id": 42]))
///         if signedOut { StubDefinition(request: .get("/v1/feed"), response: .status(401)) }
///         for id in 1...3 {
///             StubDefinition(request: .get("/v1/items/\(id)"), response: .json(["id": .number(Double(id))]))
///         }
///     }
@resultBuilder
public enum StubListBuilder {
    public static func buildExpression(_ stub: StubDefinition) -> [StubDefinition] { [stub] }
    public static func buildExpression(_ stubs: [StubDefinition]) -> [StubDefinition] { stubs }
    public static func buildBlock(_ parts: [StubDefinition]...) -> [StubDefinition] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [StubDefinition]?) -> [StubDefinition] { part ?? [] }
    public static func buildEither(first part: [StubDefinition]) -> [StubDefinition] { part }
    public static func buildEither(second part: [StubDefinition]) -> [StubDefinition] { part }
    public static func buildArray(_ parts: [[StubDefinition]]) -> [StubDefinition] { parts.flatMap { $0 } }
}
