/// URLs in `Link`, `Location` and `Content-Location` that lead back to the recorded server (its
/// upstream address, or the recorder's own as the client addressed it, which an upstream behind
/// `--preserve-host` builds its links from), written as `{{request.baseUrl}}` templates: the
/// replay then sends the client back to whatever address it used, another port or an
/// emulator's `10.0.2.2`, and a paginated list's next page stays on the stub server.
package enum ServerLinks {
    static let fields: Set<String> = ["link", "location", "content-location"]

    /// `value` with each URL under one of `prefixes` rewritten; nil when none is there.
    /// `prefixes` pairs an absolute URL prefix (lower-case scheme and host) with the path the
    /// replay serves it under (the client's prefix of a `stripPrefix` rule, else empty).
    static func rewrite(_ value: String, prefixes: [(absolute: String, path: String)]) -> String? {
        let candidates = prefixes.map { (Array($0.absolute.lowercased().utf8), Array($0.path.utf8)) }
            .sorted { $0.0.count > $1.0.count }
        let bytes = Array(value.utf8)
        let lowered = Array(value.lowercased().utf8)
        guard lowered.count == bytes.count, !candidates.isEmpty else { return nil }
        var out: [UInt8] = []
        var index = 0
        var changed = false
        scan: while index < bytes.count {
            for (prefix, path) in candidates where lowered[index...].starts(with: prefix) {
                let next = index + prefix.count
                guard next == bytes.count || boundary.contains(bytes[next]) else { continue }
                out += Array("{{request.baseUrl}}".utf8) + path
                index = next
                changed = true
                continue scan
            }
            out.append(bytes[index])
            index += 1
        }
        return changed ? String(decoding: out, as: UTF8.self) : nil
    }

    /// What may follow a URL's authority or base path: the rest of the URL, or its end in a
    /// `Link` value (`>`), a list or a quoted string.
    private static let boundary = Set("/?#>;,\"' ".utf8)

    /// The prefixes that lead to `scheme://authority` (lower-cased): as written, and with the
    /// scheme's default port written out or left out.
    package static func variants(scheme: String, authority: String) -> [String] {
        let scheme = scheme.lowercased()
        let authority = authority.lowercased()
        let defaultPort = scheme == "https" ? ":443" : ":80"
        let afterHost = authority.hasPrefix("[") ? authority.firstIndex(of: "]") : authority.startIndex
        let hasPort = afterHost.map { authority[$0...].contains(":") } ?? false
        if !hasPort { return ["\(scheme)://\(authority)", "\(scheme)://\(authority)\(defaultPort)"] }
        if authority.hasSuffix(defaultPort) {
            return ["\(scheme)://\(authority)", "\(scheme)://\(authority.dropLast(defaultPort.count))"]
        }
        return ["\(scheme)://\(authority)"]
    }
}
