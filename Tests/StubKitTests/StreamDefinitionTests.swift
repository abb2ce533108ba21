import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import TestSupport
import XCTest

/// Streams written in Swift: `.events(...)` and `WebSocketDefinition` stand for exactly the
/// stub-file JSON they mirror (the server lists both the same), and they serve: events through
/// both transports, a WebSocket through `LocalStubServer`.
final class StreamDefinitionTests: XCTestCase {
    /// The same stubs as a stub file: every key of `events` and `websocket`.
    static let fileJSON = #"""
        [{"name": "tracking", "request": {"method": "GET", "path": "/v1/orders/{id}/tracking"}, "response": {
           "events": [
             {"event": "status", "id": "1", "data": {"state": "cooking"}},
             {"event": "status", "id": "2", "data": {"state": "on-the-way"}, "delay": 150},
             {"comment": "keep-alive", "delay": 100},
             {"event": "status", "id": "3", "retry": 5000, "data": "delivered {{request.path.id}}", "delay": 150}
           ],
           "then": "close"}},
         {"name": "held", "request": {"path": "/held"}, "response": {"status": 201, "headers": {"X-A": "1"},
           "events": [{"data": "a"}], "then": "hold", "heartbeat": 250}},
         {"name": "again", "request": {"path": "/again"}, "response": {
           "events": [{"data": "a", "delay": 10}], "then": "repeat"}},
         {"name": "broken", "request": {"path": "/broken"}, "response": {
           "events": [{"data": "a"}, {"fault": "reset", "delay": 20}]}},
         {"name": "replay", "request": {"path": "/replay"}, "response": {
           "eventsFile": "__files/orders.sse", "eventDelay": 30}},
         {"name": "chat", "request": {"method": "GET", "path": "/v1/chat"}, "websocket": {
           "onOpen": [{"send": {"type": "hello"}}, {"send": "welcome", "delay": 20}],
           "onMessage": [
             {"match": {"json": {"type": "ping"}}, "reply": [{"send": {"type": "pong"}}]},
             {"match": {"equals": "bin"}, "reply": [{"send": {"binary": "AAEC"}}]},
             {"match": {"contains": "bye"}, "close": {"code": 1000, "reason": "bye"}},
             {"reply": [{"send": "echo {{message.text}}", "delay": 5}], "close": {"code": 4000, "after": 50}}
           ],
           "onUnmatched": "close",
           "close": {"code": 1011, "reason": "done", "after": 60000}}}]
        """#

    static var swiftStubs: [StubDefinition] {
        [
            StubDefinition(
                name: "tracking",
                request: .get("/v1/orders/{id}/tracking"),
                response: .events(
                    [
                        .data(["state": "cooking"], event: "status", id: "1"),
                        .data(["state": "on-the-way"], event: "status", id: "2", after: .milliseconds(150)),
                        .comment("keep-alive", after: .milliseconds(100)),
                        .data(
                            "delivered {{request.path.id}}",
                            event: "status",
                            id: "3",
                            retry: .seconds(5),
                            after: .milliseconds(150)
                        ),
                    ],
                    then: .close
                )
            ),
            StubDefinition(
                name: "held",
                request: RequestDefinition(path: "/held"),
                response: .events(
                    [.data("a")],
                    then: .hold(heartbeat: .milliseconds(250)),
                    status: 201,
                    headers: ["X-A": "1"]
                )
            ),
            StubDefinition(
                name: "again",
                request: RequestDefinition(path: "/again"),
                response: .events([.data("a", after: .milliseconds(10))], then: .repeat)
            ),
            StubDefinition(
                name: "broken",
                request: RequestDefinition(path: "/broken"),
                response: .events([.data("a"), .fault(.reset, after: .milliseconds(20))])
            ),
            StubDefinition(
                name: "replay",
                request: RequestDefinition(path: "/replay"),
                response: .eventsFile("__files/orders.sse", eventDelay: .milliseconds(30))
            ),
            StubDefinition(
                name: "chat",
                request: .get("/v1/chat"),
                webSocket: WebSocketDefinition(
                    onOpen: [.json(["type": "hello"]), .text("welcome", after: .milliseconds(20))],
                    onMessage: [
                        WebSocketRule(match: .json(["type": "ping"]), reply: [.json(["type": "pong"])]),
                        WebSocketRule(match: .equals("bin"), reply: [.binary(Data([0, 1, 2]))]),
                        WebSocketRule(match: .contains("bye"), close: WebSocketClose(code: 1000, reason: "bye")),
                        WebSocketRule(
                            reply: [.text("echo {{message.text}}", after: .milliseconds(5))],
                            close: WebSocketClose(code: 4000, after: .milliseconds(50))
                        ),
                    ],
                    onUnmatched: .close,
                    close: WebSocketClose(code: 1011, reason: "done", after: .seconds(60))
                )
            ),
        ]
    }

    /// A folder with `__files/orders.sse`, and the stub file when `withStubs`.
    private func stubFolder(withStubs: Bool) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stream-defs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("__files"),
            withIntermediateDirectories: true
        )
        if withStubs { try Data(Self.fileJSON.utf8).write(to: folder.appendingPathComponent("stubs.json")) }
        try Data("data: one\n\ndata: two\n\n".utf8).write(to: folder.appendingPathComponent("__files/orders.sse"))
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }

    /// The Swift stubs, over a folder with the `.sse` file their `eventsFile` names.
    private func swiftStubs() throws -> Stubs {
        try Stubs(directory: try stubFolder(withStubs: false).path, Self.swiftStubs)
    }

    /// What the server lists of each stub (`GET /__admin/stubs`): its definition's parts.
    private func listed(_ stubs: Stubs) throws -> [NSDictionary] {
        let server = try LocalStubServer(stubs)
        defer { server.stop() }
        let fetched = try fetch(server.baseURL.absoluteString + "/__admin/stubs")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(fetched.body.utf8)) as? [String: Any])
        let list = try XCTUnwrap(json["stubs"] as? [[String: Any]])
        return list.map { stub in
            NSDictionary(dictionary: stub.filter { ["name", "request", "response", "websocket"].contains($0.key) })
        }
    }

    func testSwiftDefinitionsAreTheStubFilesJSON() throws {
        let fromFile = try listed(try Stubs(directory: try stubFolder(withStubs: true).path))
        let fromSwift = try listed(try Stubs(directory: try stubFolder(withStubs: false).path, Self.swiftStubs))
        XCTAssertEqual(fromFile.count, 6)
        XCTAssertEqual(fromSwift.count, fromFile.count)
        for (swift, file) in zip(fromSwift, fromFile) {
            XCTAssertEqual(swift, file)
        }
        // The listing shows a WebSocket stub's script (it once left `websocket` out).
        let chat = fromSwift.first { $0["name"] as? String == "chat" }
        XCTAssertNotNil(chat?["websocket"], "\(String(describing: chat))")
    }

    func testEventsDefinedInSwiftArriveOneAtATimeThroughBothTransports() throws {
        for transport in Transport.allCases {
            let stubs = try swiftStubs()
            let client = try client(of: stubs, through: transport)
            let collector = StreamTransportTests.ChunkCollector()
            let session = URLSession(
                configuration: client.session.configuration,
                delegate: collector,
                delegateQueue: nil
            )
            session.dataTask(with: client.baseURL.appendingPathComponent("v1/orders/7/tracking")).resume()
            XCTAssertEqual(collector.finished.wait(timeout: .now() + 10), .success, "\(transport)")
            XCTAssertNil(collector.error, "\(transport)")
            let chunks = collector.received.map(\.text)
            XCTAssertEqual(
                chunks,
                [
                    "event: status\nid: 1\ndata: {\"state\":\"cooking\"}\n\n",
                    "event: status\nid: 2\ndata: {\"state\":\"on-the-way\"}\n\n",
                    ": keep-alive\n\n",
                    "event: status\nid: 3\nretry: 5000\ndata: delivered 7\n\n",
                ],
                "\(transport): one chunk per event, as the stub file's"
            )
            session.invalidateAndCancel()
        }
    }

    #if canImport(Darwin)
    /// `URLSession.bytes(for:)` exists on Apple platforms only (swift-corelibs-foundation has no
    /// `AsyncBytes`); there, each event's lines arrive at their time through both transports.
    func testBytesForSeesEachEventArriveAtItsTime() async throws {
        for transport in Transport.allCases {
            let stubs = try swiftStubs()
            let client = try client(of: stubs, through: transport)
            let started = ContinuousClock.now
            let request = URLRequest(url: client.baseURL.appendingPathComponent("v1/orders/7/tracking"))
            let (bytes, _) = try await client.session.bytes(for: request)
            var arrivals: [Duration] = []
            for try await line in bytes.lines where line.hasPrefix("data:") {
                arrivals.append(ContinuousClock.now - started)
            }
            XCTAssertEqual(arrivals.count, 3, "\(transport)")
            // Due at 0, 150 and 400 ms: the second and third come at their times, not at the end.
            XCTAssertGreaterThanOrEqual(arrivals[1] - arrivals[0], .milliseconds(120), "\(transport)")
            XCTAssertGreaterThanOrEqual(arrivals[2] - arrivals[1], .milliseconds(200), "\(transport)")
        }
    }
    #endif

    func testAWebSocketDefinedInSwiftServesThroughLocalStubServer() throws {
        let server = try LocalStubServer(try swiftStubs())
        addTeardownBlock { server.stop() }
        let port = try XCTUnwrap(server.baseURL.port)
        let client = try WebSocketWire(port: port)
        XCTAssertEqual(try client.open("/v1/chat").status, 101)
        XCTAssertEqual(client.readText(), #"{"type":"hello"}"#)
        XCTAssertEqual(client.readText(), "welcome")
        client.sendText(#"{"type":"ping"}"#)
        XCTAssertEqual(client.readText(), #"{"type":"pong"}"#)
        client.sendText("bin")
        let binary = try XCTUnwrap(client.readFrame())
        XCTAssertEqual(binary.opcode, 2)
        XCTAssertEqual(binary.payload, [0, 1, 2])
        client.sendText("hi")
        XCTAssertEqual(client.readText(), "echo hi")
        XCTAssertEqual(client.readFrame()?.closeCode, 4000, "the catch-all rule closes after its reply")
    }

    /// What a test that forgets the transport does: a `URLSessionWebSocketTask` on
    /// `StubURLProtocol`'s configuration. It must fail at once, saying why, not wait forever.
    func testAWebSocketTaskThroughStubURLProtocolFailsAtOnceSayingWhy() throws {
        let stubs = try swiftStubs()
        let transport = StubURLProtocol.register(stubs)
        addTeardownBlock { StubURLProtocol.unregister(transport) }
        var components = URLComponents(url: transport.baseURL, resolvingAgainstBaseURL: false)!
        components.scheme = "ws"
        components.path = "/v1/chat"
        let session = URLSession(configuration: transport.configuration)
        addTeardownBlock { session.invalidateAndCancel() }
        let task = session.webSocketTask(with: components.url!)
        task.resume()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<URLSessionWebSocketTask.Message, any Error>?
        task.receive { result in
            outcome = result
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "an error within 5 s, not a hang")
        guard case .failure(let error)? = outcome else {
            return XCTFail("a message through a URLProtocol: \(outcome!)")
        }
        let urlError = try XCTUnwrap(error as? URLError, "\(error)")
        XCTAssertEqual(urlError.code, .unsupportedURL)
        // swift-corelibs-foundation refuses WebSocket tasks itself when its libcurl has no
        // WebSocket support (as here), before any URLProtocol; where it has, the task reaches
        // StubURLProtocol, whose refusal names LocalStubServer (the next test).
        let description = urlError.localizedDescription
        XCTAssertTrue(
            description.contains("LocalStubServer") || description.contains("not supported by libcurl"),
            description
        )
    }

    /// Any task for a ws:// URL that reaches `StubURLProtocol` is refused, saying why: without
    /// this, its GET (no handshake headers) got the WebSocket stub's 426.
    func testAWebSocketURLThroughStubURLProtocolIsRefusedSayingWhy() throws {
        let stubs = try swiftStubs()
        let transport = StubURLProtocol.register(stubs)
        addTeardownBlock { StubURLProtocol.unregister(transport) }
        let url = URL(string: "ws://\(transport.baseURL.host!)/v1/chat")!
        let session = URLSession(configuration: transport.configuration)
        addTeardownBlock { session.invalidateAndCancel() }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        nonisolated(unsafe) var status: Int?
        session.dataTask(with: url) { _, response, error in
            failure = error
            status = (response as? HTTPURLResponse)?.statusCode
            done.signal()
        }.resume()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "an answer, not a hang")
        XCTAssertNil(status, "not the stub's 426")
        let error = try XCTUnwrap(failure as? URLError, "\(String(describing: failure))")
        XCTAssertEqual(error.code, .unsupportedURL)
        XCTAssertTrue(error.localizedDescription.contains("LocalStubServer"), error.localizedDescription)
    }
}
