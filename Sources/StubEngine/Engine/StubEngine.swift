import Foundation
import HTTP1

/// What the engine did with one request: the response, and which stub (if any) produced it.
public struct StubOutcome: Sendable {
    public let response: HTTPResponse
    /// nil when no stub matched; `nearMiss` then says why.
    public let stub: Stub?
    public let nearMiss: NearMissReport?
    /// A CORS preflight answered by `--cors` rather than by a stub.
    public let isPreflight: Bool

    public init(response: HTTPResponse, stub: Stub?, nearMiss: NearMissReport?, isPreflight: Bool = false) {
        self.response = response
        self.stub = stub
        self.nearMiss = nearMiss
        self.isPreflight = isPreflight
    }
}

/// The stub engine: takes a request, gives back a response. It knows nothing of sockets, so the
/// same engine serves over the HTTP server, in-process, and in unit tests.
///
/// All shared state (the stubs, sequence positions, scenario states) is one `EngineState` behind
/// one lock. The stubs are an immutable `StubCatalog`: a reload builds the new one aside and swaps
/// it in whole, so no request sees half a folder. Requests to a catalog without sequences or
/// scenarios only copy the catalog reference under the lock and match outside it; with them,
/// matching and advancing happen under the lock, so two simultaneous requests never both get
/// the first response of a sequence.
public final class StubEngine: Sendable {
    private let state: Guarded<EngineState>
    private let cors: CORSPolicy?

    /// `{{request.baseUrl}}` for a request that names no host (HTTP/1.0 without `Host`):
    /// the server sets its own address here once it listens.
    public let fallbackBaseURL = Guarded("http://localhost")

    public init(stubs: [Stub] = [], cors: CORSPolicy? = nil) {
        state = Guarded(EngineState(fileStubs: stubs))
        self.cors = cors
    }

    public var catalog: StubCatalog { state.withLock { $0.catalog } }

    /// Atomically replaces the file stubs (after a reload). Sequence positions and scenario
    /// states are kept.
    public func replace(with stubs: [Stub]) {
        let catalog = StubCatalog(stubs)
        state.withLock {
            $0.fileStubs = stubs
            $0.catalog = catalog
        }
    }

    /// Every sequence back to its first response and every scenario to "Started".
    public func resetSequencesAndScenarios() {
        state.withLock {
            $0.positions = [:]
            $0.scenarios = [:]
        }
    }

    /// Each scenario the stubs name, with its current state.
    public var scenarios: [(name: String, state: String)] {
        state.withLock { s in
            let names = Set(s.catalog.stubs.compactMap { $0.scenario?.name }).union(s.scenarios.keys)
            return names.sorted().map { ($0, s.scenarios[$0] ?? ScenarioRule.initialState) }
        }
    }

    /// Moves a scenario straight to a state.
    public func setScenario(_ name: String, to newState: String) {
        state.withLock { $0.scenarios[name] = newState }
    }

    public func handle(_ request: HTTPRequest) -> StubOutcome {
        guard let cors else { return match(request) }
        if let preflight = cors.preflight(request) {
            return StubOutcome(response: preflight, stub: nil, nearMiss: nil, isPreflight: true)
        }
        let outcome = match(request)
        return StubOutcome(response: cors.decorate(outcome.response, for: request), stub: outcome.stub, nearMiss: outcome.nearMiss)
    }

    private func match(_ request: HTTPRequest) -> StubOutcome {
        let facts = RequestFacts(request)
        let catalog = state.withLock { $0.catalog }
        let chosen: (stub: Stub, captures: [String: String], response: StubResponse)?
        var scenarioStates: [String: String] = [:]
        if catalog.isStateful {
            chosen = state.withLock { s in s.answer(facts) }
            if chosen == nil { scenarioStates = state.withLock { $0.scenarios } }
        } else {
            chosen = catalog.bestMatch(facts, eligible: nil).map { ($0.stub, $0.captures, $0.stub.response) }
        }
        if let chosen {
            let response = chosen.response.makeHTTPResponse(
                TemplateContext(facts: facts, captures: chosen.captures, fallbackBaseURL: fallbackBaseURL.value))
            return StubOutcome(response: response, stub: chosen.stub, nearMiss: nil)
        }
        let report = NearMissReport.build(for: facts, in: catalog, scenarioStates: scenarioStates)
        return StubOutcome(response: report.response(for: request), stub: nil, nearMiss: report)
    }
}

/// Everything the engine shares between requests.
struct EngineState: Sendable {
    var fileStubs: [Stub]
    var catalog: StubCatalog
    /// Stub id to the index of its next response in a sequence.
    var positions: [String: Int] = [:]
    /// Scenario name to state; absent means "Started".
    var scenarios: [String: String] = [:]

    init(fileStubs: [Stub]) {
        self.fileStubs = fileStubs
        self.catalog = StubCatalog(fileStubs)
    }

    /// Matches with scenario states and advances sequences and scenarios: called under the lock.
    mutating func answer(_ facts: RequestFacts) -> (stub: Stub, captures: [String: String], response: StubResponse)? {
        let scenarios = self.scenarios
        guard let (stub, captures) = catalog.bestMatch(facts, eligible: { stub in
            guard let rule = stub.scenario else { return true }
            return (scenarios[rule.name] ?? ScenarioRule.initialState) == rule.when
        }) else { return nil }
        var response = stub.response
        if stub.responses.count > 1 {
            let position = positions[stub.id] ?? 0
            switch stub.afterLast {
            case .repeatLast:
                response = stub.responses[min(position, stub.responses.count - 1)]
                positions[stub.id] = min(position + 1, stub.responses.count)
            case .cycle:
                response = stub.responses[position % stub.responses.count]
                positions[stub.id] = (position + 1) % stub.responses.count
            }
        }
        if let rule = stub.scenario, let next = rule.then {
            self.scenarios[rule.name] = next
        }
        return (stub, captures, response)
    }
}
