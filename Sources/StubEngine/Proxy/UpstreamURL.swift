/// An upstream to forward to: `http://staging.example.com:8080/api` (scheme, host, port and a
/// base path that every forwarded path goes below).
package struct UpstreamURL: Sendable, Equatable, CustomStringConvertible {
    package let scheme: String
    package let host: String
    package let port: Int
    /// Without a trailing slash; empty for none.
    package let basePath: String
    /// `host:port`, the port left out when it is the scheme's own (what `Host` says). Worked
    /// out once: every forwarded request sends it, and building it each time showed in the
    /// proxy's profile.
    package let authority: String
    /// The host for a socket: brackets of an IPv6 literal removed.
    package let bareHost: String

    /// nil unless `text` is an absolute http or https URL without query, fragment or userinfo.
    package init?(_ text: String) {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") {
            scheme = "http"
        } else if lower.hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        var rest = Substring(text.dropFirst(scheme.count + 3))
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        guard !authority.isEmpty, !authority.contains("@"), !rest.contains("?"), !rest.contains("#") else { return nil }
        var host = Substring(authority)
        var port = scheme == "https" ? 443 : 80
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[...close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
            host = host[..<colon]
        }
        guard !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = String(host)
        self.port = port
        var base = String(rest)
        while base.hasSuffix("/") { base.removeLast() }
        self.basePath = base
        let hostText = String(host)
        self.authority =
            (scheme == "http" && port == 80) || (scheme == "https" && port == 443) ? hostText : "\(hostText):\(port)"
        self.bareHost =
            hostText.hasPrefix("[") && hostText.hasSuffix("]") ? String(hostText.dropFirst().dropLast()) : hostText
    }

    package var description: String { "\(scheme)://\(authority)\(basePath)" }
}
