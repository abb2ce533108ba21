import HTTP1
import JSON
import NativeStubs
@testable import StubEngine
import XCTest

final class EngineTests: XCTestCase {
    func testRenderedResponseIsThePreparedStub() {
        let e = engine(
            #"{"request": {"path": "/x"}, "response": {"status": 201, "headers": {"X-Id": "7"}, "body": {"ok": true}}}"#
        )
        let outcome = e.handle(makeRequest("GET", "/x"))
        XCTAssertEqual(outcome.answered.prepared.status, 201)
        XCTAssertEqual(outcome.answered.bodyText, #"{"ok":true}"#)
        XCTAssertEqual(outcome.answered.prepared.headers["X-Id"], "7")
        XCTAssertEqual(outcome.answered.delivery, .normal)
        XCTAssertEqual(outcome.answered.delayMilliseconds, 0)
    }

    /// Only a response that is the same for every request is made once at load; anything that
    /// varies (template, delay, fault, dribble, a sequence or a scenario) is still made per request.
    func testOnlyAStaticStatelessStubHasAnAnswerMadeAtLoad() {
        let stubs = loadStubs(
            """
            [{"name": "static", "request": {"path": "/static"}, "response": {"status": 201, "headers": {"X-Id": "7"}, \
            "body": {"ok": true}}},
             {"name": "template", "request": {"path": "/t/{id}"}, "response": {"template": true, "body": \
            "{{request.path.id}}"}},
             {"name": "delay", "request": {"path": "/d"}, "response": {"delay": 5}},
             {"name": "fault", "request": {"path": "/f"}, "response": {"fault": "reset"}},
             {"name": "dribble", "request": {"path": "/s"}, "response": {"body": "01234", "dribble": {"chunks": 5, \
            "durationMs": 10}}},
             {"name": "sequence", "request": {"path": "/q"}, "responses": [{"status": 200}, {"status": 500}]},
             {"name": "scenario", "request": {"path": "/c"}, "response": {}, "scenario": {"name": "s", "when": \
            "Started", "then": "done"}}]
            """
        )
        let fixed = Dictionary(uniqueKeysWithValues: stubs.map { ($0.name, $0.fixedAnswer != nil) })
        XCTAssertEqual(
            fixed,
            [
                "static": true, "template": false, "delay": false, "fault": false, "dribble": false, "sequence": false,
                "scenario": false,
            ]
        )
        let answer = Engine(stubs: stubs).handle(makeRequest("GET", "/static")).answered
        let made = stubs[0].response.makeResponse(
            TemplateContext(facts: RequestFacts(makeRequest("GET", "/static")), captures: [:], fallbackBaseURL: "")
        )
        XCTAssertEqual(answer.prepared.status, made.prepared.status)
        XCTAssertEqual(answer.prepared.head, made.prepared.head)
        XCTAssertEqual(answer.prepared.body, made.prepared.body)
        XCTAssertEqual(answer.delivery, made.delivery)
        XCTAssertEqual(answer.delayMilliseconds, made.delayMilliseconds)
    }

    func testDelaysFaultsAndDribbleBecomeDeliveryActions() {
        let e = engine(
            """
            [{"request": {"path": "/fixed"}, "response": {"delay": 250}},
             {"request": {"path": "/range"}, "response": {"delay": {"min": 10, "max": 20}}},
             {"request": {"path": "/reset"}, "response": {"fault": "reset"}},
             {"request": {"path": "/empty"}, "response": {"fault": "empty"}},
             {"request": {"path": "/garbage"}, "response": {"fault": "garbage"}},
             {"request": {"path": "/hang"}, "response": {"fault": "hang"}},
             {"request": {"path": "/slow"}, "response": {"body": "0123456789", "dribble": {"chunks": 5, "durationMs": \
            1000}}}]
            """
        )
        XCTAssertEqual(e.handle(makeRequest("GET", "/fixed")).answered.delayMilliseconds, 250)
        for _ in 0..<20 {
            XCTAssertTrue((10...20).contains(e.handle(makeRequest("GET", "/range")).answered.delayMilliseconds))
        }
        XCTAssertEqual(e.handle(makeRequest("GET", "/reset")).answered.delivery, .reset)
        XCTAssertEqual(e.handle(makeRequest("GET", "/empty")).answered.delivery, .closeWithoutResponse)
        guard case .rawThenClose(let bytes) = e.handle(makeRequest("GET", "/garbage")).answered.delivery else {
            return XCTFail("garbage must write raw bytes")
        }
        XCTAssertFalse(bytes.starts(with: Array("HTTP/".utf8)))
        XCTAssertEqual(e.handle(makeRequest("GET", "/hang")).answered.delivery, .hang)
        XCTAssertEqual(
            e.handle(makeRequest("GET", "/slow")).answered.delivery,
            .dribble(chunks: 5, durationMilliseconds: 1000)
        )
    }

    func testNearMissListsTheClosestStubsWithWhatDiffered() {
        let e = engine(
            """
            [{"name": "Profile", "request": {"method": "GET", "path": "/v1/users/{id}"}, "response": {}},
             {"name": "Login", "request": {"method": "POST", "path": "/login", "headers": {"X-Client": "ios"}, "body": \
            {"json": {"user": {"name": "ann"}}}}, "response": {}},
             {"name": "Search", "request": {"method": "GET", "path": "/search", "query": {"q": "swift"}}, "response": \
            {}},
             {"name": "Unrelated", "request": {"method": "DELETE", "path": "/zzz"}, "response": {}}]
            """
        )
        let typo = e.handle(makeRequest("GET", "/v1/user/42"))
        XCTAssertNil(typo.stub)
        XCTAssertEqual(typo.answered.prepared.status, 404)
        let report = try! XCTUnwrap(typo.nearMiss)
        XCTAssertEqual(report.candidates.first?.name, "Profile")
        XCTAssertEqual(
            report.candidates.first?.mismatches,
            [Mismatch(condition: "path", expected: "/v1/users/{id}", actual: "/v1/user/42")]
        )
        XCTAssertFalse(
            report.candidates.contains { $0.name == "Unrelated" },
            "other method and other path is not close"
        )
        XCTAssertTrue(
            typo.answered.bodyText.contains("path: expected /v1/users/{id}, got /v1/user/42"),
            typo.answered.bodyText
        )
        XCTAssertEqual(typo.answered.prepared.headers["Content-Type"], "text/plain; charset=utf-8")

        let login = e.handle(
            makeRequest(
                "POST",
                "/login",
                headers: [("Accept", "application/json"), ("X-Client", "android")],
                body: #"{"user": {"name": "bob"}}"#
            )
        )
        XCTAssertEqual(
            login.nearMiss?.candidates.first?.mismatches,
            [
                Mismatch(condition: "header.X-Client", expected: "\"ios\"", actual: "\"android\""),
                Mismatch(condition: "body.user.name", expected: "\"ann\"", actual: "\"bob\""),
            ]
        )
        XCTAssertEqual(login.answered.prepared.headers["Content-Type"], "application/json")
        let parsed = try! JSONParser.parse(login.answered.prepared.body)
        XCTAssertEqual(parsed.resolve(pointer: "/closest/0/name")?.string, "Login")
        XCTAssertEqual(parsed.resolve(pointer: "/closest/0/mismatches/1/condition")?.string, "body.user.name")

        let search = e.handle(makeRequest("GET", "/search?q=kotlin"))
        XCTAssertEqual(
            search.nearMiss?.candidates.first?.mismatches,
            [Mismatch(condition: "query.q", expected: "\"swift\"", actual: "\"kotlin\"")]
        )
        XCTAssertLessThanOrEqual(search.nearMiss?.candidates.count ?? 0, 3)
    }

    func testNearMissWithNoStubs() {
        let outcome = Engine().handle(makeRequest("GET", "/"))
        XCTAssertTrue(outcome.answered.bodyText.contains("There are no stubs loaded"))
    }

    func testReplaceSwapsEveryStubAtOnce() {
        let e = engine(#"{"name": "old", "request": {"path": "/x"}, "response": {}}"#)
        XCTAssertEqual(e.answer(makeRequest("GET", "/x")), "old")
        e.replace(
            with: loadStubs(
                #"""
                [{"name": "new", "request": {"path": "/x"}, "response": {}}, {"name": "added", "request": \#
                {"path": "/y"}, "response": {}}]
                """#
            )
        )
        XCTAssertEqual(e.answer(makeRequest("GET", "/x")), "new")
        XCTAssertEqual(e.answer(makeRequest("GET", "/y")), "added")
    }

    func testConcurrentRequestsDuringReloadsSeeAWholeCatalog() {
        let a = loadStubs(
            #"""
            [{"name": "a1", "request": {"path": "/1"}, "response": {}}, {"name": "a2", "request": {"path": "/2"}, \#
            "response": {}}]
            """#
        )
        let b = loadStubs(
            #"""
            [{"name": "b1", "request": {"path": "/1"}, "response": {}}, {"name": "b2", "request": {"path": "/2"}, \#
            "response": {}}]
            """#
        )
        let e = Engine(stubs: a)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for i in 0..<2000 {
                if worker == 0 {
                    e.replace(with: i % 2 == 0 ? b : a)
                    continue
                }
                let catalog = e.catalog
                let names = catalog.stubs.map(\.name)
                XCTAssertTrue(names == ["a1", "a2"] || names == ["b1", "b2"])
            }
        }
    }
}
