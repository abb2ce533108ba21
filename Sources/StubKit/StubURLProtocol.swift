import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTP1
import StubEngine
import SystemSupport

/// Answers a `URLSession` from a stub engine without sockets: the same matching, near-miss
/// reports, templates, journal and state as the server. For unit tests of a networking layer.
///
///     let transport = StubURLProtocol.register(stubs)
///     let session = URLSession(configuration: transport.configuration)
///     let client = MyAPIClient(baseURL: transport.baseURL, session: session)
///
/// Each registration gets its own host (`e1.stubkit.invalid`), and requests are routed by host,
/// so parallel tests each reach their own engine (a header would not do: on Linux `canInit` sees
/// the request before the session adds its headers). The configuration lists this class in
/// `protocolClasses`: registering it globally does not reach ephemeral sessions on Linux. Delays
/// are timers; faults become the `URLError`s a real network gives; redirects are delivered as
/// plain responses.
public final class StubURLProtocol: URLProtocol {
    /// What a test needs to talk to registered stubs.
    public struct Transport: Sendable {
        /// `http://eN.stubkit.invalid`: point the client under test here.
        public let baseURL: URL
        /// What the transport answers from, and what it received.
        public let stubs: Stubs
        /// A fresh ephemeral configuration whose requests to `baseURL` the engine answers.
        public var configuration: URLSessionConfiguration {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = [StubURLProtocol.self]
            return configuration
        }
    }

    private static let engines = Locked<(byHost: [String: Stubs], next: Int)>(([:], 1))
    private let cancelled = Locked(false)
    /// A promised answer or a streamed body in progress, cancelled by `stopLoading`.
    private let inFlight = Locked<(pending: PendingResponse?, stream: BodyStream?)>((nil, nil))

    /// Registers stubs under a host of their own. It stays registered until `unregister(_:)`.
    public static func register(_ stubs: Stubs) -> Transport {
        let host = engines.withLock { state -> String in
            let host = "e\(state.next).stubkit.invalid"
            state.next += 1
            state.byHost[host] = stubs
            return host
        }
        return Transport(baseURL: URL(string: "http://\(host)")!, stubs: stubs)
    }

    public static func unregister(_ transport: Transport) {
        guard let host = transport.baseURL.host else { return }
        _ = engines.withLock { $0.byHost.removeValue(forKey: host) }
    }

    private static func engine(for url: URL?) -> Engine? {
        guard let host = url?.host?.lowercased() else { return nil }
        return engines.withLock { $0.byHost[host]?.engine }
    }

    override public class func canInit(with request: URLRequest) -> Bool {
        engine(for: request.url) != nil
    }

    override public class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override public func startLoading() {
        guard let url = request.url, let engine = Self.engine(for: url) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        let reply: Reply
        do {
            reply = engine.handle(try Self.httpRequest(from: request, url: url)).reply
        } catch {
            // What the server answers a target it cannot parse.
            reply = .now(.text(error.status, "\(HTTPStatus.reason(error.status)): \(error.reason)\n"))
        }
        // URLProtocol is not Sendable; the client tolerates calls from another thread, and
        // `cancelled` is the only state shared with stopLoading.
        let unchecked = UncheckedSendable(self)
        switch reply {
        case .now(let response):
            schedule(response, url: url)
        case .later(let pending):
            inFlight.withLock { $0.pending = pending }
            pending.whenComplete { response in unchecked.value.schedule(response, url: url) }
        }
    }

    override public func stopLoading() {
        cancelled.value = true
        let (pending, stream) = inFlight.withLock { ($0.pending, $0.stream) }
        pending?.cancel()
        stream?.cancel()
    }

