import HTTP1

/// `--cors`: what a browser needs to call the stubs from a web app on another origin.
/// Preflights are answered here (without it they are matched against stubs like any request),
/// and every response gets the CORS headers, exposing the stub's own headers to scripts.
package struct CORSPolicy: Sendable {
    package var maxAgeSeconds: Int

    package init(maxAgeSeconds: Int = 86_400) {
        self.maxAgeSeconds = maxAgeSeconds
    }

    static let methods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"

    /// A 204 for `OPTIONS` with `Origin` and `Access-Control-Request-Method`; nil otherwise.
    func preflight(_ request: IncomingRequest) -> OutgoingResponse? {
        guard request.method == "OPTIONS", request.headers.contains("Origin"),
            let requested = request.headers["Access-Control-Request-Method"]
        else { return nil }
        var headers = allowOrigin(request)
        let methods = Self.methods.contains(requested) ? Self.methods : "\(requested), \(Self.methods)"
        headers.add("Access-Control-Allow-Methods", methods)
        let requestedHeaders = request.headers.values("Access-Control-Request-Headers").joined(separator: ", ")
        if !requestedHeaders.isEmpty { headers.add("Access-Control-Allow-Headers", requestedHeaders) }
        headers.add("Access-Control-Max-Age", String(maxAgeSeconds))
        headers.add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        return OutgoingResponse(status: 204, headers: headers)
    }

    /// The response with CORS headers added (the prepared bytes are extended, not re-encoded).
    func decorate(_ response: OutgoingResponse, for request: IncomingRequest) -> OutgoingResponse {
        var headers = allowOrigin(request)
        let exposed = response.prepared.headers.map(\.name).filter { !$0.lowercased().hasPrefix("access-control-") }
        if !exposed.isEmpty { headers.add("Access-Control-Expose-Headers", exposed.joined(separator: ", ")) }
        if request.headers.contains("Origin") { headers.add("Vary", "Origin") }
        var decorated = response
        decorated.prepared = response.prepared.adding(headers)
        return decorated
    }

    /// The request's origin echoed (so credentialed requests work), or `*` without one.
    private func allowOrigin(_ request: IncomingRequest) -> HeaderFields {
        var headers = HeaderFields()
        if let origin = request.headers["Origin"] {
            headers.add("Access-Control-Allow-Origin", origin)
            headers.add("Access-Control-Allow-Credentials", "true")
        } else {
            headers.add("Access-Control-Allow-Origin", "*")
        }
        return headers
    }
}
