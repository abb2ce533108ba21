import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAdmin
import StubEngine
import TestSupport
import XCTest

/// Recording streams through the admin API, in process over real sockets: an upstream's event
/// stream becomes `events` with the measured delays, a WebSocket passed through becomes a
/// `websocket` stub, and both replay.
final class StreamRecordingTests: XCTestCase {
    static let upstreamStubs = #"""
        [
          {"name": "chat", "request": {"method": "GET", "path": "/chat/{room}"}, "websocket": {
            "onOpen": [{"send": {"type": "hello", "room": "{{request.path.room}}"}}],
            "onMessage": [
              {"match": {"json": {"type": "say"}}, "reply": [
                {"send": {"said": "{{message.json./text}}"}}, {"send": "and later", "delay": 200}
              ]},
              {"match": {"equals": "bin"}, "reply": [{"send": {"binary": "AAEC"}}]},
              {"match": {"contains": "bye"}, "close": {"code": 4001, "reason": "see you"}}
            ]
          }},
          {"name": "ticks", "request": {"method": "GET", "path": "/ticks"}, "response": {"events": [
            {"event": "tick", "id": "1", "data": {"n": 1}},
            {"comment": "still here", "delay": 200},
            {"event": "tick", "id": "2", "data": "two\nlines {{not a template}}", "delay": 300, "retry": 3000}
          ], "template": false}},
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

    /// Records what `play` does through a proxy to the upstream; the recorded folder.
    private func record(_ play: (ProxyHarness) throws -> Void) throws -> URL {
        let (upstream, _) = try server(Self.upstreamStubs)
        let proxy = try ProxyHarness(self, upstream: nil)
        let started = try proxy.admin(
            "POST",
            "/__admin/recordings/start",
            #"{"to": "http://127.0.0.1:\#(upstream.port)", "out": "recorded"}"#
        )
        XCTAssertEqual(started.status, 200, "\(started.json)")
        try play(proxy)
        let stopped = try proxy.admin("POST", "/__admin/recordings/stop")
        XCTAssertEqual(stopped.status, 200, "\(stopped.json)")
        return proxy.folder.appendingPathComponent("recorded")
    }

    private func json(_ url: URL) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        if let array = value as? [Any] { return try XCTUnwrap(array.first as? [String: Any]) }
        return try XCTUnwrap(value as? [String: Any])
    }

    func testAnEventStreamIsRecordedWithItsMeasuredDelaysAndReplays() throws {
        let folder = try record { proxy in
            let reader = try EventStreamReader(port: proxy.server.port, target: "/ticks")
            XCTAssertTrue(reader.wait { $0.ended })
        }
        let stub = try json(folder.appendingPathComponent("get-ticks.json"))
        let response = try XCTUnwrap(stub["response"] as? [String: Any])
        let events = try XCTUnwrap(response["events"] as? [[String: Any]])
        XCTAssertEqual(events.count, 3, "\(events)")
        XCTAssertEqual(events[0]["event"] as? String, "tick")
        XCTAssertEqual(events[0]["id"] as? String, "1")
        XCTAssertEqual(events[0]["data"] as? [String: Int], ["n": 1], "compact JSON data is written as JSON")
        XCTAssertNil(events[0]["delay"], "the first event came with the head")
        XCTAssertEqual(events[1]["comment"] as? String, "still here")
        XCTAssertEqual(events[2]["data"] as? String, "two\nlines {{not a template}}")
        XCTAssertEqual(events[2]["retry"] as? Int, 3000)
        let second = try XCTUnwrap(events[1]["delay"] as? Int)
        let third = try XCTUnwrap(events[2]["delay"] as? Int)
        XCTAssertEqual(second % 10, 0, "delays are rounded to 10 ms")
        XCTAssertGreaterThanOrEqual(second, 190)
        XCTAssertLessThan(second, 400, "measured, with a margin for a loaded machine")
        XCTAssertGreaterThanOrEqual(third, 290)
        XCTAssertLessThan(third, 500)
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

    func testAWebSocketIsRecordedAsAScriptAndReplays() throws {
        let folder = try record { proxy in
            let client = try WebSocketWire(port: proxy.server.port)
            XCTAssertEqual(try client.open("/chat/lobby").status, 101)
            XCTAssertEqual(client.readText(), #"{"type":"hello","room":"lobby"}"#)
            client.sendText(#"{"type":"say","text":"hi"}"#)
            XCTAssertEqual(client.readText(), #"{"said":"hi"}"#)
            XCTAssertEqual(client.readText(), "and later")
            client.sendText("bin")
            XCTAssertEqual(client.readFrame()?.payload, [0, 1, 2])
            client.sendText(#"{"type":"say","text":"hi"}"#)
            XCTAssertEqual(client.readText(), #"{"said":"hi"}"#)
            XCTAssertEqual(client.readText(), "and later")
            client.sendText("bye")
            XCTAssertEqual(client.readFrame()?.closeCode, 4001)
            client.sendClose(code: 4001)
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
        XCTAssertGreaterThanOrEqual(later, 190)
        XCTAssertLessThan(later, 400)
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