    /// Delivers now, or after the response's delay (a timer, not a sleeping thread).
    private func schedule(_ response: OutgoingResponse, url: URL) {
        let unchecked = UncheckedSendable(self)
        let send: @Sendable () -> Void = {
            guard !unchecked.value.cancelled.value else { return }
            unchecked.value.deliver(response, url: url)
        }
        if response.delayMilliseconds > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(response.delayMilliseconds), execute: send)
        } else {
            send()
        }
    }

    private func deliver(_ response: OutgoingResponse, url: URL) {
        var stream: BodyStream?
        switch response.delivery {
        case .reset, .closeWithoutResponse:
            client?.urlProtocol(self, didFailWithError: URLError(.networkConnectionLost))
            return
        case .rawThenClose:
            client?.urlProtocol(self, didFailWithError: URLError(.cannotParseResponse))
            return
        case .hang:
            return // the session's timeout ends it, as it would on a real network
        case .stream(let s):
            stream = s
        case .normal, .dribble:
            break
        }
        let prepared = response.prepared
        var fields: [String: String] = [:]
        for field in prepared.headers {
            fields[field.name] = fields[field.name].map { "\($0), \(field.value)" } ?? field.value
        }
        if PreparedResponse.allowsBody(prepared.status) {
            if let stream { stream.length.map { fields["Content-Length"] = String($0) } } else { fields["Content-Length"] = String(prepared.body.count) }
        }
        guard let http = HTTPURLResponse(url: url, statusCode: prepared.status, httpVersion: "HTTP/1.1", headerFields: fields) else {
            client?.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
            return
        }
        client?.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
        if let stream, request.httpMethod != "HEAD" {
            forward(stream)
            return
        }
        stream?.cancel()
        if request.httpMethod != "HEAD", !prepared.body.isEmpty {
            client?.urlProtocol(self, didLoad: Data(prepared.body))
        }
        client?.urlProtocolDidFinishLoading(self)
    }

    /// A streamed body, piece by piece as the producer writes it.
    private func forward(_ stream: BodyStream) {
        inFlight.withLock { $0.stream = stream }
        let unchecked = UncheckedSendable(self)
        let queue = DispatchQueue(label: "stubkit.stream")
        stream.attach {
            queue.async {
                let me = unchecked.value
                guard !me.cancelled.value else { return }
                let batch = stream.take(unsent: 0)
                for piece in batch.pieces where !piece.isEmpty { me.client?.urlProtocol(me, didLoad: Data(piece)) }
                stream.drained(unsent: 0)
                if batch.aborted {
                    me.client?.urlProtocol(me, didFailWithError: URLError(.networkConnectionLost))
                } else if batch.finished {
                    me.client?.urlProtocolDidFinishLoading(me)
                }
            }
        }
    }

    /// The URLRequest as the HTTP server would have parsed it: the target goes through the
    /// server's own request-target parsing (`IncomingRequest.make`). Apple platforms deliver
    /// upload bodies as `httpBodyStream`, so both are read.
    static func httpRequest(from request: URLRequest, url: URL) throws(HTTPParseError) -> IncomingRequest {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let rawPath = components?.percentEncodedPath.isEmpty == false ? components!.percentEncodedPath : "/"
        let rawQuery = components?.percentEncodedQuery
        let target = rawQuery.map { "\(rawPath)?\($0)" } ?? rawPath
        var headers = HeaderFields()
        var authority = url.host ?? "localhost"
        if let port = url.port { authority += ":\(port)" }
        headers.add("Host", authority)
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers.add(name, value)
        }
        let body = bodyBytes(of: request)
        if !body.isEmpty, !headers.contains("Content-Length") { headers.add("Content-Length", String(body.count)) }
        return try IncomingRequest.make(method: request.httpMethod ?? "GET", target: target, headers: headers, body: body,
                                        peer: "URLProtocol", authority: authority)
    }

    static func bodyBytes(of request: URLRequest) -> [UInt8] {
        if let data = request.httpBody { return Array(data) }
        guard let stream = request.httpBodyStream else { return [] }
        var bytes: [UInt8] = []
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = stream.read(&buffer, maxLength: buffer.count)
            if n <= 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        return bytes
    }
}

struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
