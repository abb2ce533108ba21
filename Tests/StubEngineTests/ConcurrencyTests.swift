import Foundation
import HTTP1
@testable import StubEngine
import XCTest

/// Many clients changing and reading engine state at once: runtime stubs, scenarios, sequences,
/// the journal, reloads. Run under `swift test --sanitize=thread` to catch races.
final class ConcurrencyTests: XCTestCase {
    func testManyClientsChangingAndReadingState() {
        let e = adminEngine(
            loadStubs(
                """
                [{"request": {"path": "/seq"}, "responses": [{"body": "1"}, {"body": "2"}, {"body": "3"}], "after": \
                "cycle"},
                 {"request": {"path": "/s"}, "scenario": {"name": "flow", "when": "Started", "then": "next"}, \
                "response": {"body": "a"}},
                 {"request": {"path": "/s"}, "scenario": {"name": "flow", "when": "next", "then": "Started"}, \
                "response": {"body": "b"}}]
                """
            ),
            options: .init(journalCapacity: 100)
        )
        let reloadSet = loadStubs(#"{"request": {"path": "/reloaded"}, "response": {}}"#)
        let requests = ["/seq", "/s", "/rt", "/missing"].map { makeRequest("GET", $0) }
        let admin = [
            makeRequest("GET", "/__admin/stubs"), makeRequest("GET", "/__admin/requests?limit=5"),
            makeRequest("GET", "/__admin/scenarios"),
            makeRequest("POST", "/__admin/requests/count", body: #"{"path": "/seq"}"#),
        ]
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for i in 0..<300 {
                switch worker {
                case 0:
                    if let ids = try? e.addRuntimeStubs(
                        json: Array(#"{"request": {"path": "/rt"}, "response": {"body": "rt"}}"#.utf8)
                    ) {
                        e.removeRuntimeStub(id: ids[0])
                    }
                case 1:
                    e.setScenario("flow", to: i % 2 == 0 ? "Started" : "next")
                case 2:
                    if i % 50 == 0 {
                        e.replace(with: i % 100 == 0 ? reloadSet : e.catalog.stubs.filter { !$0.source.isRuntime })
                    }
                    _ = e.handle(admin[i % admin.count])
                case 3:
                    if i % 100 == 0 { e.reset() }
                    _ = e.scenarios
                default:
                    let outcome = e.handle(requests[i % requests.count])
                    XCTAssertTrue([200, 404].contains(outcome.answered.prepared.status))
                }
            }
        }
        XCTAssertLessThanOrEqual(e.journal.entries.count, 100)
        let ids = e.journal.entries.map(\.id)
        XCTAssertEqual(ids, ids.sorted(), "the journal stays in order")
    }
}
