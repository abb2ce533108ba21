#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// What stays the same throughout one answer's templates: the clock reading every `{{now}}`
/// starts from, and the value of each named random variable (`{{uuid 'order'}}`), so the
/// `Location` header and the body's `"id"` agree while the next answer gets new ones.
///
/// One per request (`RequestFacts.templateAnswer`), read by the answer's headers and body and by
/// the stub's webhooks, which are rendered from the same request; never shared between
/// requests. A stream keeps one for all its events (`TemplateInputs`), which may be rendered on
/// other threads, hence the locks.
final class TemplateAnswer: Sendable {
    private let names: Locked<[String: String]>
    private let clock: Locked<Int?>

    init() {
        names = Locked([:])
        clock = Locked(nil)
    }

    /// An answer rendered as at `epochSeconds`, whatever the clock says.
    init(epochSeconds: Int) {
        names = Locked([:])
        clock = Locked(epochSeconds)
    }

    private init(names: Locked<[String: String]>) {
        self.names = names
        clock = Locked(nil)
    }

    /// The same named values with a clock of its own: each event of a stream reads the time
    /// when it goes out, while `{{uuid 'id'}}` is one value for the whole stream.
    func nextEvent() -> TemplateAnswer {
        TemplateAnswer(names: names)
    }

    /// Seconds since 1970, read from the clock the first time a template of the answer asks.
    var epochSeconds: Int {
        clock.withLock { reading in
            if let seconds = reading { return seconds }
            let seconds = Int(Date().timeIntervalSince1970)
            reading = seconds
            return seconds
        }
    }

    /// The value under `key`, made by `make` the first time the answer asks for it.
    func value(_ key: String, make: () -> String) -> String {
        names.withLock { named in
            if let value = named[key] { return value }
            let value = make()
            named[key] = value
            return value
        }
    }
}
