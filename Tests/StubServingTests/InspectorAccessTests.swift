import Foundation
import HTTP1
import HTTPServer
import StubEngine
import TestSupport
import XCTest

/// The inspector in a browser, on the wire: the page and its assets (strict policy, no other
/// origin), the login that turns the admin token into a session cookie, and the refusal of
/// cookie-carried requests that change something without the page's header (CSRF).
final class InspectorAccessTests: XCTestCase {
    func serve(token: String?) throws -> (HTTP1Server, Engine) {
        let engine = Engine(stubs: [], options: Engine.Options(adminToken: token))
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return (server, engine)
    }

    func send(_ server: HTTP1Server, _ method: String, _ target: String, headers: [String] = [], body: String? = nil) throws -> WireResponse {
        let c = try WireConnection(port: server.port)
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        c.send(text + "\r\n" + (body ?? ""))
        return try c.readResponse(isHead: method == "HEAD")
    }

    func login(_ server: HTTP1Server, token: String) throws -> String {
        let response = try send(server, "POST", "/__admin/ui/login", headers: ["X-Stubserver-UI: 1", "Content-Type: application/json"],
                                body: #"{"token": "\#(token)"}"#)
        XCTAssertEqual(response.status, 200, response.text)
        let cookie = try XCTUnwrap(response.header("Set-Cookie"))
        return String(cookie.prefix { $0 != ";" })
    }

    func testThePageAndItsAssetsAreServedWithAStrictPolicy() throws {
        let (server, _) = try serve(token: nil)
        for (path, type) in [("/__admin/ui", "text/html"), ("/__admin/ui/app.js", "text/javascript"), ("/__admin/ui/app.css", "text/css")] {
            let response = try send(server, "GET", path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertTrue(response.header("Content-Type")?.hasPrefix(type) == true, path)
            let policy = try XCTUnwrap(response.header("Content-Security-Policy"), path)
            XCTAssertTrue(policy.contains("default-src 'none'") && policy.contains("script-src 'self'") && policy.contains("connect-src 'self'"), policy)
            XCTAssertFalse(policy.contains("unsafe-inline"), "no inline script or style is allowed")
            XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff")
            // Nothing names another origin: the page loads only from this server.
            XCTAssertFalse(response.text.contains("http://") || response.text.contains("https://") || response.text.contains("//cdn"), path)
        }
        let page = try send(server, "GET", "/__admin/ui").text
        XCTAssertFalse(page.contains("<script>") || page.contains(" style=") || page.contains(" onclick="), "no inline script or style in the page")
        XCTAssertTrue(page.contains(#"<script src="ui/app.js" defer></script>"#))
        XCTAssertTrue(page.contains(#"<link rel="icon" href="data:,">"#), "no favicon request reaches the stubs (and the journal)")
        let slash = try send(server, "GET", "/__admin/ui/")
        XCTAssertEqual(slash.status, 308)
        XCTAssertEqual(slash.header("Location"), "../ui", "relative, so it survives a proxy's path prefix")
        XCTAssertEqual(try send(server, "HEAD", "/__admin/ui").status, 200)
        XCTAssertEqual(try send(server, "POST", "/__admin/ui/app.js").status, 405)
        XCTAssertEqual(try send(server, "GET", "/__admin/ui/nothing").status, 404)
        XCTAssertLessThan(InspectorAssets.weight, 150 * 1024, "page weight")
    }

    func testWithATokenThePageLoadsButDataNeedsTheLogin() throws {
        let (server, _) = try serve(token: "s3cret")
        XCTAssertEqual(try send(server, "GET", "/__admin/ui").status, 200, "the login must load without the token")
        XCTAssertEqual(try send(server, "GET", "/__admin/ui/app.js").status, 200)
        for path in ["/__admin/requests", "/__admin/stubs", "/__admin/scenarios", "/__admin/events", "/__admin/requests/1"] {
            XCTAssertEqual(try send(server, "GET", path).status, 401, path)
        }
        let session = try send(server, "GET", "/__admin/ui/session")
        XCTAssertTrue(session.text.contains(#""tokenRequired":true"#) && session.text.contains(#""authenticated":false"#), session.text)
        // Scripts keep using the Bearer header.
        XCTAssertEqual(try send(server, "GET", "/__admin/requests", headers: ["Authorization: Bearer s3cret"]).status, 200)
    }

    func testTheLoginSetsAnHttpOnlyStrictCookieThatEveryAdminRouteAccepts() throws {
        let (server, _) = try serve(token: "s3cret")
        let wrong = try send(server, "POST", "/__admin/ui/login", headers: ["X-Stubserver-UI: 1"], body: #"{"token": "guess"}"#)
        XCTAssertEqual(wrong.status, 401)
        XCTAssertNil(wrong.header("Set-Cookie"))
        let right = try send(server, "POST", "/__admin/ui/login", headers: ["X-Stubserver-UI: 1"], body: #"{"token": "s3cret"}"#)
        let setCookie = try XCTUnwrap(right.header("Set-Cookie"))
        XCTAssertTrue(setCookie.hasPrefix("stubserver_admin_\(server.port)="), setCookie)
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/__admin"] { XCTAssertTrue(setCookie.contains(attribute), setCookie) }
        XCTAssertFalse(setCookie.contains("s3cret"), "the cookie is a session id, not the token")
        let cookie = "Cookie: theme=dark; " + String(setCookie.prefix { $0 != ";" })
        for path in ["/__admin/requests", "/__admin/stubs", "/__admin/scenarios", "/__admin/health"] {
            XCTAssertEqual(try send(server, "GET", path, headers: [cookie]).status, 200, path)
        }
        let stream = try EventStreamReader(port: server.port, target: "/__admin/events", headers: [cookie])
        XCTAssertTrue(stream.wait { !$0.named("hello").isEmpty })
        XCTAssertEqual(stream.head?.status, 200)
        XCTAssertTrue(try send(server, "GET", "/__admin/ui/session", headers: [cookie]).text.contains(#""authenticated":true"#))
        // Logging out ends the session on the server, whatever the browser keeps.
        let out = try send(server, "POST", "/__admin/ui/logout", headers: [cookie, "X-Stubserver-UI: 1"])
        XCTAssertTrue(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
        XCTAssertEqual(try send(server, "GET", "/__admin/requests", headers: [cookie]).status, 401)
        XCTAssertEqual(try send(server, "GET", "/__admin/requests", headers: ["Cookie: stubserver_admin_1=forged"]).status, 401)
    }

    func testACookieAloneCannotChangeAnything() throws {
        let (server, engine) = try serve(token: "s3cret")
        let cookie = "Cookie: " + (try login(server, token: "s3cret"))
        _ = try send(server, "GET", "/recorded")
        XCTAssertEqual(engine.journal.entries.count, 1)
        for (method, path, body) in [("DELETE", "/__admin/requests", nil), ("POST", "/__admin/reset", nil),
                                     ("POST", "/__admin/stubs", #"{"response": {}}"#), ("PUT", "/__admin/scenarios/s", #"{"state": "x"}"#)] {
            let refused = try send(server, method, path, headers: [cookie], body: body)
            XCTAssertEqual(refused.status, 403, "\(method) \(path)")
            XCTAssertTrue(refused.text.contains("X-Stubserver-UI"), refused.text)
        }
        XCTAssertEqual(engine.journal.entries.count, 1, "nothing was cleared")
        XCTAssertEqual(engine.catalog.count, 0, "nothing was added")
        // The login itself needs the header too (no logging a browser in from another site).
        XCTAssertEqual(try send(server, "POST", "/__admin/ui/login", body: #"{"token": "s3cret"}"#).status, 403)
        // With the page's header it goes through; with the token it always did.
        XCTAssertEqual(try send(server, "DELETE", "/__admin/requests", headers: [cookie, "X-Stubserver-UI: 1"]).status, 200)
        XCTAssertEqual(try send(server, "POST", "/__admin/reset", headers: ["Authorization: Bearer s3cret"]).status, 200)
    }
}
