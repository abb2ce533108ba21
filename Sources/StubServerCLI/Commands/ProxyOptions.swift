import HTTP1
import StubEngine

/// `--proxy URL` and the flags that shape forwarding (serve and record): where requests no
/// stub matches go, what changes on the way, and whom to trust for https.
struct ProxyOptions: Sendable, Equatable {
    var upstream: String?
    /// `Name: value`, set on every forwarded request.
    var setHeaders: [String] = []
    var removeHeaders: [String] = []
    var timeoutSeconds = 30.0
    var preserveHost = false
    var caFile: String?

    static let options: [Option] = [
        .value("--proxy", "URL", "forward requests no stub matches to URL (http or https) instead of answering 404"),
        .value("--proxy-header", "'N: V'", "set header N to V on forwarded requests (repeatable)", repeatable: true),
        .value("--proxy-remove-header", "N", "remove header N from forwarded requests (repeatable)", repeatable: true),
        .value("--proxy-timeout", "S", "seconds to wait for an upstream's answer before 504 (default: 30)"),
        .flag("--preserve-host", "send the client's Host header upstream (default: the upstream's own)"),
        .value("--proxy-ca", "FILE", "also trust the CA certificates in FILE (PEM) for https upstreams"),
    ]

    init() {}

    init(_ a: ParsedArguments) throws(UsageError) {
        upstream = try a.nonEmpty("--proxy", "a URL such as https://staging.example.com")
        if let upstream, UpstreamURL(upstream) == nil {
            throw UsageError(
                """
                --proxy must be an http or https URL without query or user, such as \
                https://staging.example.com/api, not \"\(upstream)\"
                """
            )
        }
        setHeaders = a.all("--proxy-header")
        for header in setHeaders where Self.split(header) == nil {
            throw UsageError("--proxy-header must be 'Name: value', not \"\(header)\"")
        }
        removeHeaders = a.all("--proxy-remove-header")
        timeoutSeconds = try a.seconds("--proxy-timeout") ?? timeoutSeconds
        preserveHost = a.has("--preserve-host")
        caFile = try a.nonEmpty("--proxy-ca", "a PEM file")
        let forwardingFlags = ["--proxy-header", "--proxy-remove-header", "--proxy-timeout", "--preserve-host"]
        if upstream == nil, let stray = forwardingFlags.first(where: { !a.all($0).isEmpty || a.has($0) }) {
            throw UsageError("\(stray) shapes what --proxy forwards; give --proxy URL too")
        }
    }

    /// The rule for `--proxy`, nil without it.
    var rule: ProxyRule? {
        guard let upstream, let url = UpstreamURL(upstream) else { return nil }
        return ProxyRule(
            upstream: url,
            setHeaders: setHeaders.compactMap(Self.split),
            removeHeaders: removeHeaders,
            preserveHost: preserveHost,
            timeoutMilliseconds: Int64(timeoutSeconds * 1000)
        )
    }

    private static func split(_ header: String) -> (name: String, value: String)? {
        guard let colon = header.firstIndex(of: ":") else { return nil }
        let name = header[..<colon].trimmingSpaces()
        guard HTTPToken.isToken(name) else { return nil }
        return (name, header[header.index(after: colon)...].trimmingSpaces())
    }
}
