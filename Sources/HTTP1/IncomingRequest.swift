/// The protocol version of a request line. Only HTTP/1.x is served.
package struct HTTPVersion: Sendable, Equatable, CustomStringConvertible {
    package var major: Int
    package var minor: Int
    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    package static let http1_0 = HTTPVersion(major: 1, minor: 0)
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)
    package var description: String { "HTTP/\(major).\(minor)" }
}

/// One name/value pair of the query string, percent-decoded (`+` stays `+`; see `PercentDecoding`).
package struct QueryItem: Sendable, Equatable {
    package var name: String
    package var value: String
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete, validated request: what the server hands to its handler.
package struct IncomingRequest: Sendable {
    package var method: String = ""
    /// The request-target exactly as sent (origin-form, absolute-form or `*`).
    package var target: String = ""
    /// The percent-decoded path, dot segments removed. `*` for `OPTIONS *`.
    package var path: String = ""
    /// The raw query string after `?`, without the `?`; nil when the target had none.
    package var rawQuery: String? = nil
    package var queryItems: [QueryItem] = []
    package var version = HTTPVersion(major: 1, minor: 1)
    package var headers = HeaderFields()
    package var body: [UInt8] = []
    /// The client's address, `IP:port` (`[IPv6]:port`). Set by the server, empty in unit tests.
    package var peer: String = ""
    /// The authority the client addressed: the absolute-form target's, else the Host field's.
    package var authority: String? = nil
    /// For a request inside an intercepted `CONNECT` tunnel (a forward proxy terminating TLS):
    /// the tunnel's `host:port`, where the client meant the request to go. nil otherwise.
    package var tunnelAuthority: String? = nil
    /// The request line and header fields exactly as they came (each line's CRLF and the empty
    /// line included), for whoever keeps the request as it came (the journal) and reads it
    /// again later with `IncomingRequest(readingHead:)`. Empty for a request that did not come
    /// through the parser (the in-process transport).
    package var head: [UInt8] = []

    package init(
        method: String,
        target: String,
        path: String,
        rawQuery: String? = nil,
        queryItems: [QueryItem] = [],
        version: HTTPVersion = .http1_1,
        headers: HeaderFields = HeaderFields(),
        body: [UInt8] = [],
        peer: String = "",
        authority: String? = nil
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.rawQuery = rawQuery
        self.queryItems = queryItems
        self.version = version
        self.headers = headers
        self.body = body
        self.peer = peer
        self.authority = authority
    }

    /// An empty request, for the parser to fill in where it lies. Every field has its value
    /// from its declaration, so nothing is assigned in a body: Swift 6.3 builds a struct this
    /// large that an initialiser's body assigns field by field in a temporary, then copies it
    /// (retaining every field) and destroys the temporary, once per request (seen in callgrind,
    /// reproduced in a standalone file). The initialiser with parameters above still does.
    init() {}

    /// RFC 9112 §9.3: 1.1 persists unless `Connection: close`; 1.0 closes unless `keep-alive`.
    package var wantsKeepAlive: Bool {
        if version.major == 1 && version.minor >= 1 {
            return !headers.hasToken("close", in: .connection, named: "Connection")
        }
        return headers.hasToken("keep-alive", in: .connection, named: "Connection")
            && !headers.hasToken("close", in: .connection, named: "Connection")
    }

    /// The host without its port: from the authority, brackets of an IPv6 literal removed.
    package var hostWithoutPort: String? {
        guard let authority else { return nil }
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        if let colon = authority.lastIndex(of: ":") { return String(authority[..<colon]) }
        return authority
    }

    /// The values of a query parameter, in order.
    package func queryValues(_ name: String) -> [String] {
        queryItems.compactMap { $0.name == name ? $0.value : nil }
    }
}

extension IncomingRequest {
    /// A request that did not come through the parser (the in-process URLProtocol transport):
    /// its target goes through the same `RequestTarget` parsing, so path decoding, dot segments
    /// and query items are exactly what a socket would have given, and one stub matches the same
    /// way over both transports. Throws what the parser would have answered (400 for a `%`
    /// without two hex digits).
    package static func make(
        method: String,
        target: String,
        headers: HeaderFields,
        body: [UInt8],
        peer: String,
        authority: String?
    ) throws(HTTPParseError) -> IncomingRequest {
        var request = IncomingRequest(
            method: method,
            target: target,
            path: "",
            headers: headers,
            body: body,
            peer: peer,
            authority: authority
        )
        try RequestTarget.parse(target, method: method, into: &request)
        return request
    }
}
