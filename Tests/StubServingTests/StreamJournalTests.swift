import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAdmin
import StubEngine
import TestSupport
import XCTest

/// Streams in the journal, read the way the inspector and scripts read them: the admin API's
/// entry (`GET /__admin/requests/{id}`) and the live feed (`GET /__admin/events`), over real
/// sockets. Both directions of a WebSocket with near misses, events with their times, a feed
/// that follows a stream as it runs, and the bound on a long stream.
final class StreamJournalTests: XCTestCase {
    static let stubs = #"""
        [{"name": "chat", "request": {"method": "GET", "path": "/chat"}, "websocket": {
           "onOpen": [{"send": {"type": "hello"}}],
           "onMessage": [{"match": {"json": {"type": "ping"}}, "reply": [{"send": {"type": "pong"}}]}]}},
         {"name": "echo", "request": {"method": "GET", "path": "/echo"}, "websocket": {
           "onMessage": [{"reply": [{"send": "{{message.text}}"}]}]}},
         {"name": "tracking", "request": {"path": "/tracking"}, "response": {"events": [
           {"id": "1", "data": "cooking"},
           {"id": "2", "data": "on the way", "delay": 150},
           {"id": "3", "data": "delivered", "delay": 150}]}}]
        """#

    private func serve() throws -> HTTP1Server {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stream-journal-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.stubs.utf8).write(to: folder.appendingPathComponent("stubs.json"))
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
        return server
    }

    private func openSocket(_ server: HTTP1Server, _ path: String) throws -> WebSocketWire {
        let client = try WebSocketWire(port: server.port)
        XCTAssertEqual(try client.open(path).status, 101)
        return client
    }

    /// The entry's `stream` as the admin API gives it.
    private func stream(_ server: HTTP1Server, entry id: Int) throws -> [String: Any] {
        let fetched = try fetch("\(server.baseURL)/__admin/requests/\(id)")
        XCTAssertEqual(fetched.status, 200)
        let entry = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(fetched.body.utf8)) as? [String: Any])
        return try XCTUnwrap(entry["stream"] as? [String: Any], fetched.body)
    }

    /// The feed's `stream` events for one entry: `(count, ended)` of each.
    private func changes(_ feed: EventStreamReader, entry id: Int) -> [(count: Int, ended: String?)] {
        feed.named("stream").compactMap { event in
            guard let change = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any],
                change["id"] as? Int == id, let stream = change["stream"] as? [String: Any],
                let count = stream["count"] as? Int
            else { return nil }
            return (count, stream["ended"] as? String)
        }
    }

    func testAWebSocketShowsBothDirectionsAndNearMissesLiveAndThenHowItEnded() throws {
        let server = try serve()
        let feed = try EventStreamReader(port: server.port, target: "/__admin/events")
        XCTAssertTrue(feed.wait { !$0.named("hello").isEmpty })
        let client = try openSocket(server, "/chat")
        XCTAssertEqual(client.readText(), #"{"type":"hello"}"#)
        client.sendText(#"{"type":"ping"}"#)
        XCTAssertEqual(client.readText(), #"{"type":"pong"}"#)
        client.sendText(#"{"type":"pong"}"#)
        XCTAssertTrue(feed.wait { $0.entryIDs.count == 1 }, "the upgrade's entry")
        let id = try XCTUnwrap(feed.entryIDs.first)
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(feed.events.first { $0.numericID == id }!.data.utf8))
                as? [String: Any]
        )
        XCTAssertEqual((summary["stream"] as? [String: Any])?["kind"] as? String, "websocket")
        XCTAssertTrue(
            feed.wait { self.changes($0, entry: id).last?.count == 4 },
            "the feed follows the stream: \(changes(feed, entry: id))"
        )
        XCTAssertNil(changes(feed, entry: id).last?.ended, "still open")

        let open = try stream(server, entry: id)
        XCTAssertEqual(open["kind"] as? String, "websocket")
        XCTAssertTrue(open["ended"] is NSNull, "open: ended is null")
        let items = try XCTUnwrap(open["items"] as? [[String: Any]])
        XCTAssertEqual(items.compactMap { $0["direction"] as? String }, ["sent", "received", "sent", "received"])
        XCTAssertEqual(
            items.compactMap { $0["text"] as? String },
            [#"{"type":"hello"}"#, #"{"type":"ping"}"#, #"{"type":"pong"}"#, #"{"type":"pong"}"#]
        )
        XCTAssertNil(items[1]["nearMiss"], "a matched message has no near-miss lines")
        XCTAssertEqual(items[3]["nearMiss"] as? [String], [#"onMessage[0]: body.type expected "ping", got "pong""#])
        let times = items.compactMap { $0["atMs"] as? Int }
        XCTAssertEqual(times, times.sorted(), "in order, with times from the start: \(times)")

        client.sendClose(code: 1000, reason: "done")
        XCTAssertTrue(
            feed.wait { self.changes($0, entry: id).last?.ended != nil },
            "the feed says it ended: \(changes(feed, entry: id))"
        )
        XCTAssertEqual(try stream(server, entry: id)["ended"] as? String, "closed: 1000 done")
    }

    func testEventsShowWithTheirTimesAsTheyAreSent() throws {
        let server = try serve()
        let feed = try EventStreamReader(port: server.port, target: "/__admin/events")
        XCTAssertTrue(feed.wait { !$0.named("hello").isEmpty })
        let reader = try EventStreamReader(port: server.port, target: "/tracking")
        XCTAssertTrue(reader.wait { $0.events.count == 1 })
        XCTAssertTrue(feed.wait { $0.entryIDs.count == 1 })
        let id = try XCTUnwrap(feed.entryIDs.first)
        XCTAssertTrue(reader.wait { $0.ended }, "three events, then the end")
        XCTAssertTrue(feed.wait { self.changes($0, entry: id).last?.ended != nil })
        let counts = changes(feed, entry: id).map(\.count)
        XCTAssertEqual(counts.last, 3)
        XCTAssertGreaterThan(counts.count, 1, "one change per event, not one at the end: \(counts)")
        let stream = try stream(server, entry: id)
        XCTAssertEqual(stream["kind"] as? String, "events")
        XCTAssertEqual(stream["ended"] as? String, "the stream ended after its last event")
        let items = try XCTUnwrap(stream["items"] as? [[String: Any]])
        XCTAssertEqual(
            items.compactMap { $0["text"] as? String },
            [
                "event id 1: id: 1\ndata: cooking", "event id 2: id: 2\ndata: on the way",
                "event id 3: id: 3\ndata: delivered",
            ]
        )
        let times = items.compactMap { $0["atMs"] as? Int }
        XCTAssertEqual(times.count, 3)
        // Due at 0, 150 and 300 ms: never early; late only by what a loaded machine adds.
        XCTAssertGreaterThanOrEqual(times[1], 149, "\(times)")
        XCTAssertGreaterThanOrEqual(times[2], 299, "\(times)")
    }

    func testALongStreamKeepsItsFirstAndLatestItemsAndCountsTheRest() throws {
        let server = try serve()
        let client = try openSocket(server, "/echo")
        let messages = 600
        for n in 0..<messages {
            client.sendText("m\(n)")
            XCTAssertEqual(client.readText(), "m\(n)")
        }
        let entries = try fetch("\(server.baseURL)/__admin/requests")
        let list = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(entries.body.utf8)) as? [String: Any])
        let id = try XCTUnwrap((list["requests"] as? [[String: Any]])?.first?["id"] as? Int)
        let stream = try stream(server, entry: id)
        let items = try XCTUnwrap(stream["items"] as? [[String: Any]])
        // 1,200 items (each message in and out): the first 100 and the latest 400 are kept.
        XCTAssertEqual(items.count, 500)
        XCTAssertEqual(stream["omitted"] as? Int, 2 * messages - 500)
        XCTAssertEqual(stream["omittedAfter"] as? Int, 100)
        let texts = items.compactMap { $0["text"] as? String }
        XCTAssertEqual(texts.first, "m0")
        XCTAssertEqual(texts[99], "m49", "the 100th item: message 49's reply")
        XCTAssertEqual(texts[100], "m400", "after the gap: the latest 400, from message 400 on")
        XCTAssertEqual(texts.last, "m\(messages - 1)")
    }
}
