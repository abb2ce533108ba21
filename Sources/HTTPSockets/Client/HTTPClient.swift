import Dispatch
import HTTP1
import SystemSupport

/// Where an outgoing request goes.
package struct ClientEndpoint: Hashable, Sendable, CustomStringConvertible {
    package var host: String
    package var port: Int
    /// Over TLS (an https upstream): the session verifies the server as `host`.
    package var tls: Bool
    package init(host: String, port: Int, tls: Bool = false) {
        self.host = host
        self.port = port
        self.tls = tls
    }
    package var description: String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// An outgoing request: sent as given (the caller decides every header; the client adds only
/// the framing its body needs).
package struct ClientRequest: Sendable {
    package var method: String
    package var target: String
    package var headers: HeaderFields
    package var body: [UInt8]
    /// The request asks to switch protocols (a WebSocket upgrade, its `Upgrade` and
    /// `Connection` fields set by the caller): a `101` answers it, and the connection then
    /// carries the new protocol's bytes both ways (`ClientResponse.Body.upgraded`).
    package var upgrade: Bool
    package init(method: String, target: String, headers: HeaderFields, body: [UInt8] = [], upgrade: Bool = false) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.upgrade = upgrade
    }
}

/// An upstream's answer: its head as received, and its body.
package struct ClientResponse: Sendable {
    package enum Body: Sendable {
        /// None (HEAD, 204, 304, 1xx).
        case none
        /// All of it arrived with the head.
        case complete([UInt8])
        /// It is still arriving: pieces as they come, with back-pressure.
        case stream(BodyStream)
        /// `101 Switching Protocols` to an upgrade request: the upstream's connection, seen as
        /// the upgrade's side sees a client (`received` gets the upstream's bytes, `output`
        /// goes to it). Cancelled output: the upstream closed.
        case upgraded(ConnectionUpgrade)
    }

    package var head: ResponseHead
    package var body: Body
    /// From sending the request to receiving the head.
    package var milliseconds: Int64
}

package enum ClientFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection: refused, unreachable, the name does not resolve.
    case connect(String)
    /// No response head within the timeout.
    case timeout(Int64)
    /// The upstream closed or sent something that is not an HTTP/1.1 response.
    case response(String)

    package var description: String {
        switch self {
        case .connect(let reason): "cannot connect: \(reason)"
        case .timeout(let ms): "no response within \(ms) ms"
        case .response(let reason): reason
        }
    }
}

/// One exchange in flight; cancelling it closes its upstream connection (the client that
/// wanted the answer has gone).
package final class ClientTask: Sendable {
    private let state = Locked<(cancelled: Bool, onCancel: (@Sendable () -> Void)?)>((false, nil))
    package init() {}
    package var isCancelled: Bool { state.withLock { $0.cancelled } }
    package func cancel() {
        let handler = state.withLock { s -> (@Sendable () -> Void)? in
            guard !s.cancelled else { return nil }
            s.cancelled = true
            defer { s.onCancel = nil }
            return s.onCancel
        }
        handler?()
    }
    func whenCancelled(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if !s.cancelled { s.onCancel = handler }
            return s.cancelled
        }
        if now { handler() }
    }
    func done() { state.withLock { $0.onCancel = nil } }
}

