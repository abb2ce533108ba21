import HTTP1

/// One request and the answer it got, ready to become part of a stub: what the recorder
/// captured from a proxied exchange, or what an importer read from an archive.
package struct RecordedExchange: Sendable {
    package var method: String
    /// Decoded, as the server matches it.
    package var path: String
    /// Each parameter's first value, in the order sent; parameters without a name left out.
    package var query: [(name: String, value: String)]
    /// Request fields the stub matches on (the ones asked for), values as sent.
    package var requestHeaders: [(name: String, value: String)]
    package var requestBody: [UInt8]
    package var requestContentType: String
    package var status: Int
    /// Response fields as received, in order; `ResponseFieldRules` decides which are written.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// The request's cookies (its `Cookie` fields), in order: where a plan finds the sessions
    /// the recording walked (`SessionCookies`).
    package var requestCookies: [(name: String, value: String)]
    /// Absolute URL prefixes that lead back to the recorded server, each with the path a replay
    /// serves it under (`ServerLinks`).
    package var serverURLs: [(absolute: String, path: String)]
    /// The body's media type when no `Content-Type` field says it (a HAR's `content.mimeType`).
    package var declaredContentType: String
    /// An event stream's events with their timing (recorded instead of `body`).
    package var events: RecordedEvents?
    /// A WebSocket passed through: its messages both ways (the answer was a `101`).
    package var webSocket: RecordedWebSocket?
    /// The host a forward-proxy client addressed (without port): its stub gets a `host`
    /// condition, so one folder holds several hosts' stubs. nil for everything else.
    package var host: String? = nil

    package init(
        method: String,
        path: String,
        query: [(name: String, value: String)] = [],
        requestHeaders: [(name: String, value: String)] = [],
        requestBody: [UInt8] = [],
        requestContentType: String = "",
        status: Int,
        headers: [(name: String, value: String)] = [],
        body: [UInt8] = [],
        requestCookies: [(name: String, value: String)] = [],
        serverURLs: [(absolute: String, path: String)] = [],
        declaredContentType: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.requestContentType = requestContentType
        self.status = status
        self.headers = headers
        self.body = body
        self.requestCookies = requestCookies
        self.serverURLs = serverURLs
        self.declaredContentType = declaredContentType
    }

    /// The response's media type (empty when it has none).
    package var contentType: String {
        headers.first { asciiCaseInsensitiveEquals($0.name, "Content-Type") }?.value ?? declaredContentType
    }

    /// The cookies of `Cookie` fields (`a=1; b=2`), in order.
    package static func cookies(_ fields: [String]) -> [(name: String, value: String)] {
        fields.flatMap { field in
            field.split(separator: ";").compactMap { pair -> (name: String, value: String)? in
                guard let equals = pair.firstIndex(of: "=") else { return nil }
                let name = pair[..<equals].trimmingSpaces()
                return name.isEmpty ? nil : (name, pair[pair.index(after: equals)...].trimmingSpaces())
            }
        }
    }

    /// The query as the server reads it from a request: first value per name, in order.
    package static func query(of request: IncomingRequest) -> [(name: String, value: String)] {
        var query: [(name: String, value: String)] = []
        for item in request.queryItems where !item.name.isEmpty && !query.contains(where: { $0.name == item.name }) {
            query.append((item.name, item.value))
        }
        return query
    }
}

/// Which fields of a recorded exchange are written into stubs.
package enum RecordedFields {
    /// They describe one connection or one moment, not the API: the server sets its own
    /// framing, `Date` and `Server`, and a stub that replays `Age` or `Via` would lie.
    package static let volatile: Set<String> = [
        "date", "server", "content-length", "transfer-encoding", "connection", "keep-alive", "age", "via",
        "proxy-connection", "te", "trailer", "upgrade", "proxy-authenticate",
    ]
    /// Credentials, sessions and tokens: never written to disk unless asked (`--keep-secrets`,
    /// or `--keep-header NAME` for one), so a recording or an import can go into a repository.
    /// A rule rather than a list: a list kept `Private-Token`, `X-Goog-Api-Key` and
    /// `X-Session-Token`. These fields, and any whose name contains one of `secretWords`...
    package static let secret: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2", "x-api-key", "api-key",
        "x-auth-token", "x-access-token", "x-refresh-token", "x-csrf-token", "x-xsrf-token", "x-amz-security-token",
    ]
    package static let secretWords = [
        "token", "key", "secret", "session", "auth", "password", "passwd", "signature",
        "cookie", "credential",
    ]
    /// ...except these, which name a scheme or a policy, never a credential.
    package static let notSecret: Set<String> = ["www-authenticate", "proxy-authenticate", "authentication-info"]

    /// Whether a field (by its lower-cased name) is a secret a recording leaves out.
    package static func isSecret(_ lowered: String) -> Bool {
        if secret.contains(lowered) { return true }
        return !notSecret.contains(lowered) && secretWords.contains { lowered.contains($0) }
    }

    package enum Verdict: Equatable {
        case keep
        case volatile
        case secret
        /// Not a field a stub can carry (a pseudo-header, a bad name, a line break in the value).
        case invalid
    }

    /// `kept`: lower-cased names written although they are secrets (`--keep-header`).
    package static func verdict(_ name: String, _ value: String, keepSecrets: Bool, kept: Set<String> = []) -> Verdict {
        if name.hasPrefix(":") { return .volatile }
        guard HTTPToken.isToken(name), !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
        else {
            return .invalid
        }
        let lowered = name.lowercased()
        if volatile.contains(lowered) { return .volatile }
        if !keepSecrets && !kept.contains(lowered) && isSecret(lowered) { return .secret }
        return .keep
    }
}
