import HTTP1
@testable import StubEngine
import XCTest

/// The journal's evicted entries: released at once by default, and after the answer is sent
/// when a transport calls the engine back between passes (`Engine.afterAnswersWork`).
final class JournalReleaseTests: XCTestCase {
    private func engine(journal capacity: Int) -> Engine {
        Engine(stubs: loadStubs(#"{"request": {"path": "/a"}, "response": {"body": "a"}}"#), options: .init(journalCapacity: capacity))
    }

    private func answer(_ engine: Engine, _ count: Int) {
        for _ in 0..<count { _ = engine.handle(makeRequest("GET", "/a")) }
    }

    func testWithoutACallBackTheRingReleasesWhatItEvictsAtOnce() {
        let e = engine(journal: 2)
        answer(e, 5)
        XCTAssertEqual(e.journal.evictedAwaitingRelease, 0)
        XCTAssertEqual(e.journal.entries.map(\.id), [4, 5])
    }

    func testWithACallBackEvictedEntriesWaitForItAndTheRingIsUnchanged() {
        let e = engine(journal: 2)
        let afterAnswers = e.afterAnswersWork()
        answer(e, 5)
        XCTAssertEqual(e.journal.evictedAwaitingRelease, 3, "ids 1 to 3 left the ring and wait for the call-back")
        XCTAssertEqual(e.journal.entries.map(\.id), [4, 5])
        XCTAssertEqual(e.journal.entries.map(\.path), ["/a", "/a"])
        XCTAssertNil(e.journal.entry(id: 3), "an evicted entry is gone from the journal while it waits")
        afterAnswers()
        XCTAssertEqual(e.journal.evictedAwaitingRelease, 0)
        afterAnswers() // nothing waiting: nothing to do
        answer(e, 1)
        XCTAssertEqual(e.journal.evictedAwaitingRelease, 1, "the emptied buffer takes the next eviction")
        XCTAssertEqual(e.journal.entries.map(\.id), [5, 6])
        afterAnswers()
        XCTAssertEqual(e.journal.evictedAwaitingRelease, 0)
    }

    func testWaitingEntriesAreBoundedWhenNobodyCallsBack() {
        let e = engine(journal: 1)
        _ = e.afterAnswersWork()
        answer(e, Journal.deferredReleaseLimit + 20)
        XCTAssertEqual(e.journal.evictedAwaitingRelease, Journal.deferredReleaseLimit,
                       "past the limit the recorder releases what it evicts itself")
        XCTAssertEqual(e.journal.entries.map(\.id), [Journal.deferredReleaseLimit + 20])
    }

    func testAClearedJournalStillReleasesWhatWaits() {
        let e = engine(journal: 1)
        let afterAnswers = e.afterAnswersWork()
        answer(e, 3)
        e.journal.clear()
        XCTAssertEqual(e.journal.entries.count, 0)
        XCTAssertEqual(e.journal.evictedAwaitingRelease, 2)
        afterAnswers()
        XCTAssertEqual(e.journal.evictedAwaitingRelease, 0)
    }
}