/// An HTTP/1.1 client on the server's own event loops (for the proxy): non-blocking connects,
/// requests written and responses parsed (`ResponseParser`) on the loop, bodies streamed to the
/// caller with back-pressure (reading the upstream pauses while the client is slow), and a
/// bounded pool of idle keep-alive connections per upstream on each loop. Names resolve off the
/// loops (and are cached for half a minute); numeric addresses connect at once.
package final class HTTPClient: Sendable {
    private let server: HTTP1Server
    package let maxIdlePerEndpoint: Int
    /// For https endpoints (see `TLSTrust`).
    package let trust: TLSTrust
    private let names = Locked<[String: (addresses: [SocketAddress], until: Int64)]>([:])
    private let next = Locked(0)
    /// Name to addresses, off the loops (`getaddrinfo`; tests give their own).
    private let resolve: @Sendable (String, Int) -> Result<[SocketAddress], SocketError>

    package convenience init(server: HTTP1Server, trust: TLSTrust = TLSTrust(), maxIdlePerEndpoint: Int = 32) {
        self.init(server: server, trust: trust, maxIdlePerEndpoint: maxIdlePerEndpoint, resolve: ClientSockets.resolve)
    }

    init(
        server: HTTP1Server,
        trust: TLSTrust = TLSTrust(),
        maxIdlePerEndpoint: Int = 32,
        resolve: @escaping @Sendable (String, Int) -> Result<[SocketAddress], SocketError>
    ) {
        self.server = server
        self.trust = trust
        self.maxIdlePerEndpoint = maxIdlePerEndpoint
        self.resolve = resolve
    }

    /// Sends `request`; `completion` is called once, on an event loop, with the response head
    /// (the body then streams) or why there is none.
    @discardableResult
    package func send(
        _ request: ClientRequest,
        to endpoint: ClientEndpoint,
        timeoutMilliseconds: Int64,
        completion: @escaping @Sendable (Result<ClientResponse, ClientFailure>) -> Void
    ) -> ClientTask {
        let task = ClientTask()
        let exchange = UpstreamExchange(
            request: request,
            endpoint: endpoint,
            timeoutMilliseconds: timeoutMilliseconds,
            completion: completion,
            task: task,
            client: self
        )
        guard let loop = pickLoop() else {
            completion(.failure(.connect("the server is not running")))
            return task
        }
        if endpoint.tls, case .failure(let failure) = trust.context() {
            completion(.failure(failure))
            return task
        }
        // The common case (a proxied request, on its loop, to an upstream with a pooled
        // connection) needs no address: parsing even a numeric one (getaddrinfo) showed in
        // the proxy's profile.
        if loop.threadID == Posix.currentThreadID(), loop.startedOnIdleUpstream(exchange) { return task }
        if let address = ClientSockets.numeric(host: endpoint.host, port: endpoint.port) {
            run(on: loop) { loop.startExchange(exchange, address: address) }
        } else if let cached = cachedAddresses(endpoint) {
            exchange.setUntried(cached.dropFirst())
            run(on: loop) { loop.startExchange(exchange, address: cached[0]) }
        } else {
            DispatchQueue.global().async { [self] in
                switch resolve(endpoint.host, endpoint.port) {
                case .success(let addresses) where !addresses.isEmpty:
                    let expiry = Posix.monotonicMilliseconds() + 30_000
                    names.withLock { $0[endpoint.host] = (addresses, expiry) }
                    exchange.setUntried(addresses.dropFirst())
                    loop.mailbox.post(.task { loop.startExchange(exchange, address: addresses[0]) })
                case .success:
                    completion(.failure(.connect("\(endpoint.host): no address")))
                case .failure(let error):
                    completion(.failure(.connect("\(error)")))
                }
            }
        }
        return task
    }

    /// The loop the caller runs on (a handler proxying a request), else the next in turn.
    private func pickLoop() -> EventLoop? {
        let loops = server.eventLoops
        guard !loops.isEmpty else { return nil }
        let me = Posix.currentThreadID()
        if let mine = loops.first(where: { $0.threadID == me }) { return mine }
        let n = next.withLock { n -> Int in
            defer { n &+= 1 }
            return n
        }
        return loops[n % loops.count]
    }

    private func run(on loop: EventLoop, _ work: @escaping @Sendable () -> Void) {
        if loop.threadID == Posix.currentThreadID() { work() } else { loop.mailbox.post(.task(work)) }
    }

    private func cachedAddresses(_ endpoint: ClientEndpoint) -> [SocketAddress]? {
        names.withLock { cache in
            guard let entry = cache[endpoint.host], entry.until > Posix.monotonicMilliseconds(),
                !entry.addresses.isEmpty
            else { return nil }
            return entry.addresses.map { address in
                var address = address
                address.setPort(endpoint.port)
                return address
            }
        }
    }
}

/// One request on its way: what to send, where, and whom to tell.
final class UpstreamExchange: Sendable {
    let request: ClientRequest
    let endpoint: ClientEndpoint
    let timeoutMilliseconds: Int64
    let completion: @Sendable (Result<ClientResponse, ClientFailure>) -> Void
    let task: ClientTask
    let client: HTTPClient
    /// Whether the completion has been called (it is called once), and the name's other
    /// addresses, not tried yet: a refused connection tries the next (a name such as localhost
    /// may resolve to ::1 first while the upstream listens on 127.0.0.1 only). One lock for both:
    /// each lock is an allocation per proxied request.
    private struct State {
        var answered = false
        var untried: [SocketAddress] = []
    }
    private let state = Locked(State())
    /// A request that may be sent again when a reused connection turns out closed.
    var isIdempotent: Bool { ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"].contains(request.method) }

    init(
        request: ClientRequest,
        endpoint: ClientEndpoint,
        timeoutMilliseconds: Int64,
        completion: @escaping @Sendable (Result<ClientResponse, ClientFailure>) -> Void,
        task: ClientTask,
        client: HTTPClient
    ) {
        self.request = request
        self.endpoint = endpoint
        self.timeoutMilliseconds = timeoutMilliseconds
        self.completion = completion
        self.task = task
        self.client = client
    }

    func setUntried(_ addresses: ArraySlice<SocketAddress>) {
        state.withLock { $0.untried = Array(addresses) }
    }

    /// The next address to try after a refused connection, if the name had another.
    func nextAddress() -> SocketAddress? {
        state.withLock { $0.untried.isEmpty ? nil : $0.untried.removeFirst() }
    }

    func answer(_ result: Result<ClientResponse, ClientFailure>) {
        let first = state.withLock { s -> Bool in
            defer { s.answered = true }
            return !s.answered
        }
        if first { completion(result) }
    }
}
