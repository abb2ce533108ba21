import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTP1
import SystemSupport

/// What URLSession does over a socket and leaves undone for a custom URLProtocol, done by
/// `StubURLProtocol` so that the stubs, the journal and the client see the same through both
/// transports (docs/testing.md, "The same behaviour through both transports"):
/// - the upload body, wherever the task keeps it (data, file, stream, or the delegate's stream);
/// - the header fields the HTTP layer adds when the request has none: `Accept`,
///   `Accept-Encoding`, `User-Agent`, `Accept-Language`, `Connection`, `Content-Length` (a
///   streamed body goes chunked instead), a POST body's form `Content-Type`, and the
///   session's `httpAdditionalHeaders`;
/// - cookies: `Set-Cookie` kept in the session's cookie store, and sent back as `Cookie`;
/// - content codings: a gzip or deflate body arrives decoded, its fields as sent.
enum URLSessionImitation {
    /// An upload body and how it goes out.
    enum UploadBody {
        case none
        /// Data or a file: the length is known, so it goes with `Content-Length`.
        case sized([UInt8])
        /// A stream: its length is unknown when it starts, so it goes chunked.
        case streamed([UInt8])

        var bytes: [UInt8] {
            switch self {
            case .none: []
            case .sized(let bytes), .streamed(let bytes): bytes
            }
        }
    }

    /// The body `request` sends through `task`; the delegate's stream for a streamed upload
    /// arrives later, hence the callback.
    static func readBody(
        of request: URLRequest,
        task: URLSessionTask?,
        then: @escaping @Sendable (Result<UploadBody, URLError>) -> Void
    ) {
        if let data = request.httpBody, !data.isEmpty { return then(.success(.sized(Array(data)))) }
        if let stream = request.httpBodyStream { return then(.success(streamedBody(stream))) }
        switch TaskReflection.knownBody(of: task) {
        case .data(let data)?:
            then(.success(.sized(Array(data))))
        case .file(let url)?:
            guard let data = try? Data(contentsOf: url) else { return then(.failure(URLError(.fileDoesNotExist))) }
            then(.success(.sized(Array(data))))
        case .stream(let stream)?:
            then(.success(.streamed(read(stream))))
        case .empty?:
            then(.success(.none))
        case nil:
            askDelegate(task, then: then)
        }
    }

    /// `uploadTask(withStreamedRequest:)`: the body comes from the delegate, as URLSession asks
    /// it on Linux. (On Apple platforms URLSession asks it itself and hands the protocol the
    /// stream as `httpBodyStream`.)
    private static func askDelegate(
        _ task: URLSessionTask?,
        then: @escaping @Sendable (Result<UploadBody, URLError>) -> Void
    ) {
        #if canImport(FoundationNetworking)
        guard let task, task is URLSessionUploadTask, let session = TaskReflection.session(of: task),
            let delegate = (task.delegate ?? session.delegate) as? any URLSessionTaskDelegate
        else { return then(.success(.none)) }
        delegate.urlSession(session, task: task) { stream in
            then(.success(stream.map { .streamed(read($0)) } ?? .none))
        }
        #else
        then(.success(.none))
        #endif
    }

    /// Apple platforms hand every upload body to a protocol as a stream, data and files too,
    /// so there the length counts as known; swift-corelibs-foundation sets it only for streams.
    private static func streamedBody(_ stream: InputStream) -> UploadBody {
        #if canImport(FoundationNetworking)
        .streamed(read(stream))
        #else
        .sized(read(stream))
        #endif
    }

    static func read(_ stream: InputStream) -> [UInt8] {
        var bytes: [UInt8] = []
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }

    // MARK: Header fields

    /// The fields the request goes out with over a socket, in the order URLSession writes them.
    static func headers(
        for request: URLRequest,
        authority: String,
        session: URLSession?,
        body: UploadBody
    ) -> HeaderFields {
        var own: [(name: String, value: String)] = []
        func set(_ name: String, _ value: String) {
            own.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            own.append((name, value))
        }
        for (name, value) in session?.configuration.httpAdditionalHeaders ?? [:] {
            if let name = name as? String, let value = value as? String { set(name, value) }
        }
        for (name, value) in request.allHTTPHeaderFields ?? [:] { set(name, value) }
        func has(_ name: String) -> Bool { own.contains { $0.name.caseInsensitiveCompare(name) == .orderedSame } }
        var headers = HeaderFields()
        headers.add("Host", authority)
        if !has("Accept") { headers.add("Accept", "*/*") }
        if !has("Accept-Encoding") { headers.add("Accept-Encoding", Platform.acceptEncoding) }
        if case .streamed = body, !has("Content-Length") { headers.add("Transfer-Encoding", "chunked") }
        for field in own { headers.add(field.name, field.value) }
        if !has("Connection") { headers.add("Connection", "keep-alive") }
        if !has("User-Agent") { headers.add("User-Agent", Platform.userAgent) }
        if !has("Accept-Language"), let language = Platform.acceptLanguage { headers.add("Accept-Language", language) }
        let method = request.httpMethod ?? "GET"
        if method == "POST", !body.bytes.isEmpty, !has("Content-Type") {
            headers.add("Content-Type", "application/x-www-form-urlencoded")
        }
        switch body {
        case .sized(let bytes) where !has("Content-Length"):
            headers.add("Content-Length", String(bytes.count))
        case .none where method != "GET" && method != "HEAD" && !has("Content-Length"):
            headers.add("Content-Length", "0")
        default:
            break
        }
        return headers
    }

