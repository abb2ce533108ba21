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

    /// The wall clock may be set back while an answer is underway: a duration is never negative.
    func testADurationIsNeverNegative() {
        let future = WallClock.nanosecondsSince1970() + 60_000_000_000
        XCTAssertEqual(JournalDelivery.milliseconds(since: future), 0)
    }
}
