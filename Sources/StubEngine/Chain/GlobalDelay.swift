import HTTP1
import SystemSupport

/// `--delay MS` (or WireMock's `fixedDelay` setting): extra time before every answer that
/// imitates the API; the server's own answers (admin, preflight) are not slowed down.
final class GlobalDelay: OutcomeAdjuster {
    let setting: Locked<Int>

    init(milliseconds: Locked<Int>) {
        setting = milliseconds
    }

    func adjust(_ outcome: inout Outcome, for facts: RequestFacts) {
        guard outcome.imitatesTheAPI else { return }
        let milliseconds = setting.value
        guard milliseconds > 0 else { return }
        switch outcome.reply {
        case .now(var response):
            response.delayMilliseconds += milliseconds
            outcome.reply = .now(response)
        case .later(let pending):
            pending.adjust { $0.delayMilliseconds += milliseconds }
        }
    }
}
