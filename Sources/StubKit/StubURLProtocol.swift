import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTP1
import StubEngine
import SystemSupport

/// Answers a `URLSession` from stubs without sockets: the same matching, near-miss reports,
/// templates, journal and state as the server. For unit tests of a networking layer.
///
///     let transport = StubURLProtocol.register(stubs)
///     defer { StubURLProtocol.unregister(transport) }
///     let session = URLSession(configuration: transport.configuration)
///     let client = MyAPIClient(baseURL: transport.baseURL, session: session)
///
/// Each registration gets its own host (`e1.stubkit.invalid`), and requests are routed by host,
/// so parallel tests each reach their own stubs (a header would not do: on Linux `canInit` sees
/// the request before the session adds its headers). The configuration lists this class in
/// `protocolClasses`: registering it globally does not reach ephemeral sessions on Linux.
///
/// A network's behaviour is imitated, so a client sees what it would see over a socket: delays
/// and dribbled bodies are timers; a fault fails the task with the `URLError` code the socket
/// transport gives on this platform (`ResponseDefinition.Fault.urlErrorCode`); a request that
/// gets nothing (`hang`, or a delay longer than the timeout) fails with `.timedOut` after the
/// request's or the session's timeout (`RequestTimeout`); redirects are delivered as plain 3xx
/// responses for the client to see.
public final class StubURLProtocol: URLProtocol {
    /// What a test needs to talk to registered stubs.
    public struct Transport: Sendable {
        /// `http://eN.stubkit.invalid`: point the client under test here.
        public let baseURL: URL
        /// What the transport answers from, and what it received.
        public let stubs: Stubs
        /// The registration's cookie store, the one `configuration` is made with.
        let cookies: UncheckedSendable<HTTPCookieStorage>
        /// A fresh ephemeral configuration whose requests to `baseURL` the stubs answer. Its
        /// cookie store is the registration's: sessions made from it share their cookies, as
        /// sessions sharing one configuration's store do.
        public var configuration: URLSessionConfiguration {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = [StubURLProtocol.self]
            configuration.httpCookieStorage = cookies.value
            return configuration
        }
    }

    private struct Registration {
        let stubs: Stubs
        let cookies: UncheckedSendable<HTTPCookieStorage>
    }

    private static let registry = Locked<(byHost: [String: Registration], next: Int)>(([:], 1))
    /// Everything that changes while loading, under one lock: URLProtocol calls come from the
    /// session's threads, timers and the engine's.
    private let state = Locked(LoadingState())
    private let queue = DispatchQueue(label: "stubkit.urlprotocol")

    private struct LoadingState {
        /// Set once the client was told the end (finished, failed) or `stopLoading` came.
        var done = false
        /// When the client last heard something: the idle timeout counts from here.
        var lastActivity = DispatchTime.now()
        var timeout: TimeInterval = RequestTimeout.defaultInterval
        /// A promised answer or a streamed body in progress, cancelled by `stopLoading`.
        var pending: PendingResponse?
        var stream: BodyStream?
        /// The body so far, where it must reach the client in one piece (see `load`).
        var held = Data()
        /// The answer's content coding is undone, so its body is held until it ends.
        var decodes = false
        /// Where the answer's cookies go: the session's store (or the registration's).
        var cookieStore: UncheckedSendable<HTTPCookieStorage>?
        /// Told whether a delayed or dribbled answer reached the client (the journal's).
        var report: DeliveryReport?
    }

    /// Registers stubs under a host of their own. It stays registered until `unregister(_:)`.
    public static func register(_ stubs: Stubs) -> Transport {
        // An ephemeral configuration's store: in memory, and this registration's alone.
        let cookies = UncheckedSendable(URLSessionConfiguration.ephemeral.httpCookieStorage ?? HTTPCookieStorage.shared)
        let host = registry.withLock { state -> String in
            let host = "e\(state.next).stubkit.invalid"
            state.next += 1
            state.byHost[host] = Registration(stubs: stubs, cookies: cookies)
            return host
        }
        return Transport(baseURL: URL(string: "http://\(host)")!, stubs: stubs, cookies: cookies)
    }

    public static func unregister(_ transport: Transport) {
        guard let host = transport.baseURL.host else { return }
        _ = registry.withLock { $0.byHost.removeValue(forKey: host) }
    }

