import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubEngine
import TestSupport
import XCTest

/// `--proxy` with streams, in process over real sockets: WebSocket upgrades passed through both
/// ways to a real WebSocket server (a stub server with a chat stub), with raw frames on the
/// client's side, and upstream event streams journaled event by event.
final class StreamProxyTests: XCTestCase {
    static let upstreamStubs = #"""
        [
          {"name": "chat", "request": {"method": "GET", "path": "/chat/{room}"}, "websocket": {
            "onOpen": [{"send": {"type": "hello", "room": "{{request.path.room}}"}}],
            "onMessage": [
              {"match": {"json": {"type": "say"}}, "reply": [{"send": {"said": "{{message.json./text}}"}}]},
              {"match": {"equals": "bin"}, "reply": [{"send": {"binary": "AAEC"}}]},
              {"match": {"contains": "bye"}, "close": {"code": 4001, "reason": "see you"}}
            ]
          }},
          {"name": "guarded", "request": {"method": "GET", "path": "/guarded"},
           "response": {"status": 403, "body": "no sockets for you"}},
          {"name": "ticks", "request": {"method": "GET", "path": "/ticks"}, "response": {"events": [
            {"event": "tick", "id": "1", "data": {"n": 1}},
            {"comment": "still here", "delay": 60},
            {"event": "tick", "id": "2", "data": "two\nlines", "delay": 60, "retry": 3000}
          ]}}
        ]
        """#

    /// A stub server in process: the upstream.
    private func upstream(_ stubs: String = StreamProxyTests.upstreamStubs) throws -> (HTTP1Server, Engine) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ws-up-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(stubs.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let result = StubLoader(directory: folder.path).load()
        XCTAssertEqual(result.problems.map(\.description), [])
        let engine = Engine(stubs: result.stubs)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return (server, engine)
    }

    private func waitFor(_ condition: () -> Bool, timeoutMilliseconds: Int = 5_000) -> Bool {
        let deadline = WireConnection.now() + timeoutMilliseconds
        while WireConnection.now() < deadline {
            if condition() { return true }
            // Polling a condition another thread sets, not waiting for readiness.
            usleep(5_000)
        }
        return condition()
    }

    private func readFrame(_ client: WebSocketWire, skippingControl: Bool = true) -> WebSocketWire.Frame? {
        while let frame = client.readFrame() {
            if skippingControl && (frame.opcode == 9 || frame.opcode == 0xA) { continue }
            return frame
        }
        return nil
    }

    func testAnUpgradeNoStubAnswersGoesToTheUpstreamAndMessagesFlowBothWays() throws {
        let (up, upEngine) = try upstream()
        let proxy = try ProxyHarness(self, upstream: "http://127.0.0.1:\(up.port)")
        let client = try WebSocketWire(port: proxy.server.port)
        let head = try client.open(
            "/chat/lobby",
            headers: ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"]
        )
        XCTAssertEqual(head.status, 101)
        XCTAssertEqual(head.header("Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(head.header("Upgrade")?.lowercased(), "websocket")
        XCTAssertNil(head.header("Sec-WebSocket-Extensions"), "no extension is agreed through the proxy")
        XCTAssertEqual(client.readText(), #"{"type":"hello","room":"lobby"}"#)
        client.sendText(#"{"type":"say","text":"hi"}"#)
        XCTAssertEqual(client.readText(), #"{"said":"hi"}"#)
        client.sendText("bin")
        let binary = readFrame(client)
        XCTAssertEqual(binary?.opcode, 2)
        XCTAssertEqual(binary?.payload, [0, 1, 2])
        // A ping goes to the upstream, which answers it; the pong comes back through.
        client.send(WebSocketWire.frame(9, Array("beat".utf8)))
        let pong = readFrame(client, skippingControl: false)
        XCTAssertEqual(pong?.opcode, 0xA)
        XCTAssertEqual(pong?.payload, Array("beat".utf8))
        // A fragmented message is reassembled by the upstream: the frames went as they were.
        client.send(WebSocketWire.frame(1, Array(#"{"type":"say","#.utf8), fin: false))
        client.send(WebSocketWire.frame(0, Array(#""text":"parts"}"#.utf8)))
        XCTAssertEqual(client.readText(), #"{"said":"parts"}"#)
        // The upstream's close code and reason come through as it sent them.
        client.sendText("bye")
        let close = readFrame(client)
        XCTAssertEqual(close?.closeCode, 4001)
        XCTAssertEqual(close.map { String(decoding: $0.payload.dropFirst(2), as: UTF8.self) }, "see you")
        client.sendClose(code: 4001)
        XCTAssertTrue(client.connection.readUntilClose().closed, "the proxy closes once the upstream has")

        // The upstream journaled a real WebSocket session; the proxy journaled both directions.
        XCTAssertTrue(waitFor { upEngine.journal.entries.first?.response?.stream?.isOpen == false })
        XCTAssertTrue(waitFor { proxy.engine.journal.entries.first?.response?.stream?.isOpen == false })
        let entry = try XCTUnwrap(proxy.engine.journal.entries.first)
        XCTAssertEqual(entry.path, "/chat/lobby")
        let stream = try XCTUnwrap(entry.response?.stream?.snapshot)
        XCTAssertEqual(stream.kind, .websocket)
        let lines = stream.items.map { "\($0.direction.rawValue) \($0.text)" }
        XCTAssertEqual(
            lines,
            [
                #"sent {"type":"hello","room":"lobby"}"#,
                #"received {"type":"say","text":"hi"}"#,
                #"sent {"said":"hi"}"#,
                "received bin",
                "sent (binary, 3 bytes)",
                #"received {"type":"say","text":"parts"}"#,
                #"sent {"said":"parts"}"#,
                "received bye",
                "note close from the upstream: 4001 see you",
                "note close from the client: 4001",
            ]
        )
        XCTAssertEqual(stream.ended, "the upstream closed the connection")
        // The upstream never saw the extension offer.
        let upstreamEntry = try XCTUnwrap(upEngine.journal.entries.first)
        XCTAssertNil(upstreamEntry.headers["Sec-WebSocket-Extensions"])
        XCTAssertEqual(upstreamEntry.headers["Upgrade"], "websocket")
    }

    func testAStubThatMatchesTheUpgradeAnswersFirst() throws {
        let (up, upEngine) = try upstream()
        let local = #"""
            [{"request": {"method": "GET", "path": "/chat/local"},
              "websocket": {"onOpen": [{"send": "from the stub"}]}}]
            """#
        let proxy = try ProxyHarness(self, upstream: "http://127.0.0.1:\(up.port)", stubs: local)
        let client = try WebSocketWire(port: proxy.server.port)
        XCTAssertEqual(try client.open("/chat/local").status, 101)
        XCTAssertEqual(client.readText(), "from the stub")
        XCTAssertEqual(upEngine.journal.entries.count, 0, "the upstream was not asked")
    }

    func testTheClientLeavingClosesTheUpstreamConnection() throws {
        let (up, upEngine) = try upstream()
        let proxy = try ProxyHarness(self, upstream: "http://127.0.0.1:\(up.port)")
        let client = try WebSocketWire(port: proxy.server.port)
        XCTAssertEqual(try client.open("/chat/gone").status, 101)
        XCTAssertNotNil(client.readText())
        XCTAssertEqual(upEngine.webSockets.open.count, 1)
        client.connection.close()
        XCTAssertTrue(waitFor { upEngine.webSockets.open.isEmpty }, "the upstream saw its connection end")
        XCTAssertTrue(waitFor { proxy.engine.journal.entries.first?.response?.stream?.isOpen == false })
        XCTAssertEqual(
            proxy.engine.journal.entries.first?.response?.stream?.snapshot.ended,
            "the client closed the connection"
        )
    }

    func testAnUpstreamThatRefusesTheUpgradeIsRelayed() throws {
        let (up, _) = try upstream()
        let proxy = try ProxyHarness(self, upstream: "http://127.0.0.1:\(up.port)")
        let client = try WebSocketWire(port: proxy.server.port)
        let head = try client.open("/guarded")
        XCTAssertEqual(head.status, 403)
        let body = client.connection.readUntil(suffix: "no sockets for you")
        XCTAssertTrue(String(decoding: body, as: UTF8.self).hasSuffix("no sockets for you"))
        XCTAssertNil(proxy.engine.journal.entries.first?.response?.stream)
    }

    func testAnUnreachableUpstreamIsA502WithTheReason() throws {
        let refused = try XCTUnwrap(refusedLoopbackPort())
        defer { close(refused.descriptor) }
        let proxy = try ProxyHarness(self, upstream: "http://127.0.0.1:\(refused.port)")
        let client = try WebSocketWire(port: proxy.server.port)
        let head = try client.open("/chat/x")
        XCTAssertEqual(head.status, 502)
        let body = String(decoding: client.connection.readUntil(suffix: "}"), as: UTF8.self)
        XCTAssertTrue(body.contains("cannot connect"), body)
    }

    func testAnUpstreamThatSends101ToAPlainRequestIsRefused() throws {
        let upstream = try ScriptedUpstream { _ in
            [.send(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8))]
        }
        defer { upstream.stop() }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /plain HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertEqual(response.status, 502)
        XCTAssertTrue(response.text.contains("asked for no upgrade"), response.text)
    }

    func testAnUpstreamEventStreamIsJournaledEventByEvent() throws {
        let (up, _) = try upstream()
        let proxy = try ProxyHarness(self, upstream: "http://127.0.0.1:\(up.port)")
        let reader = try EventStreamReader(port: proxy.server.port, target: "/ticks")
        XCTAssertTrue(reader.wait { $0.ended })
        XCTAssertEqual(reader.named("tick").map(\.data), [#"{"n":1}"#, "two\nlines"])
        XCTAssertTrue(waitFor { proxy.engine.journal.entries.first?.response?.stream?.isOpen == false })
        let stream = try XCTUnwrap(proxy.engine.journal.entries.first?.response?.stream?.snapshot)
        XCTAssertEqual(stream.kind, .events)
        XCTAssertEqual(
            stream.items.map(\.text),
            [
                "event id 1: event: tick\nid: 1\ndata: {\"n\":1}",
                "event: : still here",
                "event id 2: event: tick\nid: 2\nretry: 3000\ndata: two\ndata: lines",
            ]
        )
        XCTAssertTrue(stream.items.allSatisfy { $0.direction == .sent })
        XCTAssertGreaterThanOrEqual(stream.items[2].atMilliseconds - stream.items[0].atMilliseconds, 100)
        XCTAssertEqual(stream.ended, "the upstream ended the stream")
    }

    func testAnOpenProxiedWebSocketIsNotCutByTheIdleTimeout() throws {
        let (up, _) = try upstream()
        let proxy = try ProxyHarness(
            self,
            upstream: "http://127.0.0.1:\(up.port)",
            server: { $0.idleTimeoutMilliseconds = 150 }
        )
        let client = try WebSocketWire(port: proxy.server.port)
        XCTAssertEqual(try client.open("/chat/quiet").status, 101)
        XCTAssertNotNil(client.readText())
        // Quiet for longer than the idle timeout: a WebSocket is long-lived, like a stubbed one.
        usleep(400_000)
        client.sendText(#"{"type":"say","text":"still here"}"#)
        XCTAssertEqual(client.readText(), #"{"said":"still here"}"#)
    }

    func testAnOpenProxiedWebSocketHoldsItsConnectionSlot() throws {
        let (up, _) = try upstream()
        let proxy = try ProxyHarness(
            self,
            upstream: "http://127.0.0.1:\(up.port)",
            server: { $0.maxConnections = 1 }
        )
        let client = try WebSocketWire(port: proxy.server.port)
        XCTAssertEqual(try client.open("/chat/full").status, 101)
        XCTAssertNotNil(client.readText())
        let waiting = try proxy.connect()
        waiting.send("GET /guarded HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertTrue(waiting.readSome(max: 1, timeoutMilliseconds: 300).isEmpty, "at the cap, a new client waits")
        client.sendText("bye")
        client.sendClose(code: 4001)
        XCTAssertEqual(try waiting.readResponse().status, 403, "the slot frees when the WebSocket ends")
    }

    func testAnUpstreamThatNeverAnswersTheUpgradeIsA504AfterTheProxyTimeout() throws {
        let upstream = try ScriptedUpstream { _ in [.hang] }
        defer { upstream.stop() }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream)) { $0.timeoutMilliseconds = 200 }
        let client = try WebSocketWire(port: proxy.server.port)
        let started = WireConnection.now()
        XCTAssertEqual(try client.open("/chat/slow").status, 504)
        XCTAssertGreaterThanOrEqual(WireConnection.now() - started, 190)
        let forwarded = try XCTUnwrap(upstream.requests.first)
        XCTAssertEqual(forwarded.header("Upgrade"), "websocket")
        XCTAssertEqual(forwarded.header("Connection"), "Upgrade")
        XCTAssertEqual(forwarded.header("Sec-WebSocket-Key"), WebSocketWire.sampleKey)
    }
}
