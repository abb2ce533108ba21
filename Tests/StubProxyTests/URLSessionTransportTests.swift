import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubEngine
import StubProxy
@testable import StubProxyURLSession
import TestSupport
import XCTest

/// The URLSession transport (https where OpenSSL is missing, as on macOS), driven over http
/// here so its corrections are checked on Linux too: decoded bodies lose their stale
/// `Content-Encoding` and `Content-Length`, folded cookies are split again, no redirect is
/// followed.
final class URLSessionTransportTests: XCTestCase {
    private func serve(through upstream: ScriptedUpstream, timeoutMilliseconds: Int64 = 5_000) throws -> HTTP1Server {
        var options = Engine.Options()
        options.proxy = ProxyRule(
            upstream: try XCTUnwrap(UpstreamURL(upstreamURL(upstream))),
            timeoutMilliseconds: timeoutMilliseconds
        )
        let engine = Engine(stubs: [], options: options)
        engine.upstream.value = try URLSessionTransport()
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return server
    }

    private func get(_ server: HTTP1Server, _ path: String, extra: String = "") throws -> WireResponse {
        let c = try WireConnection(port: server.port)
        c.send("GET \(path) HTTP/1.1\r\nHost: a\r\n\(extra)\r\n")
        return try c.readResponse(timeoutMilliseconds: 10_000)
    }

    func testDecodedBodiesLoseTheirStaleEncoding() throws {
        let upstream = try ScriptedUpstream { _ in
            [.response(200, headers: [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")], body: helloGzip)]
        }
        let response = try get(try serve(through: upstream), "/gz")
        XCTAssertEqual(response.text, "hello gzip", "URLSession decoded it")
        XCTAssertNil(response.header("Content-Encoding"), "so the field would be a lie")
        XCTAssertEqual(response.header("Transfer-Encoding"), "chunked", "and the length is the server's own framing")
    }

    func testFoldedCookiesAreSplitAgain() throws {
        let cookies = ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/", "b=2"]
        let upstream = try ScriptedUpstream { _ in
            [.response(200, headers: cookies.map { ("Set-Cookie", $0) }, body: [])]
        }
        let response = try get(try serve(through: upstream), "/c")
        XCTAssertEqual(response.headers.filter { $0.0.lowercased() == "set-cookie" }.map(\.1), cookies)
    }

    func testRedirectsAreNotFollowed() throws {
        let upstream = try ScriptedUpstream { _ in
            [.response(302, "Found", headers: [("Location", "/elsewhere")], body: [])]
        }
        let response = try get(try serve(through: upstream), "/r")
        XCTAssertEqual(response.status, 302)
        XCTAssertEqual(response.header("Location"), "/elsewhere")
        XCTAssertEqual(upstream.requests.count, 1)
    }

    func testGetWithABodyIsRefusedWithAReason() throws {
        let upstream = try ScriptedUpstream { _ in [.response(200, body: [])] }
        let c = try WireConnection(port: try serve(through: upstream).port)
        c.send("GET /g HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}")
        let refused = try c.readResponse(timeoutMilliseconds: 10_000)
        XCTAssertEqual(refused.status, 502)
        XCTAssertTrue(refused.text.contains("GET with a body"))
    }

    func testSilentUpstreamGives504() throws {
        let upstream = try ScriptedUpstream { _ in [.hang] }
        let response = try get(try serve(through: upstream, timeoutMilliseconds: 1_000), "/slow")
        XCTAssertEqual(response.status, 504)
    }

    func testCookieSplittingKeepsExpiresDatesWhole() {
        XCTAssertEqual(
            URLSessionTransport.splitCookies("a=1; expires=Wed, 21 Oct 2026 07:28:00 GMT, b=2; Path=/, c=3"),
            ["a=1; expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2; Path=/", "c=3"]
        )
        XCTAssertEqual(URLSessionTransport.splitCookies("only=1"), ["only=1"])
        XCTAssertEqual(URLSessionTransport.splitCookies("a=x,y"), ["a=x,y"], "a comma not followed by name= stays")
        XCTAssertEqual(
            URLSessionTransport.splitCookies("a=1; Expires = Thursday, 22-Oct-26 07:28:00 GMT,b=2"),
            ["a=1; Expires = Thursday, 22-Oct-26 07:28:00 GMT", "b=2"]
        )
    }
}
