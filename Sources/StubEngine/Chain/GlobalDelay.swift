import HTTP1
import SystemSupport

/// `--delay MS` (or WireMock's `fixedDelay` setting): extra time before every answer that
/// imitates the API; the server's own answers (admin, preflight) are not slowed down.
final class GlobalDelay: ResponderWrapper {
    let setting: Locked<Int>

    init(milliseconds: Locked<Int>) {
        setting = milliseconds
    }

    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        let outcome = next(facts)
        guard outcome.imitatesTheAPI else { return outcome }
        let milliseconds = setting.value
        guard milliseconds > 0 else { return outcome }
        return Self.delayed(outcome, by: milliseconds)
    }

    /// Apart from `respond`, so the common case (no delay) hands the outcome on without a copy.
    private static func delayed(_ outcome: consuming Outcome, by milliseconds: Int) -> Outcome {
        var outcome = outcome
        switch outcome.reply {
        case .now(var response):
            response.delayMilliseconds += milliseconds
            outcome.reply = .now(response)
        case .later(let pending):
            pending.adjust { $0.delayMilliseconds += milliseconds }
        }
        return outcome
    }
}
