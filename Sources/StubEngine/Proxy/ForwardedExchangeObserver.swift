import HTTP1

/// Watches the exchanges the engine forwards because no stub answered them (to the fallback
/// upstream, or a forward-proxy client's own host): the request as it came and the answer as it
/// goes back. Plugged in from outside through `Engine.Options.exchangeObservers` (the recorder,
/// `StubAuthoring.Recorder`), so the engine knows nothing of what is done with them.
package protocol ForwardedExchangeObserver: Sendable {
    /// Asked on the event loop for every unmatched request about to be forwarded: nil when this
    /// observer leaves it alone (keep that cheap: it is on the proxied request's path), else how
    /// it follows the exchange.
    /// `host`: the host a forward-proxy client addressed (without port), nil for the fallback
    /// upstream.
    func follow(_ request: IncomingRequest, host: String?) -> ForwardedExchangeFollower?
}

/// How an observer follows one forwarded exchange. A followed request is journaled with its
/// whole body (`ProxyReport.recorded`), since it is what the observer keeps.
package struct ForwardedExchangeFollower: Sendable {
    /// Fields set on the request sent upstream (the recorder asks for `Accept-Encoding:
    /// identity`, so the bodies it keeps can be read and edited).
    package var setHeaders: [(name: String, value: String)]
    /// Called with the pending answer before the request leaves (a transport may complete it at
    /// once), to adjust it or tap its body (`PendingResponse.adjust`, `BodyStream.tap`).
    package var answer: @Sendable (PendingResponse) -> Void

    package init(
        setHeaders: [(name: String, value: String)] = [],
        answer: @escaping @Sendable (PendingResponse) -> Void
    ) {
        self.setHeaders = setHeaders
        self.answer = answer
    }
}
