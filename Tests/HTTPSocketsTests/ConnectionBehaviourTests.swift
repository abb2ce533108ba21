import TestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import HTTP1
@testable import HTTPSockets

@Suite struct ListenerTests {
    @Test func portZeroReportsTheBoundPortAndURLSessionIsServed() async throws {
        try await withServer { server in
            #expect(server.port > 0)
            #expect(server.baseURL == "http://127.0.0.1:\(server.port)")
            let (data, response) = try await URLSession.shared.data(from: URL(string: server.baseURL + "/hello?x=1")!)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "GET /hello 0")
            #expect(http.value(forHTTPHeaderField: "Server") == "stubserver")
            #expect(http.value(forHTTPHeaderField: "Date")?.hasSuffix("GMT") == true)
        }
    }

    @Test func ipv6Listener() async throws {
        try await withServer({ $0.host = "::1" }) { server in
            #expect(server.baseURL == "http://[::1]:\(server.port)")
            let c = try WireConnection(port: server.port, host: "::1")
            c.send("GET /six HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            #expect(try c.readResponse().text == "GET /six 0")
        }
    }

    @Test func localhostListensOnBothFamilies() async throws {
        try await withServer({ $0.host = "localhost" }) { server in
            #expect(server.boundAddresses.count >= 1)
            for address in ["127.0.0.1", "::1"] where server.boundAddresses.contains(where: { $0.contains(address) }) {
                let c = try WireConnection(port: server.port, host: address)
                c.send("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
                #expect(try c.readResponse().status == 200)
            }
        }
    }

    @Test func busyPortIsATypedErrorAtStart() async throws {
        try await withServer { server in
            var configuration = ServerConfiguration()
            configuration.port = server.port
            let second = HTTP1Server(configuration: configuration, respond: echoHandler)
            #expect(throws: SocketError.addressInUse(address: "127.0.0.1:\(server.port)")) { try second.start() }
        }
    }

    @Test func stopFreesThePort() async throws {
        var configuration = ServerConfiguration()
        let first = HTTP1Server(configuration: configuration, respond: echoHandler)
        try first.start()
        configuration.port = first.port
        await first.stop()
        let second = HTTP1Server(configuration: configuration, respond: echoHandler)
        try second.start()
        await second.stop()
    }

    // Issue 12: BSD's SO_REUSEADDR lets a specific address bind beside a wildcard listener of
    // another process; a busy port must be an error at start on every platform.
    @Test func aPortTakenOnTheWildcardAddressIsBusy() async throws {
        var wildcard = ServerConfiguration()
        wildcard.host = "0.0.0.0"
        let other = HTTP1Server(configuration: wildcard, respond: echoHandler)
        try other.start()
        var ours = ServerConfiguration()
        ours.host = "127.0.0.1"
        ours.port = other.port
        let server = HTTP1Server(configuration: ours, respond: echoHandler)
        #expect(throws: SocketError.addressInUse(address: "127.0.0.1:\(other.port)")) { try server.start() }
        await other.stop()
    }

    // ...while a restart right after a stop, with connections just closed (TIME_WAIT), binds.
    @Test func aRestartRightAfterAStopBinds() async throws {
        var configuration = ServerConfiguration()
        let first = HTTP1Server(configuration: configuration, respond: echoHandler)
        try first.start()
        configuration.port = first.port
        for _ in 0..<3 {
            let c = try WireConnection(port: first.port)
            c.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            _ = c.readUntilClose()
        }
        await first.stop()
        let second = HTTP1Server(configuration: configuration, respond: echoHandler)
        try second.start()
        #expect(second.port == configuration.port)
        await second.stop()
    }
}

@Suite struct PersistenceTests {
    @Test func keepAliveByDefaultIn11() async throws {
        try await withServer { server in
            let c = try WireConnection(port: server.port)
            for i in 0..<3 {
                c.send("GET /\(i) HTTP/1.1\r\nHost: h\r\n\r\n")
                let r = try c.readResponse()
                #expect(r.text == "GET /\(i) 0")
                #expect(r.header("Connection") == nil)
            }
        }
    }

    @Test func connectionCloseIsHonouredAndAnnounced() async throws {
        try await withServer { server in
            let c = try WireConnection(port: server.port)
            c.send("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
            #expect(try c.readResponse().header("Connection") == "close")
            #expect(c.waitForClose())
        }
    }

    @Test func http10ClosesUnlessKeepAlive() async throws {
        try await withServer { server in
            let a = try WireConnection(port: server.port)
            a.send("GET / HTTP/1.0\r\n\r\n")
            #expect(try a.readResponse().header("Connection") == "close")
            #expect(a.waitForClose())
            let b = try WireConnection(port: server.port)
            b.send("GET /1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try b.readResponse().header("Connection") == "keep-alive")
            b.send("GET /2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try b.readResponse().text == "GET /2 0")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer { server in
            let c = try WireConnection(port: server.port)
            let requests = (1...20).map { "GET /p\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
            c.send(requests + "POST /last HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc")
            for i in 1...20 { #expect(try c.readResponse().text == "GET /p\(i) 0") }
            #expect(try c.readResponse().text == "POST /last 3")
        }
    }

    @Test func chunkedRequestBody() async throws {
        try await withServer { server in
            let c = try WireConnection(port: server.port)
            c.send(
                """
                POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n6\r\n \
                world\r\n0\r\nX-Trailer: 1\r\n\r\n
                """
            )
            #expect(try c.readResponse().text == "POST /up 11")
            c.send("GET /next HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try c.readResponse().text == "GET /next 0")
        }
    }

    @Test func expect100ContinueIsAnsweredBeforeTheBody() async throws {
        try await withServer { server in
            let c = try WireConnection(port: server.port)
            c.send("PUT /big HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
            let interim = try c.readResponse()
            #expect(interim.status == 100)
            c.send("data")
            #expect(try c.readResponse().text == "PUT /big 4")
        }
    }

    @Test func headGetsHeadersOnlyAndFramingStaysIntact() async throws {
        try await withServer { server in
            let c = try WireConnection(port: server.port)
            c.send("HEAD /h HTTP/1.1\r\nHost: h\r\n\r\nGET /g HTTP/1.1\r\nHost: h\r\n\r\n")
            let head = try c.readResponse(isHead: true)
            #expect(head.header("Content-Length") == "9")  // the length GET would have had
            #expect(head.body.isEmpty)
            #expect(try c.readResponse().text == "GET /g 0")
        }
    }

    @Test func absoluteFormAndAsteriskForm() async throws {
        try await withServer { server in
            let c = try WireConnection(port: server.port)
            c.send(
                """
                GET http://api.example/abs?q=1 HTTP/1.1\r\nHost: api.example\r\n\r\nOPTIONS * HTTP/1.1\r\nHost: \
                h\r\n\r\n
                """
            )
            #expect(try c.readResponse().text == "GET /abs 0")
            #expect(try c.readResponse().text == "OPTIONS * 0")
        }
    }

    @Test func largeBodyWithPartialWritesArrivesWhole() async throws {
        let body = (0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await withServer(handler: { _ in OutgoingResponse(status: 200, body: body) }) { server in
            let c = try WireConnection(port: server.port)
            c.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
            let r = try c.readResponse(timeoutMilliseconds: 20_000)
            #expect(r.body == body)
        }
    }

    @Test func peerVanishingMidResponseDoesNotHurtTheServer() async throws {
        let body = [UInt8](repeating: 65, count: 16 << 20)
        try await withServer(handler: { request in
            request.path == "/big" ? OutgoingResponse(status: 200, body: body) : .text(200, "ok")
        }) { server in
            for _ in 0..<5 {
                let c = try WireConnection(port: server.port)
                c.send("GET /big HTTP/1.1\r\nHost: h\r\n\r\n")
                c.reset()
            }
            let d = try WireConnection(port: server.port)
            d.send("GET /small HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try d.readResponse().text == "ok")
        }
    }
}

@Suite struct RejectionTests {
    static let cases: [(String, String, Int)] = [
        ("malformed request line", "GET /\r\n\r\n", 400),
        ("bare LF", "GET / HTTP/1.1\nHost: h\n\n", 400),
        ("obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", 400),
        ("missing Host", "GET / HTTP/1.1\r\n\r\n", 400),
        (
            "CL and TE",
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400
        ),
        ("unknown coding", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: br, chunked\r\n\r\n", 501),
        ("version", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
        ("long target", "GET /\(String(repeating: "x", count: 9000)) HTTP/1.1\r\nHost: h\r\n\r\n", 414),
        ("big header section", "GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "y", count: 70_000))\r\n\r\n", 431),
    ]

    @Test(arguments: cases)
    func answeredOnceThenClosedAndTheServerKeepsServing(_ name: String, _ raw: String, _ status: Int) async throws {
        try await withServer { server in
            let c = try WireConnection(port: server.port)
            c.send(raw + "GET /after HTTP/1.1\r\nHost: h\r\n\r\n")
            let r = try c.readResponse()
            #expect(r.status == status, "\(name)")
            #expect(r.header("Connection") == "close")
            let rest = c.readUntilClose()
            #expect(rest.closed)
            #expect(rest.bytes.isEmpty, "\(name): answered more than once")
            let d = try WireConnection(port: server.port)
            d.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try d.readResponse().status == 200)
        }
    }

    @Test func announcedBodyOverTheLimitGets413WithoutBeingRead() async throws {
        try await withServer({ $0.limits.maxBodyBytes = 1024 }) { server in
            let c = try WireConnection(port: server.port)
            // Only the head is sent: the 413 must come without waiting for 10 MB.
            c.send("POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 10485760\r\n\r\n")
            #expect(try c.readResponse(timeoutMilliseconds: 2_000).status == 413)
        }
    }

    @Test func slowHeadGets408() async throws {
        try await withServer({ $0.headerTimeoutMilliseconds = 200 }) { server in
            let c = try WireConnection(port: server.port)
            c.send("GET / HTTP/1.1\r\nHost: h\r\n")
            #expect(try c.readResponse(timeoutMilliseconds: 5_000).status == 408)
            #expect(c.waitForClose())
        }
    }

    @Test func idleConnectionIsClosed() async throws {
        try await withServer({ $0.idleTimeoutMilliseconds = 200 }) { server in
            let c = try WireConnection(port: server.port)
            c.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = try c.readResponse()
            #expect(c.waitForClose(timeoutMilliseconds: 5_000))
        }
    }
}
