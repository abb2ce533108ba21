import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAdmin
import StubEngine
import TestSupport
import XCTest

/// `GET /__admin/events` on the wire: one event per journal entry with its id, replay after
/// `Last-Event-ID`, gaps said out loud, heartbeats, slow readers dropped, streams counted and
/// ended on stop.
final class InspectorEventTests: XCTestCase {
    static let stubs =
        #"[{"name": "Hello", "request": {"method": "GET", "path": "/hello"}, "response": {"body": "hi"}}]"#

    func serve(
        _ options: Engine.Options = .init(),
        events: EventFeedLimits = EventFeedLimits(),
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> (HTTP1Server, Engine) {
        try serveFeeds(options, events: events, configure).server
    }

    /// The server, its engine, and the route set of its event streams (which counts them).
    func serveFeeds(
        _ options: Engine.Options = .init(),
        events: EventFeedLimits = EventFeedLimits(),
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> (server: (HTTP1Server, Engine), feeds: EventRoutes) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inspector-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.stubs.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let feeds = EventRoutes(limits: events)
        var options = options
        options.adminRoutes = [NativeAdminRoutes(), feeds, WebSocketRoutes()]
        let engine = Engine(stubs: StubLoader(directory: folder.path).load().stubs, options: options)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return ((server, engine), feeds)
    }

    /// `count` requests on one keep-alive connection, answered one by one.
    static func fire(
        _ port: Int,
        _ count: Int,
        pauseMicroseconds: UInt32 = 0,
        path: (Int) -> String = { $0 % 3 == 0 ? "/nothing/\($0)" : "/hello?n=\($0)" }
    ) throws {
        let c = try WireConnection(port: port)
        for i in 0..<count {
            if pauseMicroseconds > 0 { usleep(pauseMicroseconds) }
            c.send("GET \(path(i)) HTTP/1.1\r\nHost: app.test\r\n\r\n")
            _ = try c.readResponse()
        }
    }

    func eventually(_ timeoutMilliseconds: Int = 5_000, _ condition: () -> Bool) -> Bool {
        let deadline = WireConnection.now() + timeoutMilliseconds
        while !condition() {
            guard WireConnection.now() < deadline else { return false }
            usleep(5_000)
        }
        return true
    }

    func data(_ event: ServerSentEvent) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any] ?? [:]
    }

    func testOneEventPerEntryWithTheJournalIDAsEventID() throws {
        let (server, _) = try serve()
        let stream = try EventStreamReader(port: server.port, target: "/__admin/events")
        XCTAssertTrue(stream.wait { !$0.named("hello").isEmpty })
        XCTAssertEqual(stream.head?.status, 200)
        XCTAssertEqual(stream.head?.header("Content-Type"), "text/event-stream; charset=utf-8")
        XCTAssertEqual(stream.head?.header("Transfer-Encoding"), "chunked")
        try Self.fire(server.port, 3)
        XCTAssertTrue(stream.wait { $0.entryIDs.count == 3 }, "\(stream.events)")
        XCTAssertEqual(stream.entryIDs, [1, 2, 3])
        let entries = stream.events.filter { $0.id != nil }.map(data)
        XCTAssertEqual(entries[0]["target"] as? String, "/nothing/0")
        XCTAssertTrue(entries[0]["stub"] is NSNull, "no stub matched")
        XCTAssertEqual(entries[0]["status"] as? Int, 404)
        XCTAssertEqual(entries[1]["target"] as? String, "/hello?n=1")
        XCTAssertEqual((entries[1]["stub"] as? [String: Any])?["name"] as? String, "Hello")
        XCTAssertEqual(entries[1]["method"] as? String, "GET")
        XCTAssertNotNil(entries[1]["durationMs"] as? Double)
        XCTAssertEqual(entries[1]["id"] as? Int, 2)
    }

    func testLastEventIDReplaysWhatThePageMissedAndSinceZeroEverything() throws {
        let (server, _) = try serve()
        try Self.fire(server.port, 5)
        let resumed = try EventStreamReader(
            port: server.port,
            target: "/__admin/events?since=0",
            headers: ["Last-Event-ID: 2"]
        )
        XCTAssertTrue(resumed.wait { $0.entryIDs.count == 3 })
        XCTAssertEqual(resumed.entryIDs, [3, 4, 5], "Last-Event-ID wins over since=")
        let everything = try EventStreamReader(port: server.port, target: "/__admin/events?since=0")
        XCTAssertTrue(everything.wait { $0.entryIDs.count == 5 })
        let live = try EventStreamReader(port: server.port, target: "/__admin/events")
        XCTAssertTrue(live.wait { !$0.named("hello").isEmpty })
        try Self.fire(server.port, 1)
        XCTAssertTrue(resumed.wait { $0.entryIDs.count == 4 })
        XCTAssertTrue(live.wait { $0.entryIDs == [6] }, "without since or Last-Event-ID: only what comes next")
        XCTAssertEqual(resumed.entryIDs, [3, 4, 5, 6])
        XCTAssertTrue(everything.wait { $0.entryIDs.count == 6 })
        XCTAssertEqual(everything.entryIDs, [1, 2, 3, 4, 5, 6])
        // A page from before a restart (an id the journal never reached) gets everything, told why.
        let stale = try EventStreamReader(port: server.port, target: "/__admin/events", headers: ["Last-Event-ID: 900"])
        XCTAssertTrue(stale.wait { $0.entryIDs.count == 6 })
        XCTAssertEqual(data(stale.named("hello")[0])["restarted"] as? Bool, true)
    }

    func testDroppingAndReopeningTheStreamInTheMiddleOf200RequestsLosesAndRepeatsNothing() throws {
        let (server, engine) = try serve()
        var received: [Int] = []
        let port = server.port
        // Paced over about a second, so the stream is dropped while requests still arrive.
        let firing = Thread { try? Self.fire(port, 200, pauseMicroseconds: 5_000) }
        var stream = try EventStreamReader(port: server.port, target: "/__admin/events?since=0")
        firing.start()
        for dropAt in [40, 120] {
            XCTAssertTrue(stream.wait(timeoutMilliseconds: 20_000) { received.count + $0.entryIDs.count >= dropAt })
            received += stream.entryIDs
            stream.close()
            // As a browser does: reconnect with the last id it got.
            stream = try EventStreamReader(
                port: server.port,
                target: "/__admin/events?since=0",
                headers: ["Last-Event-ID: \(received.last ?? 0)"]
            )
        }
        XCTAssertTrue(
            stream.wait(timeoutMilliseconds: 30_000) { received.count + $0.entryIDs.count >= 200 },
            "\(received.count) + \(stream.entryIDs.count)"
        )
        received += stream.entryIDs
        XCTAssertEqual(received, Array(1...200), "every entry once, in order")
        stream.wait(timeoutMilliseconds: 200) { _ in false }  // anything more would arrive now
        XCTAssertEqual(stream.entryIDs.last, 200, "and nothing after")
        XCTAssertEqual(engine.journal.lastID, 200)
    }

    func testAGapIsReportedWhenTheJournalDroppedWhatAPageMissed() throws {
        var options = Engine.Options()
        options.journalCapacity = 10
        let (server, _) = try serve(options)
        try Self.fire(server.port, 30)
        let stream = try EventStreamReader(port: server.port, target: "/__admin/events", headers: ["Last-Event-ID: 5"])
        XCTAssertTrue(stream.wait { $0.entryIDs.count == 10 })
        XCTAssertEqual(stream.entryIDs, Array(21...30))
        let gap = try XCTUnwrap(stream.named("gap").first)
        XCTAssertEqual(data(gap)["after"] as? Int, 5)
        XCTAssertEqual(data(gap)["through"] as? Int, 20)
        // A fresh page asks for whatever the journal has: no gap to report.
        let fresh = try EventStreamReader(port: server.port, target: "/__admin/events?since=0")
        XCTAssertTrue(fresh.wait { $0.entryIDs.count == 10 })
        XCTAssertTrue(fresh.named("gap").isEmpty)
    }

    func testClearingTheJournalIsAnEventAndIDsGoOn() throws {
        let (server, engine) = try serve()
        let stream = try EventStreamReader(port: server.port, target: "/__admin/events?since=0")
        try Self.fire(server.port, 2)
        XCTAssertTrue(stream.wait { $0.entryIDs.count == 2 })
        engine.journal.clear()
        XCTAssertTrue(stream.wait { !$0.named("cleared").isEmpty })
        try Self.fire(server.port, 1)
        XCTAssertTrue(stream.wait { $0.entryIDs.count == 3 })
        XCTAssertEqual(stream.entryIDs, [1, 2, 3])
    }

    func testHeartbeatsKeepAQuietStreamAlive() throws {
        var events = EventFeedLimits()
        events.heartbeatMilliseconds = 100
        let (server, _) = try serve(events: events)
        let stream = try EventStreamReader(port: server.port, target: "/__admin/events")
        XCTAssertTrue(
            stream.wait(timeoutMilliseconds: 3_000) { $0.events.filter { $0.comment == "keep-alive" }.count >= 2 }
        )
    }

    func testTheStreamIsCountedAndEndedWhenTheServerStops() async throws {
        let ((server, engine), feeds) = try serveFeeds()
        let stream = try EventStreamReader(port: server.port, target: "/__admin/events")
        XCTAssertTrue(stream.wait { !$0.named("hello").isEmpty })
        XCTAssertEqual(server.streamCount, 1)
        XCTAssertEqual(engine.journal.listenerCount, 1)
        await server.stop()
        XCTAssertTrue(stream.readToClose(), "the server closed the stream")
        XCTAssertTrue(stream.ended, "with the last chunk: ended, not cut")
        XCTAssertEqual(server.streamCount, 0)
        XCTAssertTrue(eventually { engine.journal.listenerCount == 0 && feeds.openFeedCount == 0 })
    }

    func testAClientThatLeavesStopsListening() throws {
        let ((server, engine), feeds) = try serveFeeds()
        let stream = try EventStreamReader(port: server.port, target: "/__admin/events")
        XCTAssertTrue(stream.wait { !$0.named("hello").isEmpty })
        stream.close()
        XCTAssertTrue(
            eventually { engine.journal.listenerCount == 0 && feeds.openFeedCount == 0 && server.streamCount == 0 }
        )
    }

    func testStreamsAreBounded() throws {
        var events = EventFeedLimits()
        events.maxFeeds = 2
        let (server, _) = try serve(events: events)
        let streams = try (0..<2).map { _ in try EventStreamReader(port: server.port, target: "/__admin/events") }
        for stream in streams { XCTAssertTrue(stream.wait { !$0.named("hello").isEmpty }) }
        let third = try WireConnection(port: server.port)
        third.send("GET /__admin/events HTTP/1.1\r\nHost: localhost\r\n\r\n")
        XCTAssertEqual(try third.readResponse().status, 503)
    }

    /// A page that takes nothing must not hold the server up: its stream stops at the
    /// back-pressure mark, then it is dropped, and requests go on being answered meanwhile.
    func testAReaderThatTakesNothingIsDroppedAndTheServerKeepsServing() throws {
        var options = Engine.Options()
        options.journalCapacity = 5_000
        var events = EventFeedLimits()
        events.maxBacklog = 100
        events.batchMilliseconds = 5
        let ((server, engine), feeds) = try serveFeeds(options, events: events)
        let stalled = try EventStreamReader(port: server.port, target: "/__admin/events", receiveBuffer: 4096)
        XCTAssertTrue(eventually { engine.journal.listenerCount == 1 })
        // Long targets make big events: a few megabytes fill every buffer on the way.
        let long = String(repeating: "x", count: 4000)
        let client = try WireConnection(port: server.port)
        var sent = 0
        let started = WireConnection.now()
        while engine.journal.listenerCount > 0, sent < 20_000 {
            let batch = 50
            client.send((0..<batch).map { "GET /hello/\(long)/\(sent + $0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined())
            for _ in 0..<batch { XCTAssertEqual(try client.readResponse().status, 404) }
            sent += batch
        }
        XCTAssertEqual(engine.journal.listenerCount, 0, "dropped after \(sent) requests")
        XCTAssertLessThan(WireConnection.now() - started, 60_000)
        // It gets what was already queued, then a last event saying why, then the end.
        XCTAssertTrue(stalled.wait(timeoutMilliseconds: 20_000) { $0.ended }, "the stream ended properly")
        XCTAssertEqual(stalled.named("dropped").count, 1)
        XCTAssertTrue(eventually { feeds.openFeedCount == 0 })
    }
}
