import HTTP1

/// What carries a forwarded request to its upstream: the server's own HTTP client for http,
/// the platform's URLSession for https (module StubProxy). The engine knows nothing of sockets;
/// it builds the request and hands it over.
package protocol UpstreamTransport: Sendable {
    /// Sends `request` and completes `answer` once: with the upstream's response (the head now,
    /// the body streamed, the forwarding rules applied by `ForwardingRules.response`), or with
    /// a 502 (unreachable, broken response) or 504 (timeout) saying which upstream and why.
    /// If `answer` is cancelled (the client left), the upstream request is dropped.
    func forward(_ request: ForwardedRequest, answer: PendingResponse, report: ProxyReport)
}
