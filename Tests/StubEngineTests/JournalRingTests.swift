import HTTP1
@testable import StubEngine
import SystemSupport
import XCTest

/// The journal's ring: what it keeps of each request and answer, and what it lets go.
final class JournalRingTests: XCTestCase {
    private func engine(journal capacity: Int) -> Engine {
        Engine(
            stubs: loadStubs(
                #"{"request": {"path": "/a"}, "response": {"status": 201, "headers": {"X-Kind": "a"}, "body": "made"}}"#
            ),
            options: .init(journalCapacity: capacity)
        )
    }

    func testTheRingKeepsTheNewestEntriesWithEverythingTheyRecorded() {
        let e = engine(journal: 2)
        for i in 1...5 {
            _ = e.handle(makeRequest("POST", "/a?n=\(i)", headers: [("X-Trace", "t\(i)")], body: "b\(i)"))
        }
        XCTAssertEqual(e.journal.entries.map(\.id), [4, 5])
        XCTAssertNil(e.journal.entry(id: 3), "evicted")
        let entry = try! XCTUnwrap(e.journal.entry(id: 5))
        XCTAssertEqual(entry.method, "POST")
        XCTAssertEqual(entry.path, "/a")
        XCTAssertEqual(entry.target, "/a?n=5")
        XCTAssertEqual(entry.queryItems.map(\.value), ["5"])
        XCTAssertEqual(entry.headers["X-Trace"], "t5")
        XCTAssertEqual(entry.body, Array("b5".utf8))
        XCTAssertEqual(entry.bodySize, 2)
        XCTAssertEqual(entry.status, 201)
        XCTAssertNotNil(entry.stubID)
        XCTAssertEqual(entry.response?.headers["X-Kind"], "a")
        XCTAssertEqual(entry.response?.body, Array("made".utf8))
        XCTAssertNil(entry.fault)
        XCTAssertEqual(entry.request.target, "/a?n=5", "the request rebuilt for find and count")
        XCTAssertEqual(e.journal.read(after: 4).entries.map(\.id), [5])
        XCTAssertEqual(e.journal.read(after: 0).evictedThrough, 3)
    }

    /// One clock read per request: `receivedAt` is when the chain began, and an answer given at
    /// once lasted its delay, not the engine's microseconds.
    func testAnEntryIsMadeWithOneClockRead() throws {
        let e = Engine(
            stubs: loadStubs(#"{"request": {"path": "/slow"}, "response": {"body": "s", "delay": 250}}"#),
            options: .init(journalCapacity: 4)
        )
        var request = makeRequest("GET", "/slow?a=1&a=2&b", headers: [("X-Trace", "t")])
        request.peer = "10.0.0.7:51000"
        let before = Int(WallClock.nanosecondsSince1970() / 1_000_000)
        _ = e.handle(request)
        let after = Int(WallClock.nanosecondsSince1970() / 1_000_000)
        let entry = try XCTUnwrap(e.journal.entries.last)
        XCTAssertEqual(entry.request.authority, "api.example.com:8080")
        XCTAssertEqual(entry.request.queryItems.map(\.name), ["a", "a", "b"])
        XCTAssertEqual(entry.peer, "10.0.0.7:51000")
        XCTAssertEqual(entry.durationMilliseconds, 250, "the delay, not the engine's microseconds")
        XCTAssertTrue((before...after).contains(entry.receivedAtMilliseconds))
    }

    /// Past the body limit the kept body is cut (its real size kept); the rest stays as it came.
    func testTheKeptRequestLosesOnlyABodyOverTheLimit() throws {
        let e = Engine(stubs: loadStubs(#"{"response": {"status": 204}}"#), options: .init(journalCapacity: 4))
        let large = String(repeating: "x", count: Journal.maximumBodyBytes + 10)
        _ = e.handle(makeRequest("POST", "/upload?x=1", headers: [("X-Keep", "1")], body: large))
        let entry = try XCTUnwrap(e.journal.entries.last)
        XCTAssertEqual(entry.body.count, Journal.maximumBodyBytes)
        XCTAssertEqual(entry.request.body.count, Journal.maximumBodyBytes)
        XCTAssertEqual(entry.bodySize, Journal.maximumBodyBytes + 10)
        XCTAssertEqual(entry.headers["X-Keep"], "1")
        XCTAssertEqual(entry.request.rawQuery, "x=1")
        XCTAssertEqual(entry.target, "/upload?x=1")
    }

    /// The request is kept as it came: its head's bytes, fields in order with their case,
    /// repeats and spacing; what the entry says of it is read from those bytes.
    func testTheEntryKeepsTheHeadAsItCame() throws {
        let e = engine(journal: 4)
        let head =
            "POST /a?n=1&n=2 HTTP/1.1\r\nHost: api.example.com:8080\r\nx-TRACE:  t1 \r\nX-Trace: t2\r\n"
            + "Content-Length: 2\r\n\r\n"
        var parser = RequestParser()
        var bytes = Array((head + "hi").utf8)[...]
        while true {
            let (event, consumed) = bytes.withUnsafeBufferPointer { parser.parse($0) }
            bytes = bytes.dropFirst(consumed)
            if case .request = event { break }
            guard case .needMore = event, consumed > 0 else { return XCTFail("\(event)") }
        }
        _ = e.handle(parser.takeRequest())
        let entry = try XCTUnwrap(e.journal.entries.last)
        XCTAssertEqual(entry.head, Array(head.utf8))
        XCTAssertEqual(entry.method, "POST")
        XCTAssertEqual(entry.target, "/a?n=1&n=2")
        XCTAssertEqual(entry.queryItems.map(\.value), ["1", "2"])
        XCTAssertEqual(entry.headers.map(\.name), ["Host", "x-TRACE", "X-Trace", "Content-Length"])
        XCTAssertEqual(entry.headers.values("x-trace"), ["t1", "t2"])
        XCTAssertEqual(entry.host, "api.example.com:8080")
        XCTAssertEqual(entry.request.body, Array("hi".utf8))
        XCTAssertEqual(entry.request.version, .http1_1)
    }

    /// A request that never was bytes (the in-process transport) is kept as its fields.
    func testARequestWithoutBytesIsKeptAsItsFields() throws {
        let e = engine(journal: 4)
        let request = try IncomingRequest.make(
            method: "GET",
            target: "/a?q=1",
            headers: HeaderFields([("Host", "in.process"), ("X-Trace", "t")]),
            body: [],
            peer: "",
            authority: "in.process"
        )
        _ = e.handle(request)
        let entry = try XCTUnwrap(e.journal.entries.last)
        XCTAssertEqual(entry.head, [])
        XCTAssertEqual(entry.target, "/a?q=1")
        XCTAssertEqual(entry.queryItems.map(\.value), ["1"])
        XCTAssertEqual(entry.headers["X-Trace"], "t")
        XCTAssertEqual(entry.host, "in.process")
    }

    /// The wall clock may be set back while an answer is underway: a duration is never negative.
    func testADurationIsNeverNegative() {
        let future = WallClock.nanosecondsSince1970() + 60_000_000_000
        XCTAssertEqual(JournalDelivery.milliseconds(since: future), 0)
    }
}
