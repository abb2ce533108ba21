import HTTP1
import StubEngine

/// Which recorded response headers a stub keeps. Dropped: HTTP/2 and HTTP/3 pseudo-headers
/// (`:status`), hop-by-hop and framing fields (they describe the recorded connection, and the
/// server sets its own), `Date` and `Server` (the server sets them), `Content-Encoding` (a HAR
/// holds the decoded body, so `gzip` would be a lie), and, unless asked, secrets: cookies,
/// credentials and tokens a capture should not spread into a repository.
enum HARHeaders {
    static let connectionFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
        "proxy-authenticate", "content-length", "date", "server", "content-encoding",
    ]

    enum Verdict: Equatable {
        case keep
        case connection
        case secret
        case invalid
    }

    static func verdict(_ name: String, _ value: String, keepSecrets: Bool) -> Verdict {
        if name.hasPrefix(":") { return .connection }
        guard HTTPToken.isToken(name), !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
        else { return .invalid }
        let lowered = name.lowercased()
        if connectionFields.contains(lowered) { return .connection }
        // The recorder's rule: one idea of what a secret is.
        if !keepSecrets && RecordedFields.isSecret(lowered) { return .secret }
        return .keep
    }
}
