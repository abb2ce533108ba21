import HTTP1
@testable import StubEngine
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
}
