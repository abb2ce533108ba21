import HTTP1
import StubEngine

/// The inspector's own routes, under `/__admin/ui`: the page and its script and style (no data
/// in them, so they need no token: a browser must be able to load the page that asks for it),
/// and `session`, which tells the page whether it must ask. Plugged into the engine's admin API
/// as an `AdminRouteSet` (`Engine.Options.adminRoutes`); the command line's server has it.
///
/// The page keeps the token in the tab's memory and sends it as `Authorization: Bearer` on
/// each call: no cookie, which the browser would also send to any other port of the host.
///
/// Everything is relative to the page, so the inspector also works behind a reverse proxy that
/// mounts the server under a path prefix.
package struct InspectorRoutes: AdminRouteSet {
    static let root = AdminAPI.prefix + "/ui"
    /// The paths after `root` that hold no data and answer without the token.
    static let assetPaths = ["", "/", "/app.js", "/app.css"]

    package init() {}

    package var routes: [(method: String, path: String)] {
        [("GET", Self.root)]
    }

    package func claims(_ request: IncomingRequest) -> Bool {
        request.path == Self.root || request.path.hasPrefix(Self.root + "/")
    }

    package func isPublic(_ request: IncomingRequest) -> Bool {
        guard claims(request) else { return false }
        let rest = String(request.path.dropFirst(Self.root.count))
        return Self.assetPaths.contains(rest) || rest == "/session"
    }

    package func handle(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        let rest = String(request.path.dropFirst(Self.root.count))
        switch (request.method, rest) {
        case ("GET", ""), ("HEAD", ""): return InspectorAssets.page
        // The page's relative addresses need it at `/__admin/ui`: send the trailing-slash
        // form there (a relative Location, which survives a path prefix).
        case ("GET", "/"), ("HEAD", "/"):
            return OutgoingResponse(status: 308, headers: HeaderFields([("Location", "../ui")]))
        case ("GET", "/app.js"), ("HEAD", "/app.js"): return InspectorAssets.script
        case ("GET", "/app.css"), ("HEAD", "/app.css"): return InspectorAssets.style
        case ("GET", "/session"): return session(request, engine: engine)
        default:
            let allowed = Self.assetPaths.contains(rest) ? "GET, HEAD" : rest == "/session" ? "GET" : nil
            guard let allowed else { return AdminAPI.error(404, "no inspector route \(request.path)") }
            var response = AdminAPI.error(405, "\(request.method) is not allowed on \(request.path); use \(allowed)")
            response.prepared = response.prepared.adding(HeaderFields([("Allow", allowed)]))
            return response
        }
    }

    /// What the page needs before anything else: must it ask for the token, and is the one it
    /// sent (if any) right? The page checks a token typed into its form here.
    private func session(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        let protection = engine.options.admin
        let authenticated = protection.token.map { AdminProtection.carries(request, token: $0) } ?? true
        var response = AdminAPI.json(
            200,
            .object([
                ("tokenRequired", .bool(protection.token != nil)),
                ("authenticated", .bool(authenticated)),
                ("journal", .number(engine.journal.capacity)),
                ("version", .string(engine.options.version)),
            ])
        )
        response.prepared = response.prepared.adding(HeaderFields([("Cache-Control", "no-store")]))
        return response
    }
}

/// The page, script and style (`Assets/`, embedded at build time by the `EmbedAssets` plugin),
/// each prepared once with the headers that keep the page to itself: a Content-Security-Policy
/// that allows nothing but this server (no inline script, no other origin, no framing), no
/// sniffing, no referrer.
package enum InspectorAssets {
    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cache-Control", "no-cache"),
    ]

    static let page = asset("text/html; charset=utf-8", EmbeddedAssets.indexHTML)
    static let style = asset("text/css; charset=utf-8", EmbeddedAssets.appCSS)
    static let script = asset("text/javascript; charset=utf-8", EmbeddedAssets.appJS)

    static func asset(_ type: String, _ text: String) -> OutgoingResponse {
        OutgoingResponse(
            status: 200,
            headers: HeaderFields([("Content-Type", type)] + securityHeaders),
            body: Array(text.utf8)
        )
    }

    /// Bytes the page loads: page, script and style.
    package static var weight: Int {
        page.prepared.body.count + script.prepared.body.count + style.prepared.body.count
    }
}
