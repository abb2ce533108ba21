import Foundation
import HTTP1
import HTTPSockets
import Inspector
import NativeStubs
import StubAdmin
import StubAuthoring
@testable import StubEngine
import TestSupport
import WireMock
import XCTest

/// What a web page in the developer's browser can do to the admin API, over real sockets: a
/// cross-site "simple" request, a form post, a rebound host name, a cross-site Origin on every
/// state-changing route. Each is refused, changes nothing, and is journaled as refused.
final class AdminProtectionTests: XCTestCase {
    /// One per test (XCTest makes an instance for each), plugged into the engine `serve` makes.
    let recorder = Recorder()

    func serve(_ protection: AdminProtection = AdminProtection(), cors: Bool = false) throws -> (HTTP1Server, Engine) {
        var options = Engine.Options(cors: cors ? CORSPolicy() : nil)
        options.admin = protection
        options.adminRoutes = [WireMockDialect().adminRoutes] + NativeAdmin.routeSets() + [InspectorRoutes()]
        options.addRecorder(recorder)
        let engine = Engine(stubs: [], options: options)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return (server, engine)
    }

    /// One request with exactly these header lines (Host included: the test chooses it).
    func send(
        _ server: HTTP1Server,
        _ method: String,
        _ target: String,
        host: String? = nil,
        _ headers: [String] = [],
        body: String = ""
    ) throws -> WireResponse {
        let c = try WireConnection(port: server.port)
        var text = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(server.port)")\r\n"
        for header in headers { text += header + "\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { text += "Content-Length: \(body.utf8.count)\r\n" }
        c.send(text + "\r\n" + body)
        return try c.readResponse(isHead: method == "HEAD")
    }

    let pwn = #"{"request": {"path": "/pwn"}, "response": {"body": "attacker's body"}}"#

    func testACrossSiteSimpleRequestCannotAddAStub() throws {
        let (server, engine) = try serve()
        let refused = try send(
            server,
            "POST",
            "/__admin/stubs",
            ["Origin: http://evil.example", "Content-Type: text/plain"],
            body: pwn
        )
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertTrue(refused.text.contains("--admin-origin http://evil.example"), refused.text)
        XCTAssertNil(refused.header("Access-Control-Allow-Origin"))
        XCTAssertEqual(engine.catalog.count, 0)
        XCTAssertEqual(try send(server, "GET", "/pwn").status, 404, "the attacker's stub does not serve")
        // The attempt is in the journal, as refused, for the developer to see.
        let entry = try XCTUnwrap(engine.journal.entries.first { $0.path == "/__admin/stubs" })
        XCTAssertEqual(entry.status, 403)
        XCTAssertEqual(entry.refusal, "cross-site request from http://evil.example")
        XCTAssertFalse(entry.isUnmatched, "a refused admin request is not an unmatched stub request")
        let listed = try send(server, "GET", "/__admin/requests").text
        XCTAssertTrue(listed.contains(#""refused":"cross-site request from http://evil.example""#), listed)
        // Verification counts what the app sent: a page's refused attempt does not count.
        let count = try send(
            server,
            "POST",
            "/__admin/requests/count",
            ["Content-Type: application/json"],
            body: #"{"method": "POST"}"#
        )
        XCTAssertEqual(count.text, #"{"count":0}"#)
    }

    func testAPlainTextBodyWithoutOriginIsRefusedForItsType() throws {
        // An old browser may send no Origin: the body's type alone keeps it out.
        let (server, engine) = try serve()
        let refused = try send(server, "POST", "/__admin/stubs", ["Content-Type: text/plain"], body: pwn)
        XCTAssertEqual(refused.status, 415, refused.text)
        XCTAssertTrue(refused.text.contains("Content-Type: application/json"), refused.text)
        XCTAssertEqual(engine.catalog.count, 0)
        let accepted = try send(
            server,
            "POST",
            "/__admin/stubs",
            ["Content-Type: application/json; charset=utf-8"],
            body: pwn
        )
        XCTAssertEqual(accepted.status, 201, "scripts that send JSON and no Origin are unaffected")
    }

    func testAFormPostCannotReset() throws {
        let (server, engine) = try serve()
        _ = try send(server, "GET", "/recorded")
        let form = ["Content-Type: application/x-www-form-urlencoded"]
        XCTAssertEqual(try send(server, "POST", "/__admin/reset", form, body: "a=b").status, 415)
        XCTAssertEqual(try send(server, "POST", "/__admin/reset", form).status, 415, "an empty form is still a form")
        XCTAssertEqual(
            try send(server, "POST", "/__admin/reset", ["Origin: http://evil.example"] + form, body: "a=b").status,
            403
        )
        XCTAssertEqual(
            try send(server, "POST", "/__admin/reset", ["Content-Type: multipart/form-data; boundary=x"], body: "--x--")
                .status,
            415
        )
        XCTAssertTrue(engine.journal.entries.contains { $0.path == "/recorded" }, "nothing was reset")
        XCTAssertEqual(
            try send(server, "POST", "/__admin/reset").status,
            200,
            "no body and no type: curl -X POST still works"
        )
    }

    func testAReboundHostReadsNothing() throws {
        let (server, engine) = try serve()
        _ = try send(server, "GET", "/secret", ["Authorization: Bearer app-token"])
        let rebound = "attacker.example:\(server.port)"
        for path in [
            "/__admin/requests", "/__admin/stubs", "/__admin/events", "/__admin/ui", "/__admin/ui/app.js",
            "/__admin/health",
        ] {
            let response = try send(server, "GET", path, host: rebound)
            XCTAssertEqual(response.status, 403, path)
            XCTAssertFalse(response.text.contains("app-token"), path)
            XCTAssertTrue(response.text.contains("--allowed-host attacker.example"), response.text)
        }
        XCTAssertEqual(try send(server, "POST", "/__admin/reset", host: rebound).status, 403)
        XCTAssertTrue(engine.journal.entries.contains { $0.path == "/secret" })
        // Stub traffic is not restricted: an app may call the server by any name.
        XCTAssertEqual(try send(server, "GET", "/anything", host: rebound).status, 404)
        XCTAssertNil(engine.journal.entries.last?.refusal)
    }

    func testHostsThatAreThisMachineAreAnswered() throws {
        let (server, _) = try serve(AdminProtection(allowedHosts: ["mac.local", ".dev.test"]))
        let port = server.port
        for host in [
            "localhost:\(port)", "LOCALHOST", "localhost.", "app.localhost:\(port)", "127.0.0.1:\(port)",
            "[::1]:\(port)",
            "10.0.2.2:\(port)", "192.168.1.20", "mac.local:\(port)", "Mac.Local", "a.dev.test", "dev.test",
        ] {
            XCTAssertEqual(try send(server, "GET", "/__admin/health", host: host).status, 200, host)
        }
        for host in ["localhost.attacker.example", "127.0.0.1.nip.io", "mac.local.evil", "evildev.test", "0x7f.1"] {
            XCTAssertEqual(try send(server, "GET", "/__admin/health", host: host).status, 403, host)
        }
    }

    /// Every route that changes something, in both admin dialects, refuses a page of another
    /// origin (and a browser that says cross-site without an Origin).
    func testEveryStateChangingRouteRefusesACrossSiteOrigin() throws {
        let (server, engine) = try serve()
        let added = try send(
            server,
            "POST",
            "/__admin/stubs",
            ["Content-Type: application/json"],
            body: #"{"request": {"path": "/keep"}, "response": {}}"#
        )
        XCTAssertEqual(added.status, 201, added.text)
        let id = try XCTUnwrap(engine.catalog.stubs.first?.id)
        _ = try send(server, "GET", "/recorded")
        let routeSets = NativeAdmin.routeSets() + [WireMockDialect().adminRoutes, RecordingRoutes(recorder: recorder)]
        let routes = routeSets.flatMap(\.routes).filter {
            !["GET", "HEAD", "OPTIONS"].contains($0.method)
        }
        XCTAssertGreaterThan(routes.count, 25)
        for route in routes {
            let path = route.path.replacingOccurrences(of: "{id}", with: id).replacingOccurrences(
                of: "{name}",
                with: "s"
            )
            for headers in [
                ["Origin: http://evil.example"], ["Origin: null"], ["Origin: http://127.0.0.1:1"],
                ["Sec-Fetch-Site: cross-site"], ["Sec-Fetch-Site: same-site"],
            ] {
                let response = try send(
                    server,
                    route.method,
                    path,
                    headers + ["Content-Type: application/json"],
                    body: "{}"
                )
                XCTAssertEqual(response.status, 403, "\(route.method) \(path) \(headers)")
            }
        }
        XCTAssertEqual(engine.catalog.stubs.map(\.id), [id], "nothing was added, replaced or removed")
        XCTAssertTrue(engine.journal.entries.contains { $0.path == "/recorded" }, "nothing was cleared")
        XCTAssertFalse(recorder.isRecording, "no recording was started")
    }

    func testTheServersOwnOriginAndNamedOriginsMayChangeThings() throws {
        let (server, _) = try serve(AdminProtection(allowedOrigins: ["http://localhost:3000/"]))
        let json = ["Content-Type: application/json"]
        let own = try send(
            server,
            "POST",
            "/__admin/scenarios/reset",
            ["Origin: http://127.0.0.1:\(server.port)"] + json
        )
        XCTAssertEqual(own.status, 200, "the inspector's page is same-origin")
        let viaName = try send(
            server,
            "POST",
            "/__admin/scenarios/reset",
            host: "localhost:\(server.port)",
            ["Origin: http://localhost:\(server.port)", "Sec-Fetch-Site: same-origin"] + json
        )
        XCTAssertEqual(viaName.status, 200)
        XCTAssertEqual(
            try send(server, "POST", "/__admin/scenarios/reset", ["Origin: http://localhost:3000"] + json).status,
            200
        )
        XCTAssertEqual(
            try send(server, "POST", "/__admin/scenarios/reset", ["Origin: http://localhost:3001"] + json).status,
            403
        )
        // Reading needs no origin check (another origin cannot read the answer without CORS).
        XCTAssertEqual(try send(server, "GET", "/__admin/requests", ["Origin: http://evil.example"]).status, 200)
    }

    func testTheAdminAPISendsNoCORSHeadersEvenWithCors() throws {
        let (server, _) = try serve(cors: true)
        let preflight = try send(
            server,
            "OPTIONS",
            "/__admin/stubs",
            [
                "Origin: http://evil.example", "Access-Control-Request-Method: POST",
                "Access-Control-Request-Headers: content-type",
            ]
        )
        XCTAssertNil(preflight.header("Access-Control-Allow-Origin"), "no preflight is granted to the admin API")
        XCTAssertNil(preflight.header("Access-Control-Allow-Methods"))
        let read = try send(server, "GET", "/__admin/requests", ["Origin: http://evil.example"])
        XCTAssertNil(read.header("Access-Control-Allow-Origin"), "another origin cannot read the journal")
        // The stubs get them: that is what --cors is for.
        XCTAssertNotNil(
            try send(server, "GET", "/x", ["Origin: http://app.example"]).header("Access-Control-Allow-Origin")
        )
    }

    func testATokenIsNeededByEveryClientAndNeverJournaled() throws {
        let (server, engine) = try serve(AdminProtection(token: "s3cret"))
        XCTAssertEqual(try send(server, "GET", "/__admin/requests").status, 401)
        XCTAssertEqual(try send(server, "GET", "/__admin/requests", ["Authorization: Bearer s3cre"]).status, 401)
        XCTAssertEqual(try send(server, "GET", "/__admin/requests", ["Authorization: bearer s3cret"]).status, 200)
        // The page that asks for it loads without it; its data does not. Health probes need none.
        XCTAssertEqual(try send(server, "GET", "/__admin/ui").status, 200)
        XCTAssertEqual(try send(server, "GET", "/__admin/health").status, 200)
        XCTAssertEqual(try send(server, "GET", "/__admin/health", host: "attacker.example").status, 403)
        let session = try send(server, "GET", "/__admin/ui/session").text
        XCTAssertTrue(
            session.contains(#""tokenRequired":true"#) && session.contains(#""authenticated":false"#),
            session
        )
        // A cross-site page that somehow holds the token is still refused, and the journal keeps
        // that a token was sent, not the token.
        let stolen = try send(
            server,
            "POST",
            "/__admin/reset",
            ["Authorization: Bearer s3cret", "Origin: http://evil.example", "Content-Type: application/json"]
        )
        XCTAssertEqual(stolen.status, 403)
        let entry = try XCTUnwrap(engine.journal.entries.last)
        XCTAssertEqual(entry.headers["Authorization"], "(not kept)")
        XCTAssertFalse(String(decoding: entry.head, as: UTF8.self).contains("s3cret"), "nor its bytes as they came")
        XCTAssertFalse(
            try send(server, "GET", "/__admin/requests", ["Authorization: Bearer s3cret"]).text.contains("s3cret")
        )
    }
}
