import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTP1
import StubEngine
import SystemSupport

/// Forwards through the platform's URLSession: https upstreams where the server's own client
/// has no TLS (macOS). Built on Linux too, where the tests drive it over http. URLSession changes
/// messages on the way, and this transport undoes what can be undone (docs/proxy.md, "https through URLSession"):
/// - it decodes gzip, deflate and br bodies but keeps `Content-Encoding` and `Content-Length`:
///   both are dropped when the body was decoded, and the body goes out chunked;
/// - it folds repeated fields into one, `Set-Cookie` included: cookies are split again, at
///   commas that start a new `name=` (not the one inside an `Expires` date);
/// - it follows redirects, keeps cookies and caches: none of that is enabled;
/// - what cannot be undone stays documented: it adds `User-Agent`, `Accept-Language` and
///   `Accept-Encoding` when the client sent none, refuses a GET with a body (502 says so),
///   chooses `Host` itself, and the order of response fields is lost.
package final class URLSessionTransport: NSObject, UpstreamTransport, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `session` is set once in init; everything that changes is in `exchanges`.
    private var session: URLSession!
    private let exchanges = Locked<[Int: Exchange]>([:])
    /// Extra trust anchors (PEM certificates), evaluated where the platform lets a delegate
    /// decide server trust (Darwin).
    private let anchors: [Data]

    /// Codings the platform decodes on its own.
    #if canImport(Darwin)
    static let decodedCodings: Set<String> = ["gzip", "x-gzip", "deflate", "br"]
    #else
    static let decodedCodings: Set<String> = ["gzip", "x-gzip", "deflate", "br", "zstd"]
    #endif

    private final class Exchange: @unchecked Sendable {
        // @unchecked: touched from the session's delegate queue only (serial), after creation.
        let answer: PendingResponse
        let report: ProxyReport
        let upstream: UpstreamURL
        let started = DispatchTime.now()
        var stream: BodyStream?
        /// Set under the transport's lock: the head came, so the timeout no longer applies.
        var headArrived = false
        init(answer: PendingResponse, report: ProxyReport, upstream: UpstreamURL) {
            self.answer = answer
            self.report = report
            self.upstream = upstream
        }
    }

    /// `caFile`: PEM certificates to trust besides the system's (Darwin only; elsewhere the
    /// caller must not choose this transport for a CA file, see `ProxyTransports`).
    package init(caFile: String? = nil) throws {
        anchors = try caFile.map { try PEM.certificates(in: $0) } ?? []
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.httpMaximumConnectionsPerHost = 32
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    package func forward(_ request: ForwardedRequest, answer: PendingResponse, report: ProxyReport) {
        guard let url = URL(string: "\(request.upstream.scheme)://\(request.upstream.authority)\(request.target)")
        else {
            fail(
                answer,
                report,
                request.upstream,
                status: 502,
                reason: "the target \(request.target) is not a URL URLSession accepts"
            )
            return
        }
        if request.upgrade {
            fail(
                answer,
                report,
                request.upstream,
                status: 502,
                reason: "URLSession cannot carry a WebSocket upgrade (the server's own client can, with OpenSSL)"
            )
            return
        }
        if request.method == "GET" && !request.body.isEmpty {
            fail(
                answer,
                report,
                request.upstream,
                status: 502,
                reason:
                    """
                    URLSession cannot send a GET with a body (the server's own client can, for http upstreams \
                    and on Linux)
                    """
            )
            return
        }
        var outgoing = URLRequest(url: url, timeoutInterval: Double(request.timeoutMilliseconds) / 1000)
        outgoing.httpMethod = request.method
        for field in request.headers where !asciiCaseInsensitiveEquals(field.name, "Host") {
            outgoing.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if !request.body.isEmpty { outgoing.httpBody = Data(request.body) }
        let task = session.dataTask(with: outgoing)
        let exchange = Exchange(answer: answer, report: report, upstream: request.upstream)
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
        answer.onCancel { task.cancel() }
        task.resume()
        // URLSession on Linux times out after its configuration's interval, not the request's:
        // the rule's timeout for the head is kept here, the same on every platform.
        let id = task.taskIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(request.timeoutMilliseconds))) {
            [self] in
            let expired = exchanges.withLock { exchanges -> Exchange? in
                guard let waiting = exchanges[id], !waiting.headArrived else { return nil }
                exchanges[id] = nil
                return waiting
            }
            guard let waiting = expired else { return }
            task.cancel()
            fail(
                waiting.answer,
                waiting.report,
                waiting.upstream,
                status: 504,
                reason: "no response within \(request.timeoutMilliseconds) ms"
            )
        }
    }

    private func fail(
        _ answer: PendingResponse,
        _ report: ProxyReport,
        _ upstream: UpstreamURL,
        status: Int,
        reason: String
    ) {
        report.record(status: status, milliseconds: nil, error: reason)
        answer.complete(ForwardingRules.failure(status: status, upstream: upstream, reason: reason))
    }

    // MARK: URLSession's delegate

    package func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)  // a 3xx goes back to the client as it came
    }

    package func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let id = dataTask.taskIdentifier
        let arrived = exchanges.withLock { exchanges -> Exchange? in
            exchanges[id]?.headArrived = true
            return exchanges[id]
        }
        guard let exchange = arrived, let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        let milliseconds = Int64(
            (DispatchTime.now().uptimeNanoseconds - exchange.started.uptimeNanoseconds) / 1_000_000
        )
        exchange.report.record(status: http.statusCode, milliseconds: milliseconds)
        let (headers, decoded) = Self.headers(of: http)
        let isHead = dataTask.originalRequest?.httpMethod == "HEAD"
        var length: Int? = nil
        if isHead, !decoded, let declared = http.value(forHTTPHeaderField: "Content-Length") { length = Int(declared) }
        let prepared = ForwardingRules.response(
            status: http.statusCode,
            reason: "",
            headers: headers,
            bodyLength: length
        )
        if isHead || !PreparedResponse.allowsBody(http.statusCode) {
            exchange.answer.complete(OutgoingResponse(prepared))
        } else {
            let stream = BodyStream()
            stream.onWritable { dataTask.resume() }
            stream.onCancel { dataTask.cancel() }
            exchange.stream = stream
            exchange.answer.complete(OutgoingResponse(prepared, delivery: .stream(stream)))
        }
        completionHandler(.allow)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let stream = exchanges.withLock({ $0[dataTask.taskIdentifier] })?.stream else { return }
        if !stream.write(Array(data)), !stream.isCancelled { dataTask.suspend() }
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let stream = exchange.stream {
            if error == nil { stream.finish() } else { stream.abort() }
            return
        }
        let timedOut = (error as? URLError)?.code == .timedOut
        let reason = error.map { "\($0.localizedDescription)" } ?? "no response"
        fail(exchange.answer, exchange.report, exchange.upstream, status: timedOut ? 504 : 502, reason: reason)
    }

    package func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(Security)
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
            !anchors.isEmpty, let trust = challenge.protectionSpace.serverTrust
        {
            if TrustEvaluation.evaluate(trust, anchors: anchors) {
                completionHandler(.useCredential, URLCredential(trust: trust))
            } else {
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
            return
        }
        #endif
        completionHandler(.performDefaultHandling, nil)
    }

    // MARK: undoing URLSession's changes

    /// The response's fields as they can best be rebuilt, and whether the body was decoded.
    static func headers(of response: HTTPURLResponse) -> (HeaderFields, decoded: Bool) {
        var fields = response.allHeaderFields.compactMap { key, value -> (String, String)? in
            guard let name = key as? String else { return nil }
            return (name, "\(value)")
        }
        fields.sort { $0.0.lowercased() < $1.0.lowercased() }
        let decoded = fields.contains { name, value in
            asciiCaseInsensitiveEquals(name, "Content-Encoding")
                && value.split(separator: ",").allSatisfy {
                    decodedCodings.contains($0.trimmingCharacters(in: .whitespaces).lowercased())
                }
        }
        var headers = HeaderFields()
        for (name, value) in fields {
            if decoded
                && (asciiCaseInsensitiveEquals(name, "Content-Encoding")
                    || asciiCaseInsensitiveEquals(name, "Content-Length"))
            {
                continue
            }
            if asciiCaseInsensitiveEquals(name, "Set-Cookie") {
                for cookie in splitCookies(value) { headers.add(name, cookie) }
            } else {
                headers.add(name, value)
            }
        }
        return (headers, decoded)
    }

    /// `a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/, b=2` → the two cookies: a comma
    /// starts a new cookie when what follows it is `name=` and it does not close a weekday of
    /// an `Expires` attribute.
    static func splitCookies(_ folded: String) -> [String] {
        var cookies: [String] = []
        var current = ""
        let pieces = folded.split(separator: ",", omittingEmptySubsequences: false)
        for (index, piece) in pieces.enumerated() {
            if index == 0 {
                current = String(piece)
                continue
            }
            let startsCookie = piece.drop { $0 == " " }.prefix { $0 != ";" }.contains("=")
            let closesWeekday = endsInExpiresWeekday(current)
            if startsCookie && !closesWeekday {
                cookies.append(current.trimmingCharacters(in: .whitespaces))
                current = String(piece)
            } else {
                current += "," + piece
            }
        }
        cookies.append(current.trimmingCharacters(in: .whitespaces))
        return cookies.filter { !$0.isEmpty }
    }

    /// Whether `text` ends with `Expires=Wed` (any case, spaces allowed around `=`).
    static func endsInExpiresWeekday(_ text: String) -> Bool {
        var rest = Substring(text)
        let letters = rest.reversed().prefix { $0.isLetter }.count
        guard (3...9).contains(letters) else { return false }
        rest = rest.dropLast(letters)
        while rest.last == " " { rest = rest.dropLast() }
        guard rest.last == "=" else { return false }
        rest = rest.dropLast()
        while rest.last == " " { rest = rest.dropLast() }
        return rest.lowercased().hasSuffix("expires")
    }
}
