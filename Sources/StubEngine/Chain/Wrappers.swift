import Dispatch
import HTTP1

/// Records every request but the admin API's in the journal, with how long it took (its
/// delay included, as a client would measure it).
struct JournalRecorder: ResponderWrapper {
    let journal: Journal

    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome = next(facts)
        guard !outcome.isAdmin else { return outcome }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
        journal.record(facts.request, outcome, durationMilliseconds: elapsed + Double(outcome.response.delayMilliseconds))
        return outcome
    }
}

/// `--delay MS`: extra time before every answer that imitates the API; the server's own
/// answers (admin, preflight) are not slowed down.
struct GlobalDelay: ResponderWrapper {
    let milliseconds: Int

    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        var outcome = next(facts)
        if outcome.imitatesTheAPI { outcome.response.delayMilliseconds += milliseconds }
        return outcome
    }
}

/// `--cors`: preflights answered (without it they are matched against stubs like any request),
/// and every answer that imitates the API gets the CORS headers.
struct CORSResponder: Responder, ResponderWrapper {
    let policy: CORSPolicy

    func respond(to facts: RequestFacts) -> Outcome? {
        policy.preflight(facts.request).map { Outcome(response: $0, kind: .preflight) }
    }

    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        var outcome = next(facts)
        if outcome.imitatesTheAPI { outcome.response = policy.decorate(outcome.response, for: facts.request) }
        return outcome
    }
}
