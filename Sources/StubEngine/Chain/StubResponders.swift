import Dispatch
import HTTP1
import SystemSupport
import RegularExpressions

/// Answers from the stubs: the best match, its sequence and scenario advanced.
final class StubMatchResponder: Responder {
    let state: Locked<EngineState>
    let fallbackBaseURL: Locked<String>
    let upstream: Locked<(any UpstreamTransport)?>
    let maximumRenderedBytes: Int
    let webSockets: WebSocketHub
    let streamStallMilliseconds: Int

    init(
        state: Locked<EngineState>,
        fallbackBaseURL: Locked<String>,
        upstream: Locked<(any UpstreamTransport)?>,
        maximumRenderedBytes: Int,
        webSockets: WebSocketHub,
        streamStallMilliseconds: Int
    ) {
        self.state = state
        self.fallbackBaseURL = fallbackBaseURL
        self.upstream = upstream
        self.maximumRenderedBytes = maximumRenderedBytes
        self.webSockets = webSockets
        self.streamStallMilliseconds = streamStallMilliseconds
    }

    func respond(to facts: RequestFacts) -> Outcome? {
        guard let chosen = choose(facts) else { return nil }
        if !chosen.stub.webhooks.isEmpty { facts.captures = chosen.captures }
        // A static stub answers with its prepared bytes as they are: copying its `StubResponse`
        // and making a response from it retained and released each of their fields on every
        // request (seen in the c64 profile).
        if let fixed = chosen.stub.fixedAnswer { return Outcome(response: fixed, kind: .stub(chosen.stub)) }
        return answer(chosen.stub.responses[chosen.response], chosen.stub, chosen.captures, facts)
    }

    /// The stub that answers and which of its responses. An index, not the `StubResponse`:
    /// carrying that 320-byte value in an optional tuple cost three generic copies and
    /// destroys per request (7% of the request path's instructions under callgrind).
    private struct Choice {
        let stub: Stub
        let captures: [String: String]
        let response: Int
    }

    private func answer(
        _ response: StubResponse,
        _ stub: Stub,
        _ captures: [String: String],
        _ facts: RequestFacts
    ) -> Outcome {
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
        if let stream = response.stream {
            let inputs = TemplateInputs(
                request: facts.request,
                captures: captures,
                fallbackBaseURL: fallbackBaseURL.value,
                maximumRenderedBytes: maximumRenderedBytes
            )
            switch stream {
            case .events(let script):
                return StreamAnswers.events(script, response, stub, inputs, stallMilliseconds: streamStallMilliseconds)
            case .webSocket(let script):
                return StreamAnswers.webSocket(script, stub, inputs, hub: webSockets)
            }
        }
        let context = TemplateContext(
            facts: facts,
            captures: captures,
            fallbackBaseURL: fallbackBaseURL.value,
            maximumRenderedBytes: maximumRenderedBytes
        )
        guard stub.mayBacktrack else { return Outcome(response: response.makeResponse(context), kind: .stub(stub)) }
        // A template's regex (`regexExtract`) may backtrack too: one that gives up is recorded.
        let budget = facts.regexBudget()
        budget.matching(ruleID: stub.id, name: stub.name)
        budget.matching(condition: "response template")
        let made = RegexBudget.$current.withValue(budget) { response.makeResponse(context) }
        return Outcome(response: made, kind: .stub(stub))
    }

    /// Picks the stub that answers, and for a sequence or scenario advances the state.
    ///
    /// Matching runs outside the lock, against a snapshot of the catalog and the scenario states
    /// (matching under the lock once let one slow regex stall every event loop). Only a stateful
    /// stub's answer takes the lock again, to advance its state, and only if no scenario moved
    /// in between; otherwise it matches again against the new states. Non-stateful answers are
    /// as if the request had arrived at the snapshot.
    /// With no match, the fallback is told what the request was matched against.
    private func choose(_ facts: RequestFacts) -> Choice? {
        while true {
            // The scenario states only when a stub has a sequence or scenario: otherwise nothing
            // reads them, and copying them out cost a retain and a release per request.
            let (catalog, scenarios, version) = state.withLock { s in
                (s.catalog, s.catalog.isStateful ? s.scenarios : nil, s.version)
            }
            let found = catalog.bestMatch(
                facts,
                eligible: scenarios.map { scenarios in
                    { stub in
                        guard let rule = stub.scenario, let when = rule.when else { return true }
                        return (scenarios[rule.name] ?? ScenarioRule.initialState) == when
                    }
                }
            )
            guard let (stub, captures) = found else {
                // The fallback reports against exactly what this request was matched against.
                facts.unmatched = (catalog, scenarios ?? [:])
                return nil
            }
            guard stub.isStateful else { return Choice(stub: stub, captures: captures, response: 0) }
            let response = state.withLock { s -> Int? in
                guard s.version == version else { return nil }
                return s.advance(stub)
            }
            if let response { return Choice(stub: stub, captures: captures, response: response) }
        }
    }
}

/// No stub matched: a 404 that names the closest stubs and what differed.
///
/// The report's work is bounded (`NearMissReport.fullyScored` stubs in full after a cheap pass),
/// and with a large catalog it is done off the event loop: the 404 is a pending answer that a
/// background queue completes, so unmatched requests never hold up matched ones.
final class NearMissResponder: FallbackResponder {
    let state: Locked<EngineState>

    init(state: Locked<EngineState>) {
        self.state = state
    }

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
        // The matching's regex budget goes along: its verdicts, its aborts, what is left of it.
        let budget = catalog.mayBacktrack ? facts.regexBudget() : nil
        Self.queue.async {
            let report = NearMissReport.build(
                for: RequestFacts(request),
                in: catalog,
                scenarioStates: scenarios,
                budget: budget
            )
            box.value = report
            pending.complete(report.response(for: request))
        }
        return Outcome(pending: pending, kind: .noMatch(placeholder))
    }

    private static let queue = DispatchQueue(label: "stubserver.near-miss", attributes: .concurrent)
}

/// The admin API claims `/__admin` and everything below it, applies `AdminProtection`, then
/// hands the request to the registered route sets (`AdminAPI.answer`). Routes that may read the
/// disk (reloading the folder, runtime stubs with body files) run on the engine's admin queue
/// and answer later: disk work never runs on an event loop's thread.
final class AdminResponder: Responder {
    unowned let engine: Engine

    init(engine: Engine) {
        self.engine = engine
    }

    func respond(to facts: RequestFacts) -> Outcome? {
        // Checked before the request is copied out of the facts: most requests are not admin ones.
        guard AdminAPI.claims(facts.request.path) else { return nil }
        let request = facts.request
        let routeSets = engine.options.adminRoutes
        let needsToken = !routeSets.contains { $0.isPublic(request) }
        if let refusal = engine.options.admin.refusal(for: request, needsToken: needsToken) {
            return Outcome(response: AdminAPI.refusal(refusal), kind: .refused(refusal))
        }
        guard routeSets.contains(where: { $0.mayReadDisk(request) }) else {
            return Outcome(response: AdminAPI.answer(request, engine: engine), kind: .admin)
        }
        let pending = PendingResponse()
        let engine = self.engine
        engine.adminQueue.async { pending.complete(AdminAPI.answer(request, engine: engine)) }
        return Outcome(pending: pending, kind: .admin)
    }
}
