import Foundation
import TestSupport
import XCTest

/// `--proxy` and stubs that forward, through the binary users run: an http upstream with the
/// header flags and `--preserve-host`, and an https upstream through OpenSSL with `--proxy-ca`
/// (in the test process Foundation is loaded; in the shipped binary only what it links is).
final class BinaryProxyTests: XCTestCase {
    private static let okay = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Upstream: yes\r\n\r\nok".utf8)

    func testTheHeaderFlagsAndPreserveHostShapeWhatTheHTTPUpstreamGets() throws {
        let upstream = try ScriptedUpstream { _ in [.send(Self.okay)] }
        defer { upstream.stop() }
        let server = try BinaryServing(
            self,
            files: ["stubs.json": #"[{"request": {"path": "/stubbed"}, "response": {"body": "stub"}}]"#],
            [
                "--proxy", "http://127.0.0.1:\(upstream.port)/base", "--proxy-header", "X-Env: staging",
                "--proxy-remove-header", "X-Debug", "--preserve-host",
            ]
        )
        let response = try server.exchange(
            "GET /v1/items?page=2&q=a%20b HTTP/1.1\r\nHost: app.test\r\nX-Debug: 1\r\nX-Env: prod\r\n"
                + "X-Keep: yes\r\n\r\n"
        )
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.text, "ok")
        XCTAssertEqual(response.header("X-Upstream"), "yes")
        let forwarded = try XCTUnwrap(upstream.requests.first)
        XCTAssertEqual(forwarded.target, "/base/v1/items?page=2&q=a%20b", "the query as sent, under the base path")
        XCTAssertEqual(forwarded.values("X-Env"), ["staging"], "--proxy-header replaces the client's value")
        XCTAssertNil(forwarded.header("X-Debug"))
        XCTAssertEqual(forwarded.header("X-Keep"), "yes")
        XCTAssertEqual(forwarded.header("Host"), "app.test")
        // Stubs still win over the upstream.
        XCTAssertEqual(try server.get("/stubbed").text, "stub")
        XCTAssertEqual(upstream.requests.count, 1)
        // The journal says what was forwarded.
        let journal = try server.get("/__admin/requests")
        XCTAssertTrue(journal.text.contains("\"proxy\""), journal.text)
    }

    func testWithoutPreserveHostTheUpstreamGetsItsOwnAuthority() throws {
        let upstream = try ScriptedUpstream { _ in [.send(Self.okay)] }
        defer { upstream.stop() }
        let server = try BinaryServing(self, ["--proxy", "http://127.0.0.1:\(upstream.port)"])
        XCTAssertEqual(try server.exchange("GET /x HTTP/1.1\r\nHost: app.test\r\n\r\n").status, 200)
        XCTAssertEqual(upstream.requests.first?.header("Host"), "127.0.0.1:\(upstream.port)")
    }

    func testAnHTTPSUpstreamThroughOpenSSLWithTheCAFlag() throws {
        #if !os(Linux)
        throw XCTSkip("the OpenSSL path is Linux's")
        #else
        let upstream = try TLSUpstream()
        defer { upstream.stop() }
        let server = try BinaryServing(
            self,
            ["--proxy", "https://localhost:\(upstream.port)", "--proxy-ca", upstream.caFile]
        )
        let response = try server.get("/secure?x=1")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Encoding"), "gzip", "the body passes as the upstream sent it")
        XCTAssertEqual(response.body.prefix(2), [0x1f, 0x8b], "gzip's magic bytes")
        XCTAssertEqual(
            response.headers.filter { $0.0 == "Set-Cookie" }.map(\.1),
            ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"]
        )
        XCTAssertEqual(response.header("X-Seen-Host"), "localhost:\(upstream.port)")
        XCTAssertEqual(response.header("X-Seen-Path"), "/secure?x=1")
        #endif
    }

    func testAnHTTPSUpstreamWithoutTheCAIsA502ThatSaysWhy() throws {
        #if !os(Linux)
        throw XCTSkip("the OpenSSL path is Linux's")
        #else
        let upstream = try TLSUpstream()
        defer { upstream.stop() }
        let server = try BinaryServing(self, ["--proxy", "https://localhost:\(upstream.port)"])
        let response = try server.get("/secure")
        XCTAssertEqual(response.status, 502)
        XCTAssertTrue(response.text.contains("certificate verify failed"), response.text)
        #endif
    }

    /// A stub whose response is a forward, to an https upstream, with its prefix stripped.
    func testAStubThatForwardsToAnHTTPSUpstream() throws {
        #if !os(Linux)
        throw XCTSkip("the OpenSSL path is Linux's")
        #else
        let upstream = try TLSUpstream()
        defer { upstream.stop() }
        let stub = """
            [{"request": {"path": "/legacy/**"},
              "response": {"proxy": {"to": "https://127.0.0.1:\(upstream.port)/v2", "stripPrefix": "/legacy"}}}]
            """
        let server = try BinaryServing(self, files: ["legacy.json": stub], ["--proxy-ca", upstream.caFile])
        let response = try server.get("/legacy/users/7")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("X-Seen-Path"), "/v2/users/7")
        XCTAssertEqual(try server.get("/other").status, 404, "no --proxy: what no stub matches is a 404")
        #endif
    }
}
