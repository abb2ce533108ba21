import SystemSupport

/// How an engine speaks WireMock (docs/wiremock.md).
package struct WireMockOptions: Sendable {
    /// Which dialect answers the admin routes both have (`/__admin/requests`, `/health`, ...)
    /// when a request does not say: WireMock's when the server serves a WireMock folder.
    package var adminDialect = AdminDialect.native
    /// `POST /__admin/shutdown` stops the server (`--allow-shutdown`); otherwise it is refused.
    package var allowShutdown = false
    /// Every mapping's response is a template, as with WireMock's `--global-response-templating`.
    package var globalTemplating = false

    package init() {}
}

/// The two admin dialects on one port.
package enum AdminDialect: String, Sendable {
    case native, wiremock
}

/// The WireMock dialect's state while the server runs.
package final class WireMockRuntime: Sendable {
    /// Counts mappings added at run time: WireMock serves the most recent of equal priority, so
    /// each new one ranks before the ones before it.
    private let sequence = Locked(0)
    /// Stops the server (set by whoever runs it), for `POST /__admin/shutdown`.
    package let shutdown = Locked<(@Sendable () -> Void)?>(nil)

    /// The order value of the next mapping added at run time: lower than every earlier one.
    func nextOrder() -> Int {
        sequence.withLock { n in
            n += 1
            return -n
        }
    }
}
