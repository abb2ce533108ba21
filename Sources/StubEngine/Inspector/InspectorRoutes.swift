#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1

/// The inspector's own routes, under `/__admin/ui`: the page and its script and style (no data
/// in them, so they need no token: a browser must be able to load the login), and the login.
///
/// Everything is relative to the page, so the inspector also works behind a reverse proxy that
/// mounts the server under a path prefix.
struct InspectorRoutes {
    static let root = AdminAPI.prefix + "/ui"
    let engine: Engine

    static func claims(_ path: String) -> Bool {
        path == root || path.hasPrefix(root + "/")
    }

    func handle(_ request: IncomingRequest) -> OutgoingResponse {
        let rest = String(request.path.dropFirst(Self.root.count))
        switch (request.method, rest) {
        case ("GET", ""), ("HEAD", ""): return InspectorAssets.page
        // The page's relative addresses need it at `/__admin/ui`: send the trailing-slash
        // form there (a relative Location, which survives a path prefix).
        case ("GET", "/"), ("HEAD", "/"):
            return OutgoingResponse(status: 308, headers: HeaderFields([("Location", "../ui")]))
        case ("GET", "/app.js"), ("HEAD", "/app.js"): return InspectorAssets.script
        case ("GET", "/app.css"), ("HEAD", "/app.css"): return InspectorAssets.style
        case ("GET", "/session"): return session(request)
        case ("POST", "/login"): return login(request)
        case ("POST", "/logout"): return logout(request)
        default:
            let allowed = ["", "/", "/app.js", "/app.css"].contains(rest) ? "GET, HEAD"
                : rest == "/session" ? "GET" : ["/login", "/logout"].contains(rest) ? "POST" : nil
            guard let allowed else { return AdminAPI.error(404, "no inspector route \(request.path)") }
            var response = AdminAPI.error(405, "\(request.method) is not allowed on \(request.path); use \(allowed)")
            response.prepared = response.prepared.adding(HeaderFields([("Allow", allowed)]))
            return response
        }
    }

    /// What the page needs before anything else: must it ask for the token?
    private func session(_ request: IncomingRequest) -> OutgoingResponse {
        let required = engine.options.adminToken != nil
        let verdict = AdminAccess.verdict(for: request, token: engine.options.adminToken, sessions: engine.sessions)
        return AdminAPI.json(200, .object([
            ("tokenRequired", .bool(required)),
            ("authenticated", .bool(verdict == .allowed)),
            ("journal", .number(engine.journal.capacity)),
            ("version", .string(engine.options.version)),
        ]))
    }

    /// Body `{"token": "..."}`; sets the session cookie. It needs the page's header too, so
    /// another site cannot log a browser in to a session of its choosing.
    private func login(_ request: IncomingRequest) -> OutgoingResponse {
        guard AdminAccess.sentByThePage(request) else { return Self.crossSiteRefusal }
        guard let token = engine.options.adminToken else {
            return AdminAPI.json(200, .object([("authenticated", .bool(true)), ("tokenRequired", .bool(false))]))
        }
        let given = (try? JSONParser.parse(request.body))?["token"]?.string ?? ""
        guard AdminAPI.constantTimeEquals(given, token) else {
            return AdminAPI.error(401, "that is not this server's admin token (--admin-token)")
        }
        var response = AdminAPI.json(200, .object([("authenticated", .bool(true)), ("tokenRequired", .bool(true))]))
        let cookie = AdminAccess.setCookie(AdminAccess.cookieName(for: request), engine.sessions.create())
        response.prepared = response.prepared.adding(HeaderFields([("Set-Cookie", cookie), ("Cache-Control", "no-store")]))
        return response
    }

    private func logout(_ request: IncomingRequest) -> OutgoingResponse {
        guard AdminAccess.sentByThePage(request) else { return Self.crossSiteRefusal }
        AdminAccess.sessionIDs(in: request).forEach(engine.sessions.remove)
        var response = AdminAPI.json(200, .object([("authenticated", .bool(false))]))
        let expired = AdminAccess.setCookie(AdminAccess.cookieName(for: request), "", maxAge: 0)
        response.prepared = response.prepared.adding(HeaderFields([("Set-Cookie", expired)]))
        return response
    }

    static var crossSiteRefusal: OutgoingResponse {
        AdminAPI.error(403, "refused: a request that changes something and is sent with the inspector's cookie needs the header \(AdminAccess.uiHeader): 1 (it keeps other sites from using your login)")
    }
}

/// The page, script and style, each prepared once with the headers that keep the page to
/// itself: a Content-Security-Policy that allows nothing but this server (no inline script,
/// no other origin, no framing), no sniffing, no referrer.
package enum InspectorAssets {
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cache-Control", "no-cache"),
    ]

    static let page = asset("text/html; charset=utf-8", InspectorPage.html)
    static let style = asset("text/css; charset=utf-8", InspectorStyle.css)
    /// The script in parts, one per area of the page (a Swift file each), in one strict scope.
    static let script = asset("text/javascript; charset=utf-8", ([
        "\"use strict\";\n(() => {", InspectorScriptCore.js, InspectorScriptRequests.js, InspectorScriptDetail.js,
        InspectorScriptStubs.js, InspectorScriptActions.js, "})();\n",
    ]).joined(separator: "\n"))

    static func asset(_ type: String, _ text: String) -> OutgoingResponse {
        OutgoingResponse(status: 200, headers: HeaderFields([("Content-Type", type)] + securityHeaders), body: Array(text.utf8))
    }

    /// Bytes the page loads: page, script and style.
    package static var weight: Int { page.prepared.body.count + script.prepared.body.count + style.prepared.body.count }
}
