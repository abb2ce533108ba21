#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1

/// `--forward-proxy` (docs/forward-proxy.md): the server as a device's HTTP proxy. Requests in
/// absolute-form (`GET http://api.example.com/v1/me`) and inside intercepted tunnels are
/// matched like any other (a stub's `host` condition sees their host) and, unmatched, forwarded
/// to their own host. `CONNECT` to a host on the intercept list is terminated here (TLS with a
/// certificate for that name); to any other host it is a blind tunnel.
package struct ForwardProxy: Sendable {
    package var intercept: InterceptList
    package var access: ForwardProxyAccess
    /// As `--proxy-timeout`: no response head within this time gives 504.
    package var timeoutMilliseconds: Int64

    package init(
        intercept: InterceptList = InterceptList(),
        access: ForwardProxyAccess = ForwardProxyAccess(),
        timeoutMilliseconds: Int64 = 30_000
    ) {
        self.intercept = intercept
        self.access = access
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Where a proxy client meant `request` to go: the tunnel it came through (https), or its
    /// absolute-form target's scheme and authority. nil for an ordinary (origin-form) request.
    package static func origin(of request: IncomingRequest) -> UpstreamURL? {
        if let tunnel = request.tunnelAuthority { return UpstreamURL("https://" + tunnel) }
        let target = request.target
        guard let first = target.utf8.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*"),
            let authority = request.authority
        else { return nil }
        let scheme =
            target.utf8.starts(with: "https:".utf8) || target.utf8.starts(with: "HTTPS:".utf8) ? "https" : "http"
        return UpstreamURL("\(scheme)://\(authority)")
    }
}

/// `--intercept HOST[,HOST...]`: exact names, and `*.example.com` for every name below
/// example.com (at any depth; not example.com itself). Names compare without case.
package struct InterceptList: Sendable, Equatable {
    package private(set) var exact: Set<String> = []
    /// `.example.com` for `*.example.com`.
    package private(set) var suffixes: [String] = []

    package init() {}

    /// Each entry checked: a host name or address, or `*.` and a name. Throws what is wrong.
    package init(_ entries: [String]) throws(InterceptListError) {
        for raw in entries {
            let entry = raw.lowercased()
            if entry.hasPrefix("*.") {
                let base = String(entry.dropFirst(2))
                guard Self.isName(base) else { throw InterceptListError(entry: raw) }
                suffixes.append("." + base)
            } else {
                let bare = entry.hasPrefix("[") && entry.hasSuffix("]") ? String(entry.dropFirst().dropLast()) : entry
                guard Self.isName(bare) || Authority.isIPAddress(bare) else { throw InterceptListError(entry: raw) }
                exact.insert(bare)
            }
        }
    }

    package var isEmpty: Bool { exact.isEmpty && suffixes.isEmpty }

    /// Whether a `CONNECT` to `host` (no port, no brackets) is intercepted.
    package func intercepts(_ host: String) -> Bool {
        let name = host.lowercased()
        if exact.contains(name) { return true }
        return suffixes.contains { name.hasSuffix($0) && name.utf8.count > $0.utf8.count }
    }

    /// Letters, digits, hyphens and dots, with no empty label.
    static func isName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.utf8.allSatisfy(isNameByte)
        }
    }
}

/// A letter, a digit or a hyphen.
private func isNameByte(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2D
}

package struct InterceptListError: Error, Sendable, CustomStringConvertible {
    package let entry: String
    package var description: String {
        "--intercept takes host names (api.example.com), addresses or wildcards (*.example.com), not \"\(entry)\""
    }
}

/// Who may use the forward proxy. Loopback clients always may: the proxy serves this machine.
/// Any other client (the server listens beyond loopback, for a phone) must send the admin
/// token in `Proxy-Authorization`, as `Bearer TOKEN` or as Basic's password (any user name),
/// which is what a device's proxy settings send. Without a token nobody else may: the server
/// is never an open proxy by accident.
package struct ForwardProxyAccess: Sendable, Equatable {
    package var token: String?

    package init(token: String? = nil) {
        self.token = token
    }

    /// Why `request` may not use the proxy, or nil when it may: 407 asks for credentials.
    package func refusal(_ request: IncomingRequest) -> (status: Int, message: String)? {
        if Self.isLoopback(peer: request.peer) { return nil }
        guard let token else {
            return (
                403,
                "refused: the forward proxy serves clients on this machine only; to let devices use it, "
                    + "start the server with --admin-token T and set the device's proxy password to T"
            )
        }
        guard let credentials = request.headers["Proxy-Authorization"], Self.carries(token, credentials) else {
            return (
                407,
                "the forward proxy needs the admin token: Proxy-Authorization: Bearer TOKEN, or the proxy "
                    + "password TOKEN in the device's proxy settings"
            )
        }
        return nil
    }

    /// `Bearer TOKEN`, or `Basic base64(user:TOKEN)`.
    static func carries(_ token: String, _ credentials: String) -> Bool {
        let parts = credentials.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return false }
        let scheme = parts[0].lowercased()
        let value = parts[1].trimmingSpaces()
        if scheme == "bearer" { return constantTimeEquals(value, token) }
        guard scheme == "basic", let decoded = Data(base64Encoded: value),
            let colon = decoded.firstIndex(of: UInt8(ascii: ":"))
        else { return false }
        return constantTimeEquals(String(decoding: decoded[(colon + 1)...], as: UTF8.self), token)
    }

    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    /// `127.x.x.x:port`, `[::1]:port` (or an IPv4-mapped loopback), or no peer at all (the
    /// in-process transport).
    static func isLoopback(peer: String) -> Bool {
        if peer.isEmpty { return true }
        let address = ForwardingRules.clientAddress(peer).lowercased()
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