    private static func registration(for url: URL?) -> Registration? {
        guard let host = url?.host?.lowercased() else { return nil }
        return registry.withLock { $0.byHost[host] }
    }

    override public class func canInit(with request: URLRequest) -> Bool {
        registration(for: request.url) != nil
    }

    override public class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override public func startLoading() {
        guard let url = request.url, let registration = Self.registration(for: url) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        // A WebSocket task (or a task for a ws:// URL) wants a socket this transport cannot give:
        // say so now, rather than answer its handshake-less GET with the stub's 426.
        if let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss" {
            fail(.unsupportedURL, because: Self.webSocketRefusal)
            return
        }
        let timeout = RequestTimeout.interval(for: request, task: task)
        state.withLock {
            $0.timeout = timeout
            $0.lastActivity = .now()
        }
        watchForTimeout(after: timeout)
        let me = unchecked
        URLSessionImitation.readBody(of: request, task: task) { body in
            switch body {
            case .success(let body): me.value.answer(url: url, body: body, registration: registration)
            case .failure(let error): me.value.fail(error.code)
            }
        }
    }

    /// Asks the engine, with the request as it would have gone out over a socket.
    private func answer(url: URL, body: URLSessionImitation.UploadBody, registration: Registration) {
        let session = TaskReflection.session(of: task)
        let store = URLSessionImitation.cookieStore(session: session, registration: registration.cookies.value)
        state.withLock { $0.cookieStore = store.map(UncheckedSendable.init) }
        let reply: Reply
        do {
            let incoming = try Self.incomingRequest(
                from: request,
                url: url,
                body: body,
                session: session,
                cookies: store
            )
            reply = registration.stubs.engine.handle(incoming).reply
        } catch {
            // What the server answers a target it cannot parse.
            reply = .now(.text(error.status, "\(HTTPStatus.reason(error.status)): \(error.reason)\n"))
        }
        switch reply {
        case .now(let response):
            schedule(response, url: url)
        case .later(let pending):
            state.withLock { $0.pending = pending }
            let me = unchecked
            pending.whenComplete { response in me.value.schedule(response, url: url) }
        }
    }

    override public func stopLoading() {
        let (pending, stream, report) = state.withLock { s in
            s.done = true
            return (s.pending, s.stream, s.report)
        }
        pending?.cancel()
        stream?.cancel()
        // The task ended (cancelled, timed out) before the answer was whole: abandoned. Once
        // finished, the report has already said so and this does nothing.
        report?.end(.abandoned)
    }

    // MARK: Talking to the client, and only until it was told the end

    /// URLProtocol is not Sendable; its client tolerates calls from any thread, and everything
    /// this class changes after `startLoading` is in `state`, under its lock.
    private var unchecked: UncheckedSendable<StubURLProtocol> { UncheckedSendable(self) }

    /// Runs `tell` with the client unless loading is over; `ends` makes this the last call.
    private func notify(ending ends: Bool = false, _ tell: (any URLProtocolClient) -> Void) {
        let proceed = state.withLock { s -> Bool in
            guard !s.done else { return false }
            s.done = ends
            s.lastActivity = .now()
            return true
        }
        guard proceed, let client else { return }
        tell(client)
    }

    /// Passes body bytes on. swift-corelibs-foundation keeps only the last piece a custom
    /// protocol loads for completion handlers and `data(for:)` (it stores rather than appends),
    /// so there the body is held and handed over whole when it ends; the timing (a dribble's
    /// pauses, the idle timeout) is unchanged. Apple's URLSession appends, so pieces go as they come.
    private func load(_ data: Data) {
        let passedOn = state.withLock { s -> Bool in
            guard !s.done else { return true }
            #if !canImport(FoundationNetworking)
            if !s.decodes { return false }
            #endif
            s.held.append(data)
            s.lastActivity = .now()
            return true
        }
        if !passedOn { notify { $0.urlProtocol(self, didLoad: data) } }
    }

    /// Passes a piece on at once (an event stream's), whatever the platform.
    private func loadNow(_ data: Data) {
        let open = state.withLock { s -> Bool in
            s.lastActivity = .now()
            return !s.done
        }
        if open { notify { $0.urlProtocol(self, didLoad: data) } }
    }

    /// The end of the body: what was held (decoded, when its coding is undone), then the end.
    private func finish(_ fields: HeaderFields) {
        let (held, decodes) = state.withLock { s -> (Data, Bool) in
            defer { s.held = Data() }
            return (s.held, s.decodes)
        }
        var body = held
        if decodes, !held.isEmpty {
            guard let decoded = URLSessionImitation.decoded(Array(held), fields) else {
                return fail(URLSessionImitation.Platform.undecodableBody)
            }
            body = Data(decoded)
        }
        if !body.isEmpty { notify { $0.urlProtocol(self, didLoad: body) } }
        state.withLock { $0.report }?.end(.delivered)
        notify(ending: true) { $0.urlProtocolDidFinishLoading(self) }
    }

    /// What a client is told when a WebSocket stub answers through this transport.
    static let webSocketRefusal =
        "StubURLProtocol cannot carry a WebSocket: a URLProtocol answers requests and cannot hand a task a "
        + "socket. Serve WebSocket stubs with LocalStubServer and connect URLSessionWebSocketTask to its URL."

    private func fail(_ code: URLError.Code, because reason: String) {
        let info: [String: Any] = [NSURLErrorFailingURLErrorKey: request.url as Any, NSLocalizedDescriptionKey: reason]
        notify(ending: true) { $0.urlProtocol(self, didFailWithError: URLError(code, userInfo: info)) }
    }

    private func fail(_ code: URLError.Code) {
        // A timeout is the client giving up; any other failure is the answer (a fault) itself.
        state.withLock { $0.report }?.end(code == .timedOut ? .abandoned : .delivered)
        notify(ending: true) {
            $0.urlProtocol(
                self,
                didFailWithError: URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: request.url as Any])
            )
        }
    }

    /// URLSession's idle timeout, which corelibs-foundation does not apply to custom protocols:
    /// checked when it could have run out, and again from the last activity until loading ends.
    private func watchForTimeout(after interval: TimeInterval) {
        let me = unchecked
        queue.asyncAfter(deadline: .now() + interval) {
            let (done, idle, timeout) = me.value.state.withLock { s in
                (
                    s.done, Double(DispatchTime.now().uptimeNanoseconds - s.lastActivity.uptimeNanoseconds) / 1e9,
                    s.timeout
                )
            }
            guard !done else { return }
            if idle >= timeout { me.value.fail(.timedOut) } else { me.value.watchForTimeout(after: timeout - idle) }
        }
    }

    // MARK: Delivering the answer

    /// Delivers now, or after the response's delay (a timer, not a sleeping thread).
    private func schedule(_ response: OutgoingResponse, url: URL) {
        if let report = response.deliveryReport { state.withLock { $0.report = report } }
        if response.delayMilliseconds > 0 {
            let me = unchecked
            queue.asyncAfter(deadline: .now() + .milliseconds(response.delayMilliseconds)) {
                me.value.deliver(response, url: url)
            }
        } else {
            deliver(response, url: url)
        }
    }

    private func deliver(_ response: OutgoingResponse, url: URL) {
        var stream: BodyStream?
        switch response.delivery {
        case .hang:
            return  // the timeout ends it, as on a real network
        case .reset, .closeWithoutResponse, .rawThenClose:
            let fault = response.delivery.faultName.flatMap(ResponseDefinition.Fault.init(rawValue:))
            fail(fault?.urlErrorCode ?? .networkConnectionLost)
            return
        case .stream(let s):
            stream = s
        case .upgrade(let upgrade):
            // A URLProtocol answers requests; it cannot hand a task a socket. Say so at once
            // rather than leave the client waiting for frames that cannot come.
            upgrade.output.cancel()
            fail(.unsupportedURL, because: Self.webSocketRefusal)
            return
        case .tunnel:
            // CONNECT needs a socket to tunnel; a URLProtocol has none (and never sends CONNECT).
            fail(.unsupportedURL, because: "CONNECT tunnels need the socket transport (LocalStubServer)")
            return
        case .normal, .dribble:
            break
        }
        let prepared = response.prepared
        var fields: [String: String] = [:]
        for field in prepared.headers {
            fields[field.name] = fields[field.name].map { "\($0), \(field.value)" } ?? field.value
        }
        if PreparedResponse.allowsBody(prepared.status) {
            if let stream {
                stream.length.map { fields["Content-Length"] = String($0) }
            } else {
                fields["Content-Length"] = String(prepared.body.count)
            }
        }
        guard
            let http = HTTPURLResponse(
                url: url,
                statusCode: prepared.status,
                httpVersion: "HTTP/1.1",
                headerFields: fields
            )
        else {
            fail(.badServerResponse)
            return
        }
        let store = state.withLock { s -> HTTPCookieStorage? in
            s.decodes = URLSessionImitation.needsDecoding(prepared.headers)
            return s.cookieStore?.value
        }
        URLSessionImitation.keepCookies(from: prepared.headers, url: url, store: store)
        notify { $0.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed) }
        let isHead = request.httpMethod == "HEAD"
        if let stream, !isHead {
            forward(stream, fields: prepared.headers)
            return
        }
        stream?.cancel()
        let body = isHead ? [] : prepared.body
        if case .dribble(let chunks, let milliseconds) = response.delivery, body.count > 1, chunks > 1 {
            dribble(body, pieces: chunks, over: milliseconds, fields: prepared.headers)
        } else {
            if !body.isEmpty { load(Data(body)) }
            finish(prepared.headers)
        }
    }

    /// The body in `pieces` parts spread evenly over the time, the first at once: as the server
    /// sends it (each part resets the idle timeout, as bytes on a socket would).
    private func dribble(_ body: [UInt8], pieces: Int, over milliseconds: Int, fields: HeaderFields) {
        let count = min(pieces, body.count)
        let size = (body.count + count - 1) / count
        let parts = stride(from: 0, to: body.count, by: size).map { Data(body[$0..<min($0 + size, body.count)]) }
        let gap = parts.count > 1 ? Double(milliseconds) / Double(parts.count - 1) : 0
        let me = unchecked
        for (i, part) in parts.enumerated() {
            queue.asyncAfter(deadline: .now() + gap * Double(i) / 1000) {
                me.value.load(part)
                if i == parts.count - 1 { me.value.finish(fields) }
            }
        }
    }

    /// A streamed body, piece by piece as the producer writes it.
    private func forward(_ stream: BodyStream, fields: HeaderFields) {
        state.withLock { $0.stream = stream }
        let me = unchecked
        let queue = self.queue
        stream.attach {
            queue.async {
                let batch = stream.take(unsent: 0)
                for piece in batch.pieces where !piece.isEmpty {
                    // Server-sent events go to the client as they come, each its own chunk at
                    // its time, on every platform: a stream that never ends cannot be held.
                    if stream.isLongLived { me.value.loadNow(Data(piece)) } else { me.value.load(Data(piece)) }
                }
                stream.drained(unsent: 0)
                if batch.aborted {
                    me.value.fail(.networkConnectionLost)
                } else if batch.finished {
                    me.value.finish(fields)
                }
            }
        }
    }

    // MARK: The request as the server would see it

    /// The URLRequest as the HTTP server would have parsed it: the fields and body URLSession
    /// would have sent (`URLSessionImitation`), the target through the server's own
    /// request-target parsing (`IncomingRequest.make`).
    static func incomingRequest(
        from request: URLRequest,
        url: URL,
        body: URLSessionImitation.UploadBody,
        session: URLSession?,
        cookies: HTTPCookieStorage?
    ) throws(HTTPParseError) -> IncomingRequest {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let rawPath = components?.percentEncodedPath.isEmpty == false ? components!.percentEncodedPath : "/"
        let rawQuery = components?.percentEncodedQuery
        let target = rawQuery.map { "\(rawPath)?\($0)" } ?? rawPath
        var authority = url.host ?? "localhost"
        if let port = url.port { authority += ":\(port)" }
        var headers = URLSessionImitation.headers(for: request, authority: authority, session: session, body: body)
        if let cookie = URLSessionImitation.cookieField(for: request, url: url, store: cookies) {
            headers.add("Cookie", cookie)
        }
        return try IncomingRequest.make(
            method: request.httpMethod ?? "GET",
            target: target,
            headers: headers,
            body: body.bytes,
            peer: "URLProtocol",
            authority: authority
        )
    }
}

struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
