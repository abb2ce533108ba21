import Foundation
import HTTP1
import SystemSupport

/// What the engine did with one request: the response, and which stub (if any) produced it.
public struct StubOutcome: Sendable {
    public let response: OutgoingResponse
    /// nil when no stub matched; `nearMiss` then says why.
    public let stub: Stub?
    public let nearMiss: NearMissReport?
    /// A CORS preflight answered by `--cors` rather than by a stub.
    public let isPreflight: Bool
    /// An admin API request (`/__admin/...`), answered by the engine itself.
    public let isAdmin: Bool

    public init(response: OutgoingResponse, stub: Stub?, nearMiss: NearMissReport?, isPreflight: Bool = false, isAdmin: Bool = false) {
        self.response = response
        self.stub = stub
        self.nearMiss = nearMiss
        self.isPreflight = isPreflight
        self.isAdmin = isAdmin
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
public final class Engine: Sendable {
    /// How an engine is set up; every field has the command line's default.
    public struct Options: Sendable {
        /// Answer CORS preflights and add CORS headers (`--cors`).
        public var cors: CORSPolicy?
        /// Journal entries kept (`--journal N`); 0 turns the journal off.
        public var journalCapacity = 1000
        /// When set, every admin request needs `Authorization: Bearer TOKEN` (`--admin-token`).
        public var adminToken: String?
        /// The stub folder: runtime stubs' `bodyFile`s are relative to it, and `POST /__admin/reload` reads it.
        public var directory: String?
        /// Reported by `GET /__admin/health`.
        public var version = "dev"

        public init(cors: CORSPolicy? = nil, journalCapacity: Int = 1000, adminToken: String? = nil,
                    directory: String? = nil, version: String = "dev") {
            self.cors = cors
            self.journalCapacity = journalCapacity
            self.adminToken = adminToken
            self.directory = directory
            self.version = version
        }
    }

    let state: Locked<EngineState>
    let options: Options
    public let journal: Journal
    let startedAt = Date()

    /// `{{request.baseUrl}}` for a request that names no host (HTTP/1.0 without `Host`):
    /// the server sets its own address here once it listens.
    package let fallbackBaseURL = Locked("http://localhost")

    public convenience init(stubs: [Stub] = [], cors: CORSPolicy? = nil) {
        self.init(stubs: stubs, options: Options(cors: cors))
    }

    public init(stubs: [Stub], options: Options) {
        state = Locked(EngineState(fileStubs: stubs))
        self.options = options
        journal = Journal(capacity: options.journalCapacity)
    }

    public var catalog: StubCatalog { state.withLock { $0.catalog } }

    /// Atomically replaces the file stubs (after a reload). Runtime stubs, sequence positions
    /// and scenario states are kept.
    public func replace(with stubs: [Stub]) {
        state.withLock { $0.replaceFileStubs(stubs) }
    }

    /// Adds runtime stubs (they come before file stubs of equal priority and specificity). Each
    /// is inserted into the catalog at its rank; nothing is rebuilt.
    public func addRuntimeStubs(_ stubs: [Stub]) {
        state.withLock { $0.addRuntimeStubs(stubs) }
    }

    /// Removes one runtime stub; false when there is none with that id.
    @discardableResult
    public func removeRuntimeStub(id: String) -> Bool {
        state.withLock { s in
            guard s.runtimeStubs.contains(where: { $0.id == id }) else { return false }
            s.setRuntimeStubs(s.runtimeStubs.filter { $0.id != id })
            return true
        }
    }

    /// Replaces a runtime stub in place, keeping its id; false when it is gone (a concurrent
    /// DELETE may have removed it after the caller looked it up).
    @discardableResult
    public func replaceRuntimeStub(id: String, with stub: Stub) -> Bool {
        state.withLock { s in
            guard s.runtimeStubs.contains(where: { $0.id == id }) else { return false }
            s.setRuntimeStubs(s.runtimeStubs.map { $0.id == id ? stub : $0 })
            return true
        }
    }

    public func removeAllRuntimeStubs() {
        state.withLock { $0.setRuntimeStubs([]) }
    }

    /// Runtime stubs removed, journal cleared, sequences and scenarios back to the start.
    public func reset() {
        state.withLock { s in
            s.setRuntimeStubs([])
            s.positions = [:]
            s.scenarios = [:]
            s.version &+= 1
        }
        journal.clear()
    }

    /// Every sequence back to its first response and every scenario to "Started".
    public func resetSequencesAndScenarios() {
        state.withLock {
            $0.positions = [:]
            $0.scenarios = [:]
            $0.version &+= 1
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
        state.withLock {
            $0.scenarios[name] = newState
            $0.version &+= 1
        }
    }

    public func handle(_ request: IncomingRequest) -> StubOutcome {
        if AdminAPI.claims(request.path) {
            return StubOutcome(response: AdminAPI(engine: self).handle(request), stub: nil, nearMiss: nil, isAdmin: true)
        }
        guard journal.isEnabled else { return answer(request) }
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome = answer(request)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
        journal.record(request, outcome, durationMilliseconds: elapsed + Double(outcome.response.delayMilliseconds))
        return outcome
    }

    private func answer(_ request: IncomingRequest) -> StubOutcome {
        guard let cors = options.cors else { return match(request) }
        if let preflight = cors.preflight(request) {
            return StubOutcome(response: preflight, stub: nil, nearMiss: nil, isPreflight: true)
        }
        let outcome = match(request)
        return StubOutcome(response: cors.decorate(outcome.response, for: request), stub: outcome.stub, nearMiss: outcome.nearMiss)
    }

    private func match(_ request: IncomingRequest) -> StubOutcome {
        let facts = RequestFacts(request)
        let (chosen, catalog, scenarioStates) = choose(facts)
        if let chosen {
            let response = chosen.response.makeHTTPResponse(
                TemplateContext(facts: facts, captures: chosen.captures, fallbackBaseURL: fallbackBaseURL.value))
            return StubOutcome(response: response, stub: chosen.stub, nearMiss: nil)
        }
        let report = NearMissReport.build(for: facts, in: catalog, scenarioStates: scenarioStates)
        return StubOutcome(response: report.response(for: request), stub: nil, nearMiss: report)
    }

    /// Picks the stub that answers, and for a sequence or scenario advances the state.
    ///
    /// Matching runs outside the lock, against a snapshot of the catalog and the scenario states
    /// (matching under the lock once let one slow regex stall every event loop). Only a stateful
    /// stub's answer takes the lock again, to advance its state, and only if no scenario moved
    /// in between; otherwise it matches again against the new states. Non-stateful answers are
    /// as if the request had arrived at the snapshot.
    private func choose(_ facts: RequestFacts) -> (chosen: (stub: Stub, captures: [String: String], response: StubResponse)?,
                                                   catalog: StubCatalog, scenarios: [String: String]) {
        while true {
            let (catalog, scenarios, version) = state.withLock { ($0.catalog, $0.scenarios, $0.version) }
            let found = catalog.bestMatch(facts, eligible: catalog.isStateful ? { stub in
                guard let rule = stub.scenario else { return true }
                return (scenarios[rule.name] ?? ScenarioRule.initialState) == rule.when
            } : nil)
            guard let (stub, captures) = found else { return (nil, catalog, scenarios) }
            guard stub.isStateful else { return ((stub, captures, stub.response), catalog, scenarios) }
            let response = state.withLock { s -> StubResponse? in
                guard s.version == version else { return nil }
                return s.advance(stub)
            }
            if let response { return ((stub, captures, response), catalog, scenarios) }
        }
    }
}

/// Everything the engine shares between requests.
struct EngineState: Sendable {
    var fileStubs: [Stub]
    var runtimeStubs: [Stub] = []
    var catalog: StubCatalog
    /// Stub id to the index of its next response in a sequence.
    var positions: [String: Int] = [:]
    /// Scenario name to state; absent means "Started".
    var scenarios: [String: String] = [:]
    /// Changes whenever what a request can match changes (the stubs or a scenario state): an
    /// answer chosen outside the lock is only committed if this has not moved.
    var version: UInt64 = 0

    init(fileStubs: [Stub]) {
        self.fileStubs = fileStubs
        self.catalog = StubCatalog(fileStubs)
    }

    mutating func replaceFileStubs(_ stubs: [Stub]) {
        fileStubs = stubs
        catalog = StubCatalog(runtimeStubs + stubs)
        version &+= 1
    }

    mutating func setRuntimeStubs(_ stubs: [Stub]) {
        runtimeStubs = stubs
        catalog = StubCatalog(stubs + fileStubs)
        version &+= 1
    }

    mutating func addRuntimeStubs(_ stubs: [Stub]) {
        runtimeStubs += stubs
        for stub in stubs { catalog.insert(stub) }
        version &+= 1
    }

    /// The response a stateful stub gives now, advancing its sequence and scenario: called under
    /// the lock, after matching.
    mutating func advance(_ stub: Stub) -> StubResponse {
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
            scenarios[rule.name] = next
            version &+= 1
        }
        return response
    }
}
