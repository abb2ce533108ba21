import Foundation
import HTTP1
import TestSupport
import XCTest

/// The proxy against loopback upstreams that answer byte for byte what each case needs: what
/// the client gets is what the upstream sent (status, body bytes, end-to-end fields), and what
/// the upstream gets is what the client sent plus `Host` and `X-Forwarded-*`.
final class ForwardingTests: XCTestCase {
    func testGzipWithContentLengthPassesUntouched() throws {
        let body = helloGzip
        let upstream = try ScriptedUpstream { _ in
            [
                .response(
                    200,
                    headers: [
                        ("Content-Type", "text/plain"), ("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding"),
                    ],
                    body: body
                )
            ]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /gz HTTP/1.1\r\nHost: app.test\r\nAccept-Encoding: gzip\r\n\r\n")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, body, "compressed bytes as sent: nothing decoded")
        XCTAssertEqual(response.header("Content-Encoding"), "gzip")
        XCTAssertEqual(response.header("Content-Length"), String(body.count))
        XCTAssertEqual(upstream.requests.first?.header("Accept-Encoding"), "gzip")
    }

    func testChunkedBodyArrivesWhole() throws {
        let upstream = try ScriptedUpstream { _ in
            [
                .send(
                    Array(
                        """
                        HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: \
                        text/plain\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n
                        """
                        .utf8
                    )
                )
            ]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /chunked HTTP/1.1\r\nHost: app.test\r\n\r\n")
        XCTAssertEqual(response.text, "hello, world")
        XCTAssertEqual(
            endToEnd(response.headers).filter { !$0.hasPrefix("Date") && !$0.hasPrefix("Server") },
            ["Content-Type: text/plain"]
        )
    }

    func test204And304CarryNoBody() throws {
        let upstream = try ScriptedUpstream { request in
            request.target == "/204"
                ? [.response(204, "No Content", headers: [("X-Id", "1")], contentLength: false)]
                : [
                    .response(
                        304,
                        "Not Modified",
                        headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=60")],
                        contentLength: false
                    )
                ]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let c = try proxy.connect()
        c.send(
            """
            GET /204 HTTP/1.1\r\nHost: app.test\r\n\r\nGET /304 HTTP/1.1\r\nHost: app.test\r\nIf-None-Match: \
            \"v1\"\r\n\r\n
            """
        )
        let noContent = try c.readResponse()
        XCTAssertEqual(noContent.status, 204)
        XCTAssertEqual(noContent.header("X-Id"), "1")
        XCTAssertNil(noContent.header("Content-Length"))
        XCTAssertNil(noContent.header("Transfer-Encoding"))
        let notModified = try c.readResponse()
        XCTAssertEqual(notModified.status, 304)
        XCTAssertEqual(notModified.header("ETag"), "\"v1\"")
        XCTAssertEqual(notModified.body, [])
        XCTAssertTrue(c.staysSilent(milliseconds: 100), "no stray body bytes after either")
        XCTAssertEqual(upstream.requests.last?.header("If-None-Match"), "\"v1\"")
    }

    func testHeadKeepsTheDeclaredLengthAndSendsNoBody() throws {
        let upstream = try ScriptedUpstream { _ in
            [.send(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1234\r\n\r\n".utf8))]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let c = try proxy.connect()
        c.send("HEAD /thing HTTP/1.1\r\nHost: app.test\r\n\r\n")
        let response = try c.readResponse(isHead: true)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Length"), "1234")
        XCTAssertTrue(c.staysSilent(milliseconds: 100))
        XCTAssertEqual(upstream.requests.first?.method, "HEAD")
    }

    func testRedirectGoesBackAsItCame() throws {
        let upstream = try ScriptedUpstream { _ in
            [.response(302, "Found", headers: [("Location", "../login?next=%2Fa")], body: Array("moved".utf8))]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /app/home HTTP/1.1\r\nHost: app.test\r\n\r\n")
        XCTAssertEqual(response.status, 302)
        XCTAssertEqual(response.statusLine, "HTTP/1.1 302 Found")
        XCTAssertEqual(response.header("Location"), "../login?next=%2Fa", "relative, unresolved")
        XCTAssertEqual(response.text, "moved")
        XCTAssertEqual(upstream.requests.count, 1, "no redirect followed")
    }

    func testTwoSetCookiesWithExpiresStayTwo() throws {
        let cookies = [
            "session=abc; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Path=/; HttpOnly",
            "theme=dark; Expires=Thu, 22 Oct 2026 07:28:00 GMT",
        ]
        let upstream = try ScriptedUpstream { _ in
            [.response(200, headers: cookies.map { ("Set-Cookie", $0) }, body: Array("ok".utf8))]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /login HTTP/1.1\r\nHost: app.test\r\n\r\n")
        XCTAssertEqual(response.headers.filter { $0.0 == "Set-Cookie" }.map(\.1), cookies)
    }

    func testOneMebibyteOfBinaryIsByteExact() throws {
        var generator = SystemRandomNumberGenerator()
        let body = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let upstream = try ScriptedUpstream { _ in
            [.response(200, headers: [("Content-Type", "application/octet-stream")], body: body)]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /blob HTTP/1.1\r\nHost: app.test\r\n\r\n")
        XCTAssertEqual(response.header("Content-Length"), String(1 << 20))
        XCTAssertTrue(response.body == body, "the same 1 MiB")
    }

    func testGetWithABodyForwardsTheBody() throws {
        let upstream = try ScriptedUpstream { _ in [.response(200, body: Array("seen".utf8))] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange(
            """
            GET /search HTTP/1.1\r\nHost: app.test\r\nContent-Type: application/json\r\nContent-Length: \
            13\r\n\r\n{\"q\":\"swift\"}
            """
        )
        XCTAssertEqual(response.status, 200)
        let seen = try XCTUnwrap(upstream.requests.first)
        XCTAssertEqual(seen.method, "GET")
        XCTAssertEqual(String(decoding: seen.body, as: UTF8.self), "{\"q\":\"swift\"}")
        XCTAssertEqual(seen.header("Content-Length"), "13")
    }

    func testExpectContinueIsAnsweredAndNotForwarded() throws {
        let upstream = try ScriptedUpstream { _ in [.response(201, "Created", body: Array("made".utf8))] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let c = try proxy.connect()
        c.send("POST /upload HTTP/1.1\r\nHost: app.test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = c.readUntil(suffix: "\r\n\r\n")
        XCTAssertEqual(String(decoding: interim, as: UTF8.self), "HTTP/1.1 100 Continue\r\n\r\n")
        c.send("hello")
        let response = try c.readResponse()
        XCTAssertEqual(response.status, 201)
        let seen = try XCTUnwrap(upstream.requests.first)
        XCTAssertEqual(seen.body, Array("hello".utf8))
        XCTAssertNil(seen.header("Expect"), "the proxy has the body already")
    }

    func testUnusualCasingAndRepeatedFieldsPassAsTheyCame() throws {
        let upstream = try ScriptedUpstream { _ in
            [.response(200, headers: [("x-UPSTREAM-casing", "Kept"), ("Vary", "A"), ("Vary", "B")], body: [])]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange(
            "GET /c HTTP/1.1\r\nHost: app.test\r\nx-CuStOm-HeAdEr: 1\r\nX-Trace: a\r\nX-Trace: b\r\n\r\n"
        )
        XCTAssertEqual(response.headers.first { $0.0 == "x-UPSTREAM-casing" }?.1, "Kept")
        XCTAssertEqual(response.headers.filter { $0.0 == "Vary" }.map(\.1), ["A", "B"])
        let seen = try XCTUnwrap(upstream.requests.first)
        XCTAssertTrue(seen.names.contains("x-CuStOm-HeAdEr"))
        XCTAssertEqual(seen.values("X-Trace"), ["a", "b"])
    }

    func testUpstreamSeesOnlyTheClientsFieldsPlusHostAndForwarded() throws {
        let upstream = try ScriptedUpstream { _ in [.response(200, body: [])] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream) + "/base")
        _ = try proxy.exchange(
            """
            GET /v1/items?page=2&q=a%20b HTTP/1.1\r
            Host: app.test:8080\r
            Accept: application/json\r
            Authorization: Bearer t\r
            Connection: keep-alive, X-Hop\r
            X-Hop: gone\r
            Keep-Alive: timeout=5\r
            TE: trailers\r
            Upgrade: websocket\r
            Proxy-Authorization: Basic eA==\r
            \r

            """
        )
        let seen = try XCTUnwrap(upstream.requests.first)
        XCTAssertEqual(seen.target, "/base/v1/items?page=2&q=a%20b", "base path, then the target as sent")
        XCTAssertEqual(
            seen.headers.map { "\($0.0): \($0.1)" }.sorted(),
            [
                "Accept: application/json", "Authorization: Bearer t", "Host: 127.0.0.1:\(upstream.port)",
                "X-Forwarded-For: 127.0.0.1", "X-Forwarded-Host: app.test:8080", "X-Forwarded-Proto: http",
            ]
        )
    }

    func testHopByHopResponseFieldsDoNotReachTheClient() throws {
        let upstream = try ScriptedUpstream { _ in
            [
                .response(
                    200,
                    headers: [
                        ("Connection", "X-Internal"), ("X-Internal", "secret"), ("Keep-Alive", "timeout=1"),
                        ("Proxy-Authenticate", "Basic"), ("X-Public", "yes"),
                    ],
                    body: Array("ok".utf8)
                )
            ]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /h HTTP/1.1\r\nHost: app.test\r\n\r\n")
        XCTAssertEqual(response.header("X-Public"), "yes")
        XCTAssertNil(response.header("X-Internal"))
        XCTAssertNil(response.header("Keep-Alive"))
        XCTAssertNil(response.header("Proxy-Authenticate"))
    }

    func testPreserveHostAndExtraAndRemovedHeaders() throws {
        let upstream = try ScriptedUpstream { _ in [.response(200, body: [])] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream)) { rule in
            rule.preserveHost = true
            rule.setHeaders = [("X-Api-Key", "k1")]
            rule.removeHeaders = ["Cookie"]
        }
        _ = try proxy.exchange("GET / HTTP/1.1\r\nHost: app.test\r\nCookie: a=1\r\nX-Api-Key: client\r\n\r\n")
        let seen = try XCTUnwrap(upstream.requests.first)
        XCTAssertEqual(seen.header("Host"), "app.test")
        XCTAssertEqual(seen.values("X-Api-Key"), ["k1"])
        XCTAssertNil(seen.header("Cookie"))
    }

    func testDribbledBodyReachesTheClientAsItArrives() throws {
        let upstream = try ScriptedUpstream { _ in
            var steps: [ScriptedUpstream.Step] = [.send(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n".utf8))]
            for byte in Array("0123456789".utf8) { steps += [.send([byte]), .pause(milliseconds: 100)] }
            return steps
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let c = try proxy.connect()
        let start = WireConnection.now()
        c.send("GET /slow HTTP/1.1\r\nHost: app.test\r\n\r\n")
        _ = c.readUntil(suffix: "\r\n\r\n")
        let first = c.readSome(max: 1)
        let firstByteAfter = WireConnection.now() - start
        XCTAssertEqual(first, Array("0".utf8))
        XCTAssertLessThan(firstByteAfter, 250, "the first byte is not held back for the rest")
        var rest: [UInt8] = []
        while rest.count < 9 {
            let piece = c.readSome(max: 9 - rest.count)
            guard !piece.isEmpty else { break }
            rest += piece
        }
        XCTAssertEqual(rest, Array("123456789".utf8))
        XCTAssertGreaterThanOrEqual(WireConnection.now() - start, 900)
    }

    func testUpstreamClosingMidBodyCutsTheClientOff() throws {
        let upstream = try ScriptedUpstream { _ in
            [
                .send(
                    Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".utf8) + [UInt8](repeating: 65, count: 100)
                ), .close,
            ]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let c = try proxy.connect()
        c.send("GET /cut HTTP/1.1\r\nHost: app.test\r\n\r\n")
        let (bytes, closed) = c.readUntilClose()
        XCTAssertTrue(closed, "the client sees the connection end")
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertTrue(text.contains("Content-Length: 1000\r\n"))
        let body = bytes.count - (WireConnection.find(Array("\r\n\r\n".utf8), in: bytes)! + 4)
        XCTAssertEqual(body, 100, "truncated, as the upstream left it")
    }

    func testKeepAliveConnectionsAreReused() throws {
        let upstream = try ScriptedUpstream { _ in [.response(200, body: Array("x".utf8))] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let c = try proxy.connect()
        for _ in 0..<5 {
            c.send("GET /k HTTP/1.1\r\nHost: app.test\r\n\r\n")
            XCTAssertEqual(try c.readResponse().text, "x")
        }
        XCTAssertEqual(upstream.requests.count, 5)
        XCTAssertEqual(upstream.connectionCount, 1, "one pooled upstream connection")
    }

    func testStubsStillAnswerFirst() throws {
        let upstream = try ScriptedUpstream { _ in [.response(200, body: Array("upstream".utf8))] }
        let proxy = try ProxyHarness(
            self,
            upstream: upstreamURL(upstream),
            stubs: #"{"request": {"path": "/stubbed"}, "response": {"body": "stub"}}"#
        )
        XCTAssertEqual(try proxy.exchange("GET /stubbed HTTP/1.1\r\nHost: a\r\n\r\n").text, "stub")
        XCTAssertEqual(try proxy.exchange("GET /other HTTP/1.1\r\nHost: a\r\n\r\n").text, "upstream")
        XCTAssertEqual(upstream.requests.map(\.target), ["/other"])
    }

    func testStubLevelProxyStripsAPrefixAndSetsHeaders() throws {
        let upstream = try ScriptedUpstream { request in [.response(200, body: Array(request.target.utf8))] }
        let stub = """
            {"request": {"path": "/legacy/**"},
             "response": {"proxy": {"to": "\(upstreamURL(upstream))/v2", "stripPrefix": "/legacy",
                                    "headers": {"X-Via-Stub": "1"}, "removeHeaders": ["X-Drop"]}}}
            """
        let proxy = try ProxyHarness(self, upstream: nil, stubs: stub)
        let response = try proxy.exchange("GET /legacy/users/7?full=1 HTTP/1.1\r\nHost: a\r\nX-Drop: 1\r\n\r\n")
        XCTAssertEqual(response.text, "/v2/users/7?full=1")
        let seen = try XCTUnwrap(upstream.requests.first)
        XCTAssertEqual(seen.header("X-Via-Stub"), "1")
        XCTAssertNil(seen.header("X-Drop"))
        XCTAssertEqual(
            try proxy.exchange("GET /elsewhere HTTP/1.1\r\nHost: a\r\n\r\n").status,
            404,
            "no --proxy: near-miss 404"
        )
    }
}
