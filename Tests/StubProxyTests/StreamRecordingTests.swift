import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAdmin
import StubEngine
import TestSupport
import WebSocket
import XCTest

/// Recording streams through the admin API, in process over real sockets: an upstream's event
/// stream becomes `events` with the measured delays, a WebSocket passed through becomes a
/// `websocket` stub, and both replay.
final class StreamRecordingTests: XCTestCase {
    /// The upstream of a stream still open when the recording stops; the other tests drive
    /// their upstream themselves, for the bounds of the delays they check.
    static let upstreamStubs = #"""
        [
          {"name": "forever", "request": {"method": "GET", "path": "/forever"}, "response": {
            "events": [{"data": "first"}], "then": "hold"
          }}
        ]
        """#

    private func server(_ stubs: String) throws -> (HTTP1Server, Engine) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rec-up-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(stubs.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return try serve(folder)
    }

    private func serve(_ folder: URL) throws -> (HTTP1Server, Engine) {
        let result = StubLoader(directory: folder.path).load()
        XCTAssertEqual(result.problems.map(\.description), [])
        var options = Engine.Options()
        options.adminRoutes = NativeAdmin.routeSets()
        let engine = Engine(stubs: result.stubs, options: options)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return (server, engine)
    }

    /// Records what `play` does through a proxy to the upstream (the stubs above unless a port
    /// is given); the recorded folder.
    private func record(upstreamPort: Int? = nil, _ play: (ProxyHarness) throws -> Void) throws -> URL {
        let port = try upstreamPort ?? server(Self.upstreamStubs).0.port
        let proxy = try ProxyHarness(self, upstream: nil)
        let started = try proxy.admin(
            "POST",
            "/__admin/recordings/start",
            #"{"to": "http://127.0.0.1:\#(port)", "out": "recorded"}"#
        )
        XCTAssertEqual(started.status, 200, "\(started.json)")
        try play(proxy)
        let stopped = try proxy.admin("POST", "/__admin/recordings/stop")
        XCTAssertEqual(stopped.status, 200, "\(stopped.json)")
        return proxy.folder.appendingPathComponent("recorded")
    }

    /// Accepts the proxy's connection and answers its upgrade request: the upstream's end.
    private static func acceptWebSocket(_ upstream: LoopbackListener) throws -> WebSocketWire {
        let wire = try upstream.accept()
        let request = WireResponse(head: String(decoding: wire.readUntil(suffix: "\r\n\r\n"), as: UTF8.self))
        let key = try XCTUnwrap(request.header("Sec-WebSocket-Key"), request.statusLine)
        wire.send(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(forKey: key))\r\n\r\n"
        )
        return WebSocketWire(serving: wire)
    }

    /// A piece of a chunked body.
    private static func chunk(_ text: String) -> String {
        String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
    }

    private func json(_ url: URL) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        if let array = value as? [Any] { return try XCTUnwrap(array.first as? [String: Any]) }
        return try XCTUnwrap(value as? [String: Any])
    }

    /// The recorder's clock (`DispatchTime`, as `StreamCapture` reads it), in milliseconds.
    private static func milliseconds() -> Int { Int(DispatchTime.now().uptimeNanoseconds / 1_000_000) }

    /// The upstream is driven by the test, so each recorded delay has bounds that hold however
    /// loaded the machine is. The proxy sees a piece after the upstream wrote it and before the
    /// client gets it; each piece is written a pause after the client got the one before. So a
    /// recorded delay is at least the pause, and at most the time from writing the piece before
    /// to the client getting this one (plus 6 ms: the recording rounds to 10 ms and both clocks
    /// count whole milliseconds). With fixed bounds (190 to 400 ms for a 200 ms delay of a stub
    /// upstream) a loaded proxy that read one event late measured 170.
    func testAnEventStreamIsRecordedWithItsMeasuredDelaysAndReplays() throws {
        let upstream = try LoopbackListener()
        var written: [Int] = []
        var received: [Int] = []
        let pauses = [200, 200, 300]
        let folder = try record(upstreamPort: upstream.port) { proxy in
            let reader = try EventStreamReader(port: proxy.server.port, target: "/ticks")
            let wire = try upstream.accept()
            XCTAssertTrue(String(decoding: wire.readUntil(suffix: "\r\n\r\n"), as: UTF8.self).hasPrefix("GET /ticks "))
            let pieces = [
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + Self.chunk("event: tick\nid: 1\ndata: {\"n\":1}\n\n"),
                Self.chunk(": still here\n\n"),
                Self.chunk("event: tick\nid: 2\nretry: 3000\ndata: two\ndata: lines {{not a template}}\n\n")
                    + "0\r\n\r\n",
            ]
            for (index, piece) in pieces.enumerated() {
                // The first pause is the upstream thinking before it answers: no delay of the
                // first event, which comes with the head.
                Thread.sleep(forTimeInterval: Double(pauses[index]) / 1_000)
                written.append(Self.milliseconds())
                wire.send(piece)
                XCTAssertTrue(reader.wait { $0.events.count > index || $0.ended }, "piece \(index)")
                received.append(Self.milliseconds())
            }
            XCTAssertTrue(reader.wait { $0.ended })
        }
        let stub = try json(folder.appendingPathComponent("get-ticks.json"))
        let response = try XCTUnwrap(stub["response"] as? [String: Any])
        let events = try XCTUnwrap(response["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 3, "\(events)")
        XCTAssertEqual(events[0]["event"] as? String, "tick")
        XCTAssertEqual(events[0]["id"] as? String, "1")
        XCTAssertEqual(events[0]["data"] as? [String: Int], ["n": 1], "compact JSON data is written as JSON")
        XCTAssertEqual(events[1]["comment"] as? String, "still here")
        XCTAssertEqual(events[2]["data"] as? String, "two\nlines {{not a template}}")
        XCTAssertEqual(events[2]["retry"] as? Int, 3000)
        guard written.count == 3, received.count == 3 else { return }
        // Measured from the head, not from the request: the upstream's thinking is no delay.
        XCTAssertLessThanOrEqual(events[0]["delay"] as? Int ?? 0, received[0] - written[0] + 6, "\(events[0])")
        for index in 1..<3 {
            let delay = try XCTUnwrap(events[index]["delay"] as? Int, "\(events[index])")
            XCTAssertEqual(delay % 10, 0, "delays are rounded to 10 ms")
            XCTAssertGreaterThanOrEqual(delay, pauses[index], "event \(index)")
            XCTAssertLessThanOrEqual(
                delay,
                received[index] - written[index - 1] + 6,
                "event \(index): \(written) \(received)"
            )
        }
        XCTAssertNil(response["then"], "the upstream ended the stream: close, the default")
        XCTAssertEqual(response["template"] as? Bool, false, "data holding {{ is not read as a template")
        XCTAssertNil(response["body"])

        let (replay, _) = try serve(folder)
        let reader = try EventStreamReader(port: replay.port, target: "/ticks")
        XCTAssertTrue(reader.wait { $0.ended })
        XCTAssertEqual(reader.named("tick").map(\.data), [#"{"n":1}"#, "two\nlines {{not a template}}"])
        XCTAssertEqual(reader.named("tick").map(\.id), ["1", "2"])
    }

    func testAStreamStillOpenWhenTheRecordingStopsIsKeptAndHeld() throws {
        var reader: EventStreamReader?
        let folder = try record { proxy in
            reader = try EventStreamReader(port: proxy.server.port, target: "/forever")
            XCTAssertTrue(reader!.wait { $0.events.count >= 1 })
        }
        reader?.close()
        let stub = try json(folder.appendingPathComponent("get-forever.json"))
        let response = try XCTUnwrap(stub["response"] as? [String: Any])
        XCTAssertEqual((response["events"] as? [[String: Any]])?.first?["data"] as? String, "first")
        XCTAssertEqual(response["then"] as? String, "hold", "the upstream had not ended it")
    }

    /// The upstream is driven by the test, for the bounds of the reply's delay (see the event
    /// stream's test): "and later" goes a pause after the client got the reply before it.
    func testAWebSocketIsRecordedAsAScriptAndReplays() throws {
        let upstream = try LoopbackListener()
        let pause = 200
        var writtenSaid = 0
        var receivedLater = 0
        let folder = try record(upstreamPort: upstream.port) { proxy in
            let client = try WebSocketWire(port: proxy.server.port)
            client.requestUpgrade("/chat/lobby")
            let server = try Self.acceptWebSocket(upstream)
            XCTAssertEqual(try client.readUpgradeResponse().status, 101)
            server.send(WebSocketWire.frame(1, Array(#"{"type":"hello","room":"lobby"}"#.utf8), masked: false))
            XCTAssertEqual(client.readText(), #"{"type":"hello","room":"lobby"}"#)
            for time in 0..<2 {
                client.sendText(#"{"type":"say","text":"hi"}"#)
                XCTAssertEqual(server.readText(), #"{"type":"say","text":"hi"}"#)
                if time == 0 { writtenSaid = Self.milliseconds() }
                server.send(WebSocketWire.frame(1, Array(#"{"said":"hi"}"#.utf8), masked: false))
                XCTAssertEqual(client.readText(), #"{"said":"hi"}"#)
                // The upstream's own pause, which the recording measures; not a wait for anything.
                Thread.sleep(forTimeInterval: Double(pause) / 1_000)
                server.send(WebSocketWire.frame(1, Array("and later".utf8), masked: false))
                XCTAssertEqual(client.readText(), "and later")
                if time == 0 {
                    receivedLater = Self.milliseconds()
                    client.sendText("bin")
                    XCTAssertEqual(server.readText(), "bin")
                    server.send(WebSocketWire.frame(2, [0, 1, 2], masked: false))
                    XCTAssertEqual(client.readFrame()?.payload, [0, 1, 2])
                }
            }
            client.sendText("bye")
            XCTAssertEqual(server.readText(), "bye")
            server.send(WebSocketWire.frame(8, [0x0F, 0xA1] + Array("see you".utf8), masked: false))
            XCTAssertEqual(client.readFrame()?.closeCode, 4001)
            client.sendClose(code: 4001)
            XCTAssertEqual(server.readFrame()?.closeCode, 4001)
            server.connection.close()
            XCTAssertTrue(client.connection.readUntilClose().closed)
        }
        let stub = try json(folder.appendingPathComponent("get-chat-lobby.json"))
        XCTAssertNil(stub["response"])
        let script = try XCTUnwrap(stub["websocket"] as? [String: Any])
        let onOpen = try XCTUnwrap(script["onOpen"] as? [[String: Any]])
        XCTAssertEqual(onOpen.count, 1)
        XCTAssertEqual(onOpen[0]["send"] as? [String: String], ["type": "hello", "room": "lobby"])
        let rules = try XCTUnwrap(script["onMessage"] as? [[String: Any]])
        XCTAssertEqual(rules.count, 3, "the repeated message makes no second rule: \(rules)")
        XCTAssertEqual(
            (rules[0]["match"] as? [String: Any])?["jsonEquals"] as? [String: String],
            ["type": "say", "text": "hi"]
        )
        let replies = try XCTUnwrap(rules[0]["reply"] as? [[String: Any]])
        XCTAssertEqual(replies.count, 2)
        XCTAssertEqual(replies[0]["send"] as? [String: String], ["said": "hi"])
        XCTAssertEqual(replies[1]["send"] as? String, "and later")
        let later = try XCTUnwrap(replies[1]["delay"] as? Int)
        XCTAssertGreaterThanOrEqual(later, pause)
        XCTAssertLessThanOrEqual(
            later,
            receivedLater - writtenSaid + 6,
            "at most from writing one to getting the other"
        )
        XCTAssertEqual((rules[1]["match"] as? [String: String]), ["equals": "bin"])
        XCTAssertEqual((rules[1]["reply"] as? [[String: Any]])?.first?["send"] as? [String: String], ["binary": "AAEC"])
        XCTAssertEqual((rules[2]["match"] as? [String: String]), ["equals": "bye"])
        let close = try XCTUnwrap(rules[2]["close"] as? [String: Any])
        XCTAssertEqual(close["code"] as? Int, 4001)
        XCTAssertEqual(close["reason"] as? String, "see you")

        let (replay, _) = try serve(folder)
        let client = try WebSocketWire(port: replay.port)
        XCTAssertEqual(try client.open("/chat/lobby").status, 101)
        XCTAssertEqual(client.readText(), #"{"type":"hello","room":"lobby"}"#)
        client.sendText(#"{"type":"say","text":"hi"}"#)
        XCTAssertEqual(client.readText(), #"{"said":"hi"}"#)
        XCTAssertEqual(client.readText(), "and later")
        client.sendText("bye")
        XCTAssertEqual(client.readFrame()?.closeCode, 4001)
    }
}
