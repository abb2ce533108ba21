import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAdmin
import StubEngine
import TestSupport
import XCTest

/// WebSocket stubs behind the real HTTP server, in process, with raw frames on the wire: the
/// handshake, the stub's script, and the protocol cases of RFC 6455 a server must get right.
final class WebSocketServingTests: XCTestCase {
    static let chat = #"""
        {"name": "chat", "request": {"method": "GET", "path": "/chat/{room}"}, "websocket": {
          "onOpen": [{"send": {"type": "hello", "room": "{{request.path.room}}"}}],
          "onMessage": [
            {"match": {"json": {"type": "ping"}}, "reply": [{"send": {"type": "pong"}}]},
            {"match": {"json": {"type": "say"}}, "reply": [
              {"send": {"type": "said", "text": "{{message.json./text}}"}},
              {"send": "later: {{message.text}}", "delay": 150}
            ]},
            {"match": {"equals": "bin"}, "reply": [{"send": {"binary": "AAEC"}}]},
            {"match": {"contains": "bye"}, "close": {"code": 1000, "reason": "bye"}}
          ]
        }}
        """#

    private func serve(_ json: String = WebSocketServingTests.chat) throws -> (HTTP1Server, Engine) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
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

    private func open(
        _ server: HTTP1Server,
        _ path: String = "/chat/lobby",
        headers: [String] = []
    ) throws -> WebSocketWire {
        let client = try WebSocketWire(port: server.port)
        let head = try client.open(path, headers: headers)
        XCTAssertEqual(head.status, 101)
        return client
    }

    func testTheHandshakeAcceptsTheKeyAndDeclinesExtensions() throws {
        let (server, _) = try serve()
        let client = try WebSocketWire(port: server.port)
        let head = try client.open(
            "/chat/lobby",
            headers: ["Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"]
        )
        XCTAssertEqual(head.status, 101)
        XCTAssertEqual(head.header("Upgrade")?.lowercased(), "websocket")
        XCTAssertEqual(head.header("Connection")?.lowercased(), "upgrade")
        XCTAssertEqual(head.header("Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertNil(head.header("Sec-WebSocket-Extensions"), "no extension is agreed")
        XCTAssertNil(head.header("Content-Length"))
        XCTAssertEqual(
            client.readText(),
            #"{"type":"hello","room":"lobby"}"#,
            "onOpen, templated from the upgrade request"
        )
    }

    func testRulesAnswerTheFirstMatchWithTemplatesAndDelays() throws {
        let (server, _) = try serve()
        let client = try open(server)
        _ = client.readText()
        client.sendText(#"{"type":"ping"}"#)
        XCTAssertEqual(client.readText(), #"{"type":"pong"}"#)
        let sentAt = WireConnection.now()
        client.sendText(#"{"type":"say","text":"a \"quoted\" word"}"#)
        XCTAssertEqual(
            client.readText(),
            #"{"type":"said","text":"a \"quoted\" word"}"#,
            "JSON-escaped in a JSON reply"
        )
        XCTAssertEqual(client.readText(), #"later: {"type":"say","text":"a \"quoted\" word"}"#)
        XCTAssertGreaterThanOrEqual(WireConnection.now() - sentAt, 140, "the delayed reply waits")
        client.sendText("bin")
        let binary = try XCTUnwrap(client.readFrame())
        XCTAssertEqual(binary.opcode, 2)
        XCTAssertEqual(binary.payload, [0, 1, 2])
    }

    func testAFragmentedMessageWithAPingInsideIsOneMessage() throws {
        let (server, _) = try serve()
        let client = try open(server)
        _ = client.readText()
        client.send(WebSocketWire.frame(1, Array(#"{"type":"#.utf8), fin: false))
        client.send(WebSocketWire.frame(9, Array("hb".utf8)))
        client.send(WebSocketWire.frame(0, Array(#""ping"}"#.utf8)))
        let pong = try XCTUnwrap(client.readFrame())
        XCTAssertEqual(pong.opcode, 0xA, "the ping is answered at once, between fragments")
        XCTAssertEqual(pong.payload, Array("hb".utf8))
        XCTAssertEqual(client.readText(), #"{"type":"pong"}"#, "the fragments made one message")
    }

    func testProtocolViolationsCloseWithTheirCodes() throws {
        let (server, _) = try serve()
        let cases: [(String, [UInt8], UInt16)] = [
            ("unmasked", WebSocketWire.frame(1, Array("hi".utf8), masked: false), 1002),
            ("not UTF-8", WebSocketWire.frame(1, [0x68, 0xC3, 0x28]), 1007),
            ("too big", WebSocketWire.frame(2, Array(repeating: 0, count: 1_100_000)), 1009),
            ("reserved bit", WebSocketWire.frame(1, Array("x".utf8), rsv: 4), 1002),
            ("orphan continuation", WebSocketWire.frame(0, Array("x".utf8)), 1002),
        ]
        for (name, bytes, code) in cases {
            let client = try open(server)
            _ = client.readText()
            client.send(bytes)
            let close = client.readFrame()
            XCTAssertEqual(close?.opcode, 8, name)
            XCTAssertEqual(close?.closeCode, code, name)
            XCTAssertTrue(client.connection.waitForClose(), "\(name): the server closes the connection")
        }
    }

    func testTheClientsCloseIsEchoedThenTheConnectionEnds() throws {
        let (server, engine) = try serve()
        let client = try open(server)
        _ = client.readText()
        client.sendClose(code: 1001, reason: "going away")
        let close = try XCTUnwrap(client.readFrame())
        XCTAssertEqual(close.closeCode, 1001)
        XCTAssertTrue(client.connection.waitForClose())
        let deadline = WireConnection.now() + 2_000
        while engine.webSockets.open.count > 0, WireConnection.now() < deadline {
            WireConnection.staysSilentFor(milliseconds: 10)
        }
        XCTAssertEqual(engine.webSockets.open.count, 0)
    }

    func testARuleClosesWithItsCodeAndReason() throws {
        let (server, _) = try serve()
        let client = try open(server)
        _ = client.readText()
        client.sendText("ok bye")
        let close = try XCTUnwrap(client.readFrame())
        XCTAssertEqual(close.closeCode, 1000)
        XCTAssertEqual(String(decoding: close.payload.dropFirst(2), as: UTF8.self), "bye")
        client.sendClose(code: 1000)
        XCTAssertTrue(client.connection.waitForClose(), "closed once the client answered")
    }

    func testAScriptedCloseAfterADelay() throws {
        let (server, _) = try serve(
            #"""
            {"request": {"path": "/dying"}, "websocket": {"close": {"code": 1011, "reason": "server error",
              "after": 100}}}
            """#
        )
        // From before the upgrade: the server counts from the moment it opened the socket.
        let started = WireConnection.now()
        let client = try open(server, "/dying")
        let close = try XCTUnwrap(client.readFrame())
        XCTAssertEqual(close.closeCode, 1011)
        XCTAssertGreaterThanOrEqual(WireConnection.now() - started, 99)
    }

    func testUnmatchedMessagesAreJournaledWithNearMissesOrClose() throws {
        let (server, engine) = try serve(
            #"""
            [{"request": {"path": "/quiet"}, "websocket": {"onMessage": [{"match": {"json": {"type": "ping"}},
              "reply": [{"send": "pong"}]}]}},
             {"request": {"path": "/strict"}, "websocket": {"onMessage": [{"match": {"equals": "hi"},
               "reply": [{"send": "hi"}]}], "onUnmatched": "close"}}]
            """#
        )
        let quiet = try open(server, "/quiet")
        quiet.sendText(#"{"type":"pong"}"#)
        quiet.sendText(#"{"type":"ping"}"#)
        XCTAssertEqual(quiet.readText(), "pong", "the unmatched message was ignored, the next one answered")
        let stream = try XCTUnwrap(engine.journal.entries.first { $0.path == "/quiet" }?.response?.stream?.snapshot)
        let unmatched = try XCTUnwrap(stream.items.first { $0.direction == .received && !$0.nearMiss.isEmpty })
        XCTAssertEqual(unmatched.text, #"{"type":"pong"}"#)
        XCTAssertEqual(unmatched.nearMiss, [#"onMessage[0]: body.type expected "ping", got "pong""#])
        let strict = try open(server, "/strict")
        strict.sendText("hello")
        XCTAssertEqual(strict.readFrame()?.closeCode, 1008)
    }

    func testRequestsThatCannotUpgradeGetClearAnswers() throws {
        let (server, _) = try serve()
        let plain = try WireConnection(port: server.port)
        plain.send("GET /chat/lobby HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = try plain.readResponse()
        XCTAssertEqual(refused.status, 426)
        XCTAssertEqual(refused.header("Upgrade"), "websocket")
        let oldVersion = try WireConnection(port: server.port)
        oldVersion.send(
            "GET /chat/lobby HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(WebSocketWire.sampleKey)\r\nSec-WebSocket-Version: 8\r\n\r\n"
        )
        let bad = try oldVersion.readResponse()
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.header("Sec-WebSocket-Version"), "13")
    }

    func testTheAdminAPIListsConnectionsAndPushesToThem() throws {
        let (server, engine) = try serve()
        let first = try open(server, "/chat/a")
        let second = try open(server, "/chat/b")
        _ = first.readText()
        _ = second.readText()
        let listed = try fetch("\(server.baseURL)/__admin/websockets")
        XCTAssertEqual(listed.status, 200)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.body.utf8)) as? [String: Any])
        let connections = try XCTUnwrap(json["websockets"] as? [[String: Any]])
        XCTAssertEqual(connections.compactMap { $0["path"] as? String }, ["/chat/a", "/chat/b"])
        XCTAssertEqual(connections.first?["stubName"] as? String, "chat")
        let pushed = try fetch(
            "\(server.baseURL)/__admin/websockets/chat/send",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"type": "notice"}"#
        )
        XCTAssertEqual(pushed.body, #"{"sent":2}"#)
        XCTAssertEqual(first.readText(), #"{"type":"notice"}"#)
        XCTAssertEqual(second.readText(), #"{"type":"notice"}"#)
        let text = try fetch(
            "\(server.baseURL)/__admin/websockets/chat/send",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #""plain words""#
        )
        XCTAssertEqual(text.status, 200)
        XCTAssertEqual(first.readText(), "plain words")
        let missing = try fetch(
            "\(server.baseURL)/__admin/websockets/nope/send",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: "{}"
        )
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(engine.webSockets.open.count, 2)
    }
}
