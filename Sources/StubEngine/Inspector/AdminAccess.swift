#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import SystemSupport

/// Who may use the admin API when `--admin-token` is set: a client that sends the token
/// (`Authorization: Bearer T`), or a browser that gave it once to the inspector's login and holds
/// the session cookie that login set.
///
/// The cookie is `HttpOnly` (page scripts cannot read it) and `SameSite=Strict` (another site's
/// pages do not get it sent). SameSite is per site, not per origin, though: a page on another
/// port of the same host (the app's dev server on localhost:3000) is the same site. So a request
/// that changes something and carries only the cookie must also carry `X-Stubserver-UI: 1`.
/// A page of another origin can only add that header after a CORS preflight, which the admin
/// API never grants, and an HTML form cannot add it at all.
enum AdminAccess {
    enum Verdict: Equatable {
        case allowed
        /// No token, a wrong one, or no live session: 401.
        case unauthorized
        /// A live session cookie on a state-changing request without the custom header: 403.
        case crossSiteRefused
    }

    static let cookiePrefix = "stubserver_admin"
    static let uiHeader = "X-Stubserver-UI"

    static func verdict(for request: IncomingRequest, token: String?, sessions: AdminSessions) -> Verdict {
        guard let token else { return .allowed }
        if AdminAPI.authorized(request, token: token) { return .allowed }
        guard hasSession(request, sessions) else { return .unauthorized }
        return isSafe(request.method) || sentByThePage(request) ? .allowed : .crossSiteRefused
    }

    /// GET and HEAD change nothing; their answers cannot be read by another origin.
    static func isSafe(_ method: String) -> Bool { method == "GET" || method == "HEAD" }

    static func sentByThePage(_ request: IncomingRequest) -> Bool {
        request.headers[uiHeader]?.trimmingSpaces() == "1"
    }

    static func hasSession(_ request: IncomingRequest, _ sessions: AdminSessions) -> Bool {
        sessionIDs(in: request).contains { sessions.isLive($0) }
    }

    /// Values of our cookies (`stubserver_admin…=VALUE`) in every `Cookie` field.
    static func sessionIDs(in request: IncomingRequest) -> [String] {
        request.headers.values("Cookie").flatMap { $0.split(separator: ";") }.compactMap { pair -> String? in
            let trimmed = pair.trimmingSpaces()
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals].hasPrefix(cookiePrefix) else { return nil }
            return String(trimmed[trimmed.index(after: equals)...])
        }
    }

    /// One cookie name per port, so two servers on one host (cookies ignore ports) do not log
    /// each other's pages out.
    static func cookieName(for request: IncomingRequest) -> String {
        let host = request.authority ?? request.headers["Host"] ?? ""
        let port = host.split(separator: ":").last.flatMap { Int($0) }
        return port.map { "\(cookiePrefix)_\($0)" } ?? cookiePrefix
    }

    /// `Path=/__admin`: the browser sends the cookie to the admin API only, never to the stubs
    /// (which would put it in the journal). No `Secure`: the server speaks plain HTTP.
    static func setCookie(_ name: String, _ value: String, maxAge: Int? = nil) -> String {
        var cookie = "\(name)=\(value); Path=\(AdminAPI.prefix); HttpOnly; SameSite=Strict"
        if let maxAge { cookie += "; Max-Age=\(maxAge)" }
        return cookie
    }
}

/// The inspector's logged-in browsers: random session ids, kept in memory (a restart logs
/// everyone out) and bounded (the oldest goes first).
package final class AdminSessions: Sendable {
    static let limit = 64
    private let ids = Locked<[String]>([])

    package init() {}

    /// A new session: 32 random bytes from the system's secure generator, as hex.
    func create() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            bytes += [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
        }
        let id = String(decoding: bytes, as: UTF8.self)
        ids.withLock { list in
            list.append(id)
            if list.count > Self.limit { list.removeFirst(list.count - Self.limit) }
        }
        return id
    }

    /// Compared in constant time, like the token.
    func isLive(_ id: String) -> Bool {
        ids.withLock { list in list.reduce(false) { $0 || AdminAPI.constantTimeEquals($1, id) } }
    }

    func remove(_ id: String) {
        ids.withLock { list in list.removeAll { AdminAPI.constantTimeEquals($0, id) } }
    }
}
