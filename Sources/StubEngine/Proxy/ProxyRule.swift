import SystemSupport
import HTTP1

/// How to forward: `--proxy URL` with its flags, or a stub's `"proxy": {...}`.
package struct ProxyRule: Sendable {
    package var upstream: UpstreamURL
    /// Removed from the start of the request path before it goes below the upstream's base path.
    package var stripPrefix: String?
    /// Set on the forwarded request (replacing what the client sent).
    package var setHeaders: [(name: String, value: String)]
    /// Removed from the forwarded request.
    package var removeHeaders: [String]
    /// Send the client's Host instead of the upstream's authority.
    package var preserveHost: Bool
    /// No response head within this time gives 504; a body that stops arriving for this long
    /// is cut off.
    package var timeoutMilliseconds: Int64

    package init(
        upstream: UpstreamURL,
        stripPrefix: String? = nil,
        setHeaders: [(name: String, value: String)] = [],
        removeHeaders: [String] = [],
        preserveHost: Bool = false,
        timeoutMilliseconds: Int64 = 30_000
    ) {
        self.upstream = upstream
        self.stripPrefix = stripPrefix
        self.setHeaders = setHeaders
        self.removeHeaders = removeHeaders
        self.preserveHost = preserveHost
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}

/// The request as the proxy sends it upstream, after the forwarding rules.
package struct ForwardedRequest: Sendable {
    package var upstream: UpstreamURL
    package var method: String
    /// Origin-form: the upstream's base path, the request's path (less any stripped prefix) as
    /// the client sent it, its query as sent.
    package var target: String
    package var headers: HeaderFields
    package var body: [UInt8]
    package var timeoutMilliseconds: Int64
    /// A WebSocket upgrade: `Upgrade` and `Connection` are sent, a `101` answers it, and the
    /// connection then carries the protocol both ways (`ForwardingRules.webSocketUpgrade`).
    package var upgrade: Bool = false
}

/// What the proxy did for one request, for the journal and the request log: filled in by the
/// transport as the exchange goes.
package final class ProxyReport: Sendable {
    package struct Result: Sendable {
        package var status: Int?
        package var milliseconds: Int64?
        package var error: String?
    }

    package let upstream: String
    /// Being recorded: the journal keeps its whole request body.
    package let recorded: Bool
    /// The result and the transcript behind one lock: a report is made for every forwarded
    /// request, and a lock is an allocation.
    private struct State {
        var result = Result()
        var stream: StreamTranscript?
    }

    private let state = Locked(State())

    package init(upstream: String, recorded: Bool = false) {
        self.upstream = upstream
        self.recorded = recorded
    }

    package var result: Result { state.withLock { $0.result } }

    /// For an answer that streams (an event stream, a WebSocket): what passes, as it passes.
    package var stream: StreamTranscript? {
        get { state.withLock { $0.stream } }
        set { state.withLock { $0.stream = newValue } }
    }

    package func record(status: Int?, milliseconds: Int64?, error: String? = nil) {
        state.withLock { $0.result = Result(status: status, milliseconds: milliseconds, error: error) }
    }
}