    /// What this platform's URLSession writes itself.
    enum Platform {
        #if canImport(FoundationNetworking)
        /// libcurl's own description: `libcurl/7.88.1 OpenSSL/3.0.11 zlib/1.2.13 brotli/1.0.9 zstd/1.5.4 ...`.
        private static let curl = ProcessFacts.loadedLibraryString("curl_version") ?? ""

        /// A body that does not decode: libcurl's error, which swift-corelibs-foundation reports
        /// as unknown.
        static let undecodableBody = URLError.Code.unknown

        /// libcurl asks for every coding it was built to decode, in this order.
        static let acceptEncoding: String = {
            var codings = ["deflate", "gzip"]
            if curl.contains(" brotli/") { codings.append("br") }
            if curl.contains(" zstd/") { codings.append("zstd") }
            return codings.joined(separator: ", ")
        }()

        /// swift-corelibs-foundation's: the process name, and libcurl's version.
        static let userAgent: String = {
            let version = curl.split(separator: " ").first { $0.hasPrefix("libcurl/") }?.dropFirst("libcurl/".count)
            return "\(ProcessInfo.processInfo.processName) (unknown version) curl/\(version ?? "unknown")"
        }()

        /// The language of the process's locale, as ICU reads it from the environment (a `C`
        /// or `POSIX` locale reads as English); Foundation's `Locale` stays out of Sources/.
        static let acceptLanguage: String? = {
            let environment = ProcessInfo.processInfo.environment
            let locale =
                ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
            let language = locale.prefix { $0 != "_" && $0 != "." && $0 != "@" && $0 != "-" }
            return language.isEmpty || language == "C" || language == "POSIX" ? "en" : String(language)
        }()
        #else
        static let acceptEncoding = "gzip, deflate, br"
        static let undecodableBody = URLError.Code.cannotDecodeContentData

        /// CFNetwork's form: the app's name and version, CFNetwork's version, the kernel's release.
        static let userAgent: String = {
            let main = Bundle.main.infoDictionary
            let name = main?["CFBundleName"] as? String ?? ProcessInfo.processInfo.processName
            let version = main?["CFBundleVersion"] as? String ?? "unknown"
            let network =
                Bundle(identifier: "com.apple.CFNetwork")?.infoDictionary?["CFBundleVersion"] as? String ?? "unknown"
            return "\(name)/\(version) CFNetwork/\(network) Darwin/\(ProcessFacts.kernelRelease() ?? "unknown")"
        }()

        /// Apple's comes from the user's preferred languages, which need `Locale`: left out
        /// (docs/testing.md lists it).
        static let acceptLanguage: String? = nil
        #endif
    }

    // MARK: Cookies

    /// The store URLSession would keep this request's cookies in: the session's, where the task
    /// shows it, else the registration's (the one its configuration is made with).
    static func cookieStore(session: URLSession?, registration: HTTPCookieStorage) -> HTTPCookieStorage? {
        guard let configuration = session?.configuration else { return registration }
        return configuration.httpCookieAcceptPolicy == .never ? nil : configuration.httpCookieStorage
    }

    /// The `Cookie` field for a request that carries none: on Linux URLSession adds it to the
    /// protocol's request itself; on Apple platforms it is added here.
    static func cookieField(for request: URLRequest, url: URL, store: HTTPCookieStorage?) -> String? {
        #if canImport(FoundationNetworking)
        return nil
        #else
        guard request.value(forHTTPHeaderField: "Cookie") == nil, request.httpShouldHandleCookies,
            let cookies = store?.cookies(for: url), !cookies.isEmpty
        else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
        #endif
    }

    /// Keeps an answer's cookies, as URLSession does with a socket's.
    static func keepCookies(from fields: HeaderFields, url: URL, store: HTTPCookieStorage?) {
        guard let store else { return }
        for value in fields.values("Set-Cookie") {
            let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": value], for: url)
            store.setCookies(cookies, for: url, mainDocumentURL: nil)
        }
    }

    // MARK: Content codings

    /// At most this much decoded body: a small body must not expand without bound.
    static let decodedLimit = 256 * 1024 * 1024

    /// The codings undone here, as URLSession undoes them over a socket: gzip and deflate
    /// (`ContentDecoding`), and on Linux br and zstd where libcurl has them (`LoadedDecoders`).
    static let undoneCodings = Set(["gzip", "x-gzip", "deflate"]).union(LoadedDecoders.available)

    /// The answer's codings, in the order they were applied.
    private static func codings(_ fields: HeaderFields) -> [String] {
        ContentDecoding.codings(fields.values("Content-Encoding").joined(separator: ","))
    }

    /// Whether the answer's body is decoded (every coding it lists is one undone here).
    static func needsDecoding(_ fields: HeaderFields) -> Bool {
        let codings = codings(fields)
        return !codings.isEmpty && codings.allSatisfy(undoneCodings.contains)
    }

    /// The body as the client gets it, the last coding applied undone first; nil when it does
    /// not decode (URLSession fails the task).
    static func decoded(_ body: [UInt8], _ fields: HeaderFields) -> [UInt8]? {
        var body = body
        for coding in codings(fields).reversed() {
            let decoded =
                ContentDecoding.canDecode(coding)
                ? ContentDecoding.decode(body, contentEncoding: coding, limit: decodedLimit)
                : LoadedDecoders.decode(body, coding: coding)
            guard let decoded else { return nil }
            body = decoded
        }
        return body
    }
}
