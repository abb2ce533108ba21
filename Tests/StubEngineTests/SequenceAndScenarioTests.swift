import Foundation
import HTTP1
@testable import StubEngine
import XCTest
import SystemSupport

final class SequenceAndScenarioTests: XCTestCase {
    func testSequenceRepeatsItsLastResponseByDefault() {
        let e = engine(
            #"{"request": {"path": "/s"}, "responses": [{"body": "1"}, {"body": "2"}, {"status": 503, "body": "3"}]}"#
        )
        let bodies = (0..<5).map { _ in e.handle(makeRequest("GET", "/s")).answered.bodyText }
        XCTAssertEqual(bodies, ["1", "2", "3", "3", "3"])
        XCTAssertEqual(e.handle(makeRequest("GET", "/s")).answered.prepared.status, 503)
    }

    func testSequenceCycles() {
        let e = engine(#"{"request": {"path": "/s"}, "responses": [{"body": "a"}, {"body": "b"}], "after": "cycle"}"#)
        XCTAssertEqual(
            (0..<5).map { _ in e.handle(makeRequest("GET", "/s")).answered.bodyText },
            ["a", "b", "a", "b", "a"]
        )
    }

    func testResetStartsSequencesAndScenariosOver() {
        let e = engine(
            """
            [{"request": {"path": "/s"}, "responses": [{"body": "1"}, {"body": "2"}]},
             {"request": {"path": "/pay"}, "scenario": {"name": "checkout", "then": "paid"}, "response": {"body": \
            "paying"}}]
            """
        )
        _ = e.handle(makeRequest("GET", "/s"))
        _ = e.handle(makeRequest("POST", "/pay"))
        XCTAssertEqual(e.scenarios.first?.state, "paid")
        e.resetSequencesAndScenarios()
        XCTAssertEqual(e.handle(makeRequest("GET", "/s")).answered.bodyText, "1")
        XCTAssertEqual(e.scenarios.first?.state, "Started")
    }

    func testScenarioMovesThroughStates() {
        let e = engine(
            """
            [{"name": "cart empty", "request": {"method": "GET", "path": "/cart"}, "scenario": {"name": "checkout", \
            "when": "Started"}, "response": {"body": "empty"}},
             {"name": "add", "request": {"method": "POST", "path": "/cart"}, "scenario": {"name": "checkout", "when": \
            "Started", "then": "has-item"}, "response": {"status": 201}},
             {"name": "cart full", "request": {"method": "GET", "path": "/cart"}, "scenario": {"name": "checkout", \
            "when": "has-item"}, "response": {"body": "1 item"}},
             {"name": "pay", "request": {"method": "POST", "path": "/pay"}, "scenario": {"name": "checkout", "when": \
            "has-item", "then": "paid"}, "response": {"body": "paid"}}]
            """
        )
        XCTAssertEqual(e.handle(makeRequest("GET", "/cart")).answered.bodyText, "empty")
        let early = e.handle(makeRequest("POST", "/pay"))
        XCTAssertNil(early.stub, "not in the state the stub needs")
        XCTAssertEqual(
            early.nearMiss?.candidates.first?.mismatches,
            [Mismatch(condition: "scenario.checkout", expected: "state \"has-item\"", actual: "\"Started\"")]
        )
        XCTAssertEqual(e.handle(makeRequest("POST", "/cart")).stub?.name, "add")
        XCTAssertEqual(e.handle(makeRequest("GET", "/cart")).answered.bodyText, "1 item")
        XCTAssertEqual(e.handle(makeRequest("POST", "/pay")).answered.bodyText, "paid")
        XCTAssertEqual(e.scenarios.map(\.state), ["paid"])
        e.setScenario("checkout", to: "has-item")
        XCTAssertEqual(e.handle(makeRequest("GET", "/cart")).answered.bodyText, "1 item")
    }

    func testConcurrentRequestsNeverShareASequenceStep() {
        let count = 400
        let responses = (0..<count).map { #"{"body": "\#($0)"}"# }.joined(separator: ",")
        let e = engine(#"{"request": {"path": "/s"}, "responses": [\#(responses)]}"#)
        let request = makeRequest("GET", "/s")
        let seen = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: count) { _ in
            let body = e.handle(request).answered.bodyText
            seen.withLock { $0.append(body) }
        }
        XCTAssertEqual(Set(seen.value).count, count, "every step served exactly once")
    }

    func testConcurrentScenarioTransitionHappensOnce() {
        let e = engine(
            """
            [{"name": "first", "request": {"path": "/claim"}, "scenario": {"name": "coupon", "when": "Started", \
            "then": "claimed"}, "response": {"body": "yours"}},
             {"name": "later", "request": {"path": "/claim"}, "scenario": {"name": "coupon", "when": "claimed"}, \
            "response": {"status": 409, "body": "taken"}}]
            """
        )
        let request = makeRequest("GET", "/claim")
        let winners = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            if e.handle(request).answered.bodyText == "yours" { winners.withLock { $0 += 1 } }
        }
        XCTAssertEqual(winners.value, 1)
    }

    func testSequenceAndScenarioErrors() {
        let cases: [(String, String, String)] = [
            (#"{"response": {}, "responses": [{}]}"#, "$.responses", "not both"),
            (#"{"responses": []}"#, "$.responses", "non-empty array"),
            (#"{"responses": [{"status": 0}]}"#, "$.responses[0].status", "100 to 599"),
            (#"{"responses": [{}], "after": "loop"}"#, "$.after", "repeatLast"),
            (#"{"response": {}, "after": "cycle"}"#, "$.after", "applies to a \"responses\" sequence"),
            (#"{"response": {}, "scenario": {"when": "x"}}"#, "$.scenario", "needs a \"name\""),
            (#"{"response": {}, "scenario": {"name": "a", "than": "b"}}"#, "$.scenario.than", "did you mean \"then\""),
            (#"{"response": {}, "scenario": {"name": ""}}"#, "$.scenario.name", "non-empty string"),
        ]
        assertLoadErrors(cases)
    }
}
