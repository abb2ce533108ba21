import Foundation
import HTTP1
import HTTPSockets
import Inspector
import NativeStubs
import StubAdmin
import StubEngine
import TestSupport
import XCTest

/// The inspector in a browser, on the wire: the page and its assets (strict policy, no other
/// origin), and the token the page keeps in the tab and sends as a Bearer header (no cookie).
final class InspectorAccessTests: XCTestCase {
    func serve(token: String?) throws -> (HTTP1Server, Engine) {
        var options = Engine.Options(adminToken: token)
        options.adminRoutes = NativeAdmin.routeSets() + [InspectorRoutes()]
        let engine = Engine(stubs: [], options: options)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return (server, engine)
    }

    func send(
        _ server: HTTP1Server,
        _ method: String,
        _ target: String,
        headers: [String] = [],
        body: String? = nil
    ) throws -> WireResponse {
        let c = try WireConnection(port: server.port)
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        c.send(text + "\r\n" + (body ?? ""))
        return try c.readResponse(isHead: method == "HEAD")
    }

    func testThePageAndItsAssetsAreServedWithAStrictPolicy() throws {
        let (server, _) = try serve(token: nil)
        for (path, type) in [
            ("/__admin/ui", "text/html"), ("/__admin/ui/app.js", "text/javascript"),
            ("/__admin/ui/app.css", "text/css"),
        ] {
            let response = try send(server, "GET", path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertTrue(response.header("Content-Type")?.hasPrefix(type) == true, path)
            let policy = try XCTUnwrap(response.header("Content-Security-Policy"), path)
            XCTAssertTrue(
                policy.contains("default-src 'none'") && policy.contains("script-src 'self'")
                    && policy.contains("connect-src 'self'"),
                policy
            )
            XCTAssertFalse(policy.contains("unsafe-inline"), "no inline script or style is allowed")
            XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff")
            // Nothing names another origin: the page loads only from this server.
            XCTAssertFalse(
                response.text.contains("http://") || response.text.contains("https://")
                    || response.text.contains("//cdn"),
                path
            )
        }
        let page = try send(server, "GET", "/__admin/ui").text
        XCTAssertFalse(
            page.contains("<script>") || page.contains(" style=") || page.contains(" onclick="),
            "no inline script or style in the page"
        )
        XCTAssertTrue(page.contains(#"<script src="ui/app.js" defer></script>"#))
        XCTAssertTrue(
            page.contains(#"<link rel="icon" href="data:,">"#),
            "no favicon request reaches the stubs (and the journal)"
        )
        let slash = try send(server, "GET", "/__admin/ui/")
        XCTAssertEqual(slash.status, 308)
        XCTAssertEqual(slash.header("Location"), "../ui", "relative, so it survives a proxy's path prefix")
        XCTAssertEqual(try send(server, "HEAD", "/__admin/ui").status, 200)
        XCTAssertEqual(try send(server, "POST", "/__admin/ui/app.js").status, 405)
        XCTAssertEqual(try send(server, "GET", "/__admin/ui/nothing").status, 404)
        XCTAssertLessThan(InspectorAssets.weight, 150 * 1024, "page weight")
    }

    /// The page, script and style are the files in Sources/Inspector/Assets byte for byte:
    /// the `EmbedAssets` plugin embeds them at build time and nothing rewrites them on the way.
    func testTheServedAssetsAreTheFilesInThePackage() throws {
        let (server, _) = try serve(token: nil)
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Inspector/Assets")
        for (path, file) in [
            ("/__admin/ui", "index.html"), ("/__admin/ui/app.js", "app.js"), ("/__admin/ui/app.css", "app.css"),
        ] {
            let expected = try Data(contentsOf: assets.appendingPathComponent(file))
            let response = try send(server, "GET", path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertEqual(response.header("Content-Length"), String(expected.count), path)
            XCTAssertEqual(Data(response.body), expected, "\(path) is \(file) byte for byte")
        }
    }

    func testWithATokenThePageLoadsButDataNeedsTheLogin() throws {
        let (server, _) = try serve(token: "s3cret")
        XCTAssertEqual(try send(server, "GET", "/__admin/ui").status, 200, "the login must load without the token")
        XCTAssertEqual(try send(server, "GET", "/__admin/ui/app.js").status, 200)
        for path in [
            "/__admin/requests", "/__admin/stubs", "/__admin/scenarios", "/__admin/events", "/__admin/requests/1",
        ] {
            XCTAssertEqual(try send(server, "GET", path).status, 401, path)
        }
        let session = try send(server, "GET", "/__admin/ui/session")
        XCTAssertTrue(
            session.text.contains(#""tokenRequired":true"#) && session.text.contains(#""authenticated":false"#),
            session.text
        )
        // Scripts keep using the Bearer header.
        XCTAssertEqual(
            try send(server, "GET", "/__admin/requests", headers: ["Authorization: Bearer s3cret"]).status,
            200
        )
    }

    /// The page checks a typed token with `session`; no route sets a cookie, and the event
    /// stream takes the token as a header (the page reads it with fetch, not EventSource).
    func testTheTokenIsAHeaderAndNothingSetsACookie() throws {
        let (server, _) = try serve(token: "s3cret")
        let auth = "Authorization: Bearer s3cret"
        let wrong = try send(server, "GET", "/__admin/ui/session", headers: ["Authorization: Bearer guess"])
        XCTAssertTrue(wrong.text.contains(#""authenticated":false"#), wrong.text)
        let right = try send(server, "GET", "/__admin/ui/session", headers: [auth])
        XCTAssertTrue(right.text.contains(#""authenticated":true"#), right.text)
        XCTAssertEqual(right.header("Cache-Control"), "no-store")
        for path in ["/__admin/ui", "/__admin/ui/session", "/__admin/requests", "/__admin/health"] {
            XCTAssertNil(try send(server, "GET", path, headers: [auth]).header("Set-Cookie"), path)
        }
        for path in ["/__admin/ui/login", "/__admin/ui/logout"] {
            XCTAssertEqual(
                try send(server, "POST", path, headers: [auth]).status,
                404,
                "no cookie login any more: \(path)"
            )
        }
        let stream = try EventStreamReader(port: server.port, target: "/__admin/events", headers: [auth])
        XCTAssertTrue(stream.wait { !$0.named("hello").isEmpty })
        XCTAssertEqual(stream.head?.status, 200)
        let refused = try EventStreamReader(port: server.port, target: "/__admin/events")
        XCTAssertTrue(refused.wait { $0.head != nil })
        XCTAssertEqual(refused.head?.status, 401)
    }
}
