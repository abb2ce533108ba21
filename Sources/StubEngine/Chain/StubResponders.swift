import Dispatch
import HTTP1
import SystemSupport

/// Answers from the stubs: the best match, its sequence and scenario advanced.
struct StubMatchResponder: Responder {
    let state: Locked<EngineState>
    let fallbackBaseURL: Locked<String>
    let upstream: Locked<(any UpstreamTransport)?>

    func respond(to facts: RequestFacts) -> Outcome? {
        let (chosen, catalog, scenarios) = choose(facts)
        guard let chosen else {
            // The fallback reports against exactly what this request was matched against.
            facts.unmatched = (catalog, scenarios)
            return nil
        }
        // A static stub answers with its prepared bytes as they are: copying its `StubResponse`
        // and making a response from it retained and released each of their fields on every
        // request (seen in the c64 profile).
        if chosen.advanced == nil, let fixed = chosen.stub.fixedAnswer { return Outcome(response: fixed, kind: .stub(chosen.stub)) }
        return answer(chosen.advanced ?? chosen.stub.response, chosen.stub, chosen.captures, facts)
    }

    private func answer(_ response: StubResponse, _ stub: Stub, _ captures: [String: String], _ facts: RequestFacts) -> Outcome {
        if let compute = response.computed {
            return Outcome(pending: compute(facts.request, captures), kind: .stub(stub))
        }
        if let rule = response.proxy {
            let outcome = ProxyResponder.forward(facts.request, rule: rule, transport: upstream.value, stub: stub)
            // The stub's own delay still applies, on top of the upstream's time.
            if let delay = response.delay, case .later(let pending) = outcome.reply {
                let milliseconds = delay.draw()
                pending.adjust { $0.delayMilliseconds += milliseconds }
            }
            return outcome
        }
        let made = response.makeResponse(TemplateContext(facts: facts, captures: captures, fallbackBaseURL: fallbackBaseURL.value))
        return Outcome(response: made, kind: .stub(stub))
    }

    /// Picks the stub that answers, and for a sequence or scenario advances the state.
    ///
    /// Matching runs outside the lock, against a snapshot of the catalog and the scenario states
    /// (matching under the lock once let one slow regex stall every event loop). Only a stateful
    /// stub's answer takes the lock again, to advance its state, and only if no scenario moved
    /// in between; otherwise it matches again against the new states. Non-stateful answers are
    /// as if the request had arrived at the snapshot.
    /// `advanced` is the answer of a stateful stub's new state; a stateless stub's is its own.
    private func choose(_ facts: RequestFacts) -> (chosen: (stub: Stub, captures: [String: String], advanced: StubResponse?)?,
                                                   catalog: StubCatalog, scenarios: [String: String]) {
        while true {
            let (catalog, scenarios, version) = state.withLock { ($0.catalog, $0.scenarios, $0.version) }
            let found = catalog.bestMatch(facts, eligible: catalog.isStateful ? { stub in
                guard let rule = stub.scenario, let when = rule.when else { return true }
                return (scenarios[rule.name] ?? ScenarioRule.initialState) == when
            } : nil)
            guard let (stub, captures) = found else { return (nil, catalog, scenarios) }
            guard stub.isStateful else { return ((stub, captures, nil), catalog, scenarios) }
            let response = state.withLock { s -> StubResponse? in
                guard s.version == version else { return nil }
                return s.advance(stub)
            }
            if let response { return ((stub, captures, response), catalog, scenarios) }
        }
    }
}

/// No stub matched: a 404 that names the closest stubs and what differed.
///
/// The report's work is bounded (`NearMissReport.fullyScored` stubs in full after a cheap pass),
/// and with a large catalog it is done off the event loop: the 404 is a pending answer that a
/// background queue completes, so unmatched requests never hold up matched ones.
struct NearMissResponder: FallbackResponder {
    let state: Locked<EngineState>
    /// Catalogs larger than this get their report off the event loop.
    static let offLoopAbove = 1_000

    func respond(to facts: RequestFacts) -> Outcome {
        let (catalog, scenarios) = facts.unmatched ?? state.withLock { ($0.catalog, $0.scenarios) }
        guard catalog.count > Self.offLoopAbove else {
            let report = NearMissReport.build(for: facts, in: catalog, scenarioStates: scenarios)
            return Outcome(response: report.response(for: facts.request), kind: .noMatch(report))
        }
        // The kind must be known now; the report it carries is filled in before the answer goes
        // out, so the journal and the log, which record at the answer, see the real one.
        let pending = PendingResponse()
        let request = facts.request
        let (placeholder, box) = NearMissReport.pending(for: request, stubCount: catalog.count)
        Self.queue.async {
            let report = NearMissReport.build(for: RequestFacts(request), in: catalog, scenarioStates: scenarios)
            box.value = report
            pending.complete(report.response(for: request))
        }
        return Outcome(pending: pending, kind: .noMatch(placeholder))
    }

    private static let queue = DispatchQueue(label: "stubserver.near-miss", attributes: .concurrent)
}

/// The admin API claims `/__admin` and everything below it. Routes that may read the disk
/// (reloading the folder, runtime stubs with body files) run on the engine's admin queue and
/// answer later: disk work never runs on an event loop's thread.
struct AdminResponder: Responder {
    unowned let engine: Engine

    func respond(to facts: RequestFacts) -> Outcome? {
        let request = facts.request
        guard AdminAPI.claims(request.path) else { return nil }
        guard AdminAPI.mayReadDisk(request) else {
            return Outcome(response: AdminAPI(engine: engine).handle(request), kind: .admin)
        }
        let pending = PendingResponse()
        let engine = self.engine
        engine.adminQueue.async { pending.complete(AdminAPI(engine: engine).handle(request)) }
        return Outcome(pending: pending, kind: .admin)
    }
}
