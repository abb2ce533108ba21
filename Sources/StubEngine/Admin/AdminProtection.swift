import HTTP1

/// Who may use the admin API and the inspector (everything under `/__admin/`), and from where.
///
/// The server runs on a developer's laptop while the same person browses the web, so any page
/// they open can make their browser send requests to it. Three checks keep those pages out:
///
/// - **Host.** With DNS rebinding, a page on `attacker.example` whose name is made to resolve
///   to 127.0.0.1 is same-origin with the server in the browser's eyes and can read its answers
///   (the journal holds the app's tokens). Its requests still say `Host: attacker.example`, so
///   only names known to be this machine are answered: `localhost` and the names under it,
///   the names the server was told (`--allowed-host`, and the machine's own when it listens on
///   every address), and any IP address. An address cannot be rebound, and devices call the
///   server by one that is not its own: the Android emulator by 10.0.2.2, a container by its
///   gateway. Vite and webpack-dev-server check Host for the same reason.
/// - **Origin.** A page of another origin can send "simple" requests (a form post, a
///   `text/plain` fetch) without a CORS preflight: it cannot read the answer, but the request
///   does its work. A request that changes something must come from the server's own origin,
///   or one named with `--admin-origin`, and must carry a JSON body type, which no simple
///   request can. Clients that are not browsers (curl, WireMock's clients, StubKit) send no
///   `Origin` and are not affected.
/// - **Token.** Beyond loopback everyone on the network can connect, so the command line then
///   requires a token (`Authorization: Bearer T`) from every client, loopback ones included: a
///   page in the developer's own browser is a loopback client. The inspector keeps the token
///   in the tab's memory, never in a cookie, which the browser would send to every port of the
///   host.
package struct AdminProtection: Sendable {
    /// When set, every admin request needs `Authorization: Bearer TOKEN`.
    package var token: String?
    /// Host names (without port, any case) answered besides `localhost`, the names under it
    /// and IP addresses; one that starts with a dot allows every name below it (`.example.test`).
    package var allowedHosts: [String] = []
    /// Origins (`http://host:port`) besides the server's own whose pages may change things.
    package var allowedOrigins: [String] = []
    /// Whether the Host check runs. StubKit turns it off: its URLProtocol hands the engine
    /// requests for the app's own host names, made in the test process where no browser is,
    /// and its server lives on a random loopback port for one test.
    package var checksHost = true

    package init(
        token: String? = nil,
        allowedHosts: [String] = [],
        allowedOrigins: [String] = [],
        checksHost: Bool = true
    ) {
        self.token = token
        self.allowedHosts = allowedHosts.map { $0.lowercased() }
        self.allowedOrigins = allowedOrigins.map { Self.normalizedOrigin($0) }
        self.checksHost = checksHost
    }

    /// Why an admin request is not answered.
    package enum Refusal: Sendable, Equatable {
        /// The Host names no address of this machine (a rebound name, or one not allowed yet).
        case unknownHost(String)
        /// A request that changes something, sent by a page of another origin.
        case crossSite(String)
        /// A request that changes something without a JSON body type.
        case notJSON(String)
        /// No token, or a wrong one.
        case unauthorized

        package var status: Int {
            switch self {
            case .unknownHost, .crossSite: 403
            case .notJSON: 415
            case .unauthorized: 401
            }
        }

        /// What the client is told, with the flag or header that would let it in.
        package var message: String {
            switch self {
            case .unknownHost(let host):
                "refused: the admin API answers only requests addressed to this machine, and Host \"\(host)\" is not "
                    + "known to be it (a web page can rebind a name of its own to 127.0.0.1); start the server with "
                    + "--allowed-host \(host) if this name is yours"
            case .crossSite(let origin):
                "refused: a request that changes something must come from the server's own pages, not from \(origin) "
                    + "(any web page can send requests here); start the server with --admin-origin \(origin) if that "
                    + "page is yours"
            case .notJSON(let type):
                "refused: admin requests that change something need Content-Type: application/json, not \(type) "
                    + "(a web page can send a form or plain text here without asking); with curl use --json or "
                    + "-H 'Content-Type: application/json'"
            case .unauthorized:
                "this server needs Authorization: Bearer TOKEN on admin requests: the token given with --admin-token, "
                    + "or the one printed when the server started"
            }
        }

        /// A few words for the journal, the request log and the inspector.
        package var summary: String {
            switch self {
            case .unknownHost(let host): "unknown Host \(host)"
            case .crossSite(let origin): "cross-site request from \(origin)"
            case .notJSON(let type): "not JSON (\(type))"
            case .unauthorized: "no valid admin token"
            }
        }
    }

    /// nil when the request may be answered. `needsToken` is false for the inspector's page,
    /// script and style: they hold no data, and a browser must load them to ask for the token.
    package func refusal(for request: IncomingRequest, needsToken: Bool = true) -> Refusal? {
        if checksHost, let host = request.hostWithoutPort, !isAllowedHost(host) {
            return .unknownHost(request.authority ?? host)
        }
        if !Self.isSafe(request.method) {
            if let origin = request.headers["Origin"] {
                if !isAllowedOrigin(origin, for: request) { return .crossSite(origin) }
            } else if let site = request.headers["Sec-Fetch-Site"]?.trimmingSpaces().lowercased(),
                site == "cross-site" || site == "same-site"
            {
                // A browser that sent no Origin still says where the request came from.
                return .crossSite("another site (Sec-Fetch-Site: \(site))")
            }
            if let problem = Self.bodyTypeProblem(request) { return .notJSON(problem) }
        }
        if needsToken, let token, !Self.carries(request, token: token) { return .unauthorized }
        return nil
    }

    /// A token for a server that listens beyond loopback and was given none: 24 bytes from the
    /// system's secure generator, as hex (as long as Jupyter's).
    package static func generatedToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        for _ in 0..<24 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            characters += [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// GET, HEAD and OPTIONS change nothing, and another origin cannot read their answers.
    static func isSafe(_ method: String) -> Bool {
        method == "GET" || method == "HEAD" || method == "OPTIONS"
    }

    func isAllowedHost(_ host: String) -> Bool {
        var name = host.lowercased()
        // A fully qualified name may end in a dot (`localhost.`); it names the same host.
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        if Authority.isIPAddress(name) { return true }
        return allowedHosts.contains { allowed in
            allowed.hasPrefix(".") ? name.hasSuffix(allowed) || name == allowed.dropFirst() : name == allowed
        }
    }

    /// The server's own origin (the Origin's host and port are the ones the request was sent
    /// to; the scheme may be http or https, which can share a port) or one allowed by name.
    func isAllowedOrigin(_ origin: String, for request: IncomingRequest) -> Bool {
        let normalized = Self.normalizedOrigin(origin)
        if allowedOrigins.contains(normalized) { return true }
        guard let authority = request.authority?.lowercased() else { return false }
        let scheme: String
        if normalized.hasPrefix("http://") {
            scheme = "http"
        } else if normalized.hasPrefix("https://") {
            scheme = "https"
        } else {
            return false  // `null` (a sandboxed frame, a file) or another scheme: never ours
        }
        let originAuthority = String(normalized.dropFirst(scheme.count + 3))
        return Self.withoutDefaultPort(originAuthority, scheme: scheme)
            == Self.withoutDefaultPort(authority, scheme: scheme)
    }

    /// Lowercased, without a trailing slash: `Origin` never has one, a flag's value might.
    static func normalizedOrigin(_ origin: String) -> String {
        var value = origin.trimmingSpaces().lowercased()
        while value.hasSuffix("/") { value.removeLast() }
        return value
    }

    static func withoutDefaultPort(_ authority: String, scheme: String) -> String {
        let port = scheme == "https" ? ":443" : ":80"
        return authority.hasSuffix(port) ? String(authority.dropLast(port.count)) : authority
    }

    /// Why the body's type cannot be sent to a state-changing route: nil for JSON
    /// (`application/json`, `+json`), and for no type with no body (`POST /__admin/reset`).
    static func bodyTypeProblem(_ request: IncomingRequest) -> String? {
        guard let contentType = request.headers["Content-Type"] else {
            return request.body.isEmpty ? nil : "no Content-Type"
        }
        let mediaType =
            contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces().lowercased() } ?? ""
        if mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json")) {
            return nil
        }
        return mediaType.isEmpty ? "an empty Content-Type" : mediaType
    }

    /// `Authorization: Bearer TOKEN`, compared in constant time so the answer's timing does not
    /// reveal how much of a guess was right. The scheme is case-insensitive (RFC 9110 §11.1).
    package static func carries(_ request: IncomingRequest, token: String) -> Bool {
        guard let header = request.headers["Authorization"] else { return false }
        let scheme = header.prefix { $0 != " " }
        guard asciiCaseInsensitiveEquals(scheme, "Bearer") else { return false }
        return constantTimeEquals(String(header.dropFirst(scheme.count).drop { $0 == " " }), token)
    }

    /// Whether two secrets are equal, taking the same time wherever they differ.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let given = Array(a.utf8)
        let expected = Array(b.utf8)
        var difference = given.count ^ expected.count
        for i in 0..<max(given.count, expected.count) {
            let a = i < given.count ? given[i] : 0
            let b = i < expected.count ? expected[i] : 0
            difference |= Int(a ^ b)
        }
        return difference == 0
    }
}
