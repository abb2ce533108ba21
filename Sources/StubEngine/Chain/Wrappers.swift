import Dispatch
import HTTP1
import SystemSupport

/// Records every request but the admin API's in the journal, with when it came and how long
/// its answer took (its delay included, as a client would wait for it).
final class JournalRecorder: ResponderWrapper {
    let journal: Journal

    init(journal: Journal) {
        self.journal = journal
    }

    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        // One clock read per request: when it came (`receivedAt`). An answer given at once takes
        // the engine microseconds, which the journal's milliseconds do not show, so it lasts its
        // delay; only an answer that comes later, or is delivered later, reads the clock again.
        let receivedAt = WallClock.nanosecondsSince1970()
        let outcome = next(facts)
        guard !outcome.isAdmin else { return outcome }
        // Regex matches that gave up (nil unless a stub that may backtrack was looked at).
        let regexLog = facts.regexLog
        switch outcome.reply {
        case .now(let response):
            if response.takesItsTime {
                return recordTakingItsTime(outcome, facts, receivedAt: receivedAt)
            }
            journal.record(
                facts.request,
                outcome.kind,
                answer: response,
                receivedAt: receivedAt,
                durationMilliseconds: Double(response.delayMilliseconds),
                regexAborts: regexLog?.aborts ?? [],
                stream: outcome.transcript,
                contract: facts.contract
            )
        case .later(let pending):
            // Recorded when the answer exists (or with no status, if the client left first); a
            // near-miss report made off the loop has added its aborts by then.
            let journal = self.journal
            let request = facts.request
            let kind = outcome.kind
            let contract = facts.contract
            // A forwarded answer that streams is watched once it arrives (`ProxiedStreams`).
            let proxyReport: ProxyReport? = if case .proxied(let report, _) = kind { report } else { nil }
            // Attached last (this wrapper's adjustment runs after the inner ones, the global
            // delay's included), so it knows whether the answer takes its time.
            let delivery = JournalDelivery(receivedAt: receivedAt)
            let report = delivery.report()
            pending.adjust { response in
                if response.takesItsTime { response.deliveryReport = report }
            }
            pending.observe { response in
                journal.record(
                    request,
                    kind,
                    response,
                    receivedAt: receivedAt,
                    durationMilliseconds: JournalDelivery.milliseconds(since: receivedAt)
                        + Double(response?.delayMilliseconds ?? 0),
                    regexAborts: regexLog?.aborts ?? [],
                    stream: proxyReport?.stream,
                    contract: contract,
                    delivery: response?.deliveryReport == nil ? nil : delivery
                )
            }
        }
        return outcome
    }

    /// A delayed or dribbled answer: journaled now, with a report the transport tells whether
    /// it reached the client (`JournalDelivery`).
    private func recordTakingItsTime(_ outcome: Outcome, _ facts: RequestFacts, receivedAt: Int64) -> Outcome {
        guard case .now(var response) = outcome.reply else { return outcome }
        let delivery = JournalDelivery(receivedAt: receivedAt)
        response.deliveryReport = delivery.report()
        journal.record(
            facts.request,
            outcome.kind,
            answer: response,
            receivedAt: receivedAt,
            durationMilliseconds: Double(response.delayMilliseconds),
            regexAborts: facts.regexLog?.aborts ?? [],
            stream: outcome.transcript,
            contract: facts.contract,
            delivery: delivery
        )
        var outcome = outcome
        outcome.reply = .now(response)
        return outcome
    }
}

/// `--cors`: preflights answered (without it they are matched against stubs like any request),
/// and every answer that imitates the API gets the CORS headers.
final class CORSResponder: Responder, ResponderWrapper {
    let policy: CORSPolicy

    init(policy: CORSPolicy) {
        self.policy = policy
    }

    func respond(to facts: RequestFacts) -> Outcome? {
        policy.preflight(facts.request).map { Outcome(response: $0, kind: .preflight) }
    }

    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        var outcome = next(facts)
        guard outcome.imitatesTheAPI else { return outcome }
        switch outcome.reply {
        case .now(let response):
            outcome.reply = .now(policy.decorate(response, for: facts.request))
        case .later(let pending):
            let policy = self.policy
            let request = facts.request
            pending.adjust { $0 = policy.decorate($0, for: request) }
        }
        return outcome
    }
}
