import Dispatch
import Foundation
import HTTP1
import JSON
import NativeStubs
@testable import StubEngine
import SystemSupport
import XCTest

/// One value per answer for a name (`{{uuid 'order'}}`), one clock reading per answer, and
/// `{{json ...}}` (a request value inserted as JSON).
final class TemplateAnswerTests: XCTestCase {
    private let orderStub = #"""
        {"request": {"method": "POST", "path": "/orders"}, "response": {"status": 201, "template": true,
          "headers": {"Location": "/orders/{{uuid 'order'}}", "X-Fresh": "{{uuid}}"},
          "body": {"id": "{{uuid 'order'}}", "again": "{{uuid \"order\"}}", "bare": "{{uuid order}}",
                   "other": "{{uuid 'line'}}", "fresh": "{{uuid}}", "freshToo": "{{uuid}}",
                   "n": "{{json randomInt 1 1000000000 'n'}}", "sameN": "{{randomInt 1 1000000000 'n'}}"}}}
        """#

    func testANamedUUIDIsOneValuePerAnswerAndNewInTheNext() throws {
        let e = engine(orderStub)
        let first = e.handle(makeRequest("POST", "/orders")).answered
        let body = try JSONParser.parse(first.prepared.body)
        let id = try XCTUnwrap(body["id"]?.string)
        XCTAssertNotNil(UUID(uuidString: id))
        XCTAssertEqual(first.prepared.headers["Location"], "/orders/" + id)
        XCTAssertEqual(body["again"]?.string, id, "double quotes name the same value")
        XCTAssertEqual(body["bare"]?.string, id, "so does a bare name")
        XCTAssertNotEqual(body["other"]?.string, id, "another name, another value")
        let fresh = [first.prepared.headers["X-Fresh"], body["fresh"]?.string, body["freshToo"]?.string]
        XCTAssertEqual(Set(fresh.compactMap { $0 }).count, 3, "an unnamed uuid is fresh each time: \(fresh)")
        XCTAssertFalse(fresh.contains(id))
        let n = try XCTUnwrap(body["n"].map { JSONSerializer.string($0) })
        XCTAssertNil(body["n"]?.string, "json randomInt is a number")
        XCTAssertEqual(body["sameN"]?.string, n)

        let second = try JSONParser.parse(e.handle(makeRequest("POST", "/orders")).answered.prepared.body)
        XCTAssertNotEqual(second["id"]?.string, id, "the next answer has its own")
        XCTAssertNotEqual(second["n"].map { JSONSerializer.string($0) }, n)
    }

    func testEveryNowOfAnAnswerIsOneClockReading() throws {
        let e = engine(
            #"""
            {"response": {"template": true, "headers": {"X-Created": "{{now}}"},
              "body": "{{now}}|{{now +1d}}|{{now -1s}}|{{now}}"}}
            """#
        )
        // Many answers, so one that straddles a second boundary would show.
        for _ in 0..<200 {
            let response = e.handle(makeRequest("GET", "/")).answered
            let parts = response.bodyText.split(separator: "|").map(String.init)
            let formatter = ISO8601DateFormatter()
            let now = try XCTUnwrap(formatter.date(from: parts[0]))
            XCTAssertEqual(response.prepared.headers["X-Created"], parts[0])
            XCTAssertEqual(parts[3], parts[0])
            XCTAssertEqual(try XCTUnwrap(formatter.date(from: parts[1])).timeIntervalSince(now), 86_400)
            XCTAssertEqual(try XCTUnwrap(formatter.date(from: parts[2])).timeIntervalSince(now), -1)
        }
    }

    func testTheAnswersClockReadingIsWhatEveryNowStartsFrom() throws {
        let stubs = loadStubs(
            #"{"response": {"template": true, "headers": {"X-At": "{{now}}"}, "body": "{{now}}|{{now +1d}}"}}"#
        )
        let context = TemplateContext(
            facts: RequestFacts(makeRequest("GET", "/")),
            captures: [:],
            fallbackBaseURL: "http://localhost",
            answer: TemplateAnswer(epochSeconds: 1_795_000_000)
        )
        let response = try XCTUnwrap(stubs.first).response.makeResponse(context)
        XCTAssertEqual(response.prepared.headers["X-At"], "2026-11-18T11:06:40Z")
        XCTAssertEqual(response.bodyText, "2026-11-18T11:06:40Z|2026-11-19T11:06:40Z")
    }

    func testConcurrentAnswersKeepTheirOwnValues() throws {
        let e = engine(orderStub)
        let results = Locked<[(location: String, id: String)]>([])
        DispatchQueue.concurrentPerform(iterations: 400) { _ in
            let response = e.handle(makeRequest("POST", "/orders")).answered
            let id = (try? JSONParser.parse(response.prepared.body))?["id"]?.string ?? "?"
            results.withLock { $0.append((response.prepared.headers["Location"] ?? "", id)) }
        }
        let all = results.value
        XCTAssertEqual(all.count, 400)
        for answer in all { XCTAssertEqual(answer.location, "/orders/" + answer.id) }
        XCTAssertEqual(Set(all.map(\.id)).count, 400, "no answer saw another's value")
    }

    func testJSONInsertsRequestValuesAsJSON() throws {
        let e = engine(
            #"""
            {"request": {"path": "/echo/{id}"}, "response": {"template": true,
              "headers": {"X-Qty": "{{json request.json./qty}}", "X-Name": "{{json request.json./name}}"},
              "body": {"qty": "{{json request.json./qty}}", "price": "{{json request.json./price}}",
                "gift": "{{json request.json./gift}}", "address": "{{json request.json./address}}",
                "tags": "{{json request.json./tags}}", "name": "{{json request.json./name}}",
                "none": "{{json request.json./none}}", "missing": "{{json request.json./nope/deeper}}",
                "whole": "{{ json  request.json }}", "page": "{{json request.query.page}}",
                "noPage": "{{json request.query.absent}}", "agent": "{{json request.headers.User-Agent}}",
                "noHeader": "{{json request.headers.X-Absent}}", "id": "{{json request.path.id}}",
                "text": "qty {{request.json./qty}}", "asString": "{{request.json./qty}}"}}}
            """#
        )
        let body =
            #"{"qty": 2, "price": 9.50, "gift": true, "address": {"city": "Lyon", "zip": "69001"}, "tags": ["a"], "#
            + #""name": "Ann \"A\" \\ \n", "none": null}"#
        let response = e.handle(
            makeRequest("POST", "/echo/7?page=3", headers: [("User-Agent", "App/1")], body: body)
        ).answered
        let text = response.bodyText
        let parsed = try JSONParser.parse(response.prepared.body)
        XCTAssertTrue(text.contains(#""qty":2,"price":9.50,"gift":true,"address":{"city":"Lyon","zip":"69001"}"#), text)
        XCTAssertEqual(parsed["tags"].map { JSONSerializer.string($0) }, #"["a"]"#)
        XCTAssertEqual(parsed["name"]?.string, "Ann \"A\" \\ \n", "a string is quoted and escaped")
        XCTAssertTrue(text.contains(#""none":null,"missing":null,"#), "absent and null are null: \(text)")
        XCTAssertEqual(parsed["whole"]?["qty"].map { JSONSerializer.string($0) }, "2")
        XCTAssertEqual(parsed["page"]?.string, "3", "a query value is text, so a JSON string")
        XCTAssertTrue(text.contains(#""noPage":null"#))
        XCTAssertEqual(parsed["agent"]?.string, "App/1")
        XCTAssertTrue(text.contains(#""noHeader":null"#))
        XCTAssertEqual(parsed["id"]?.string, "7")
        XCTAssertEqual(parsed["text"]?.string, "qty 2")
        XCTAssertEqual(parsed["asString"]?.string, "2", "without json, a whole-string slot stays a string")
        XCTAssertEqual(response.prepared.headers["X-Qty"], "2")
        XCTAssertEqual(response.prepared.headers["X-Name"], #""Ann \"A\" \\ \n""#)

        let notJSON = e.handle(makeRequest("POST", "/echo/7", body: "qty=2")).answered
        XCTAssertTrue(notJSON.bodyText.hasPrefix(#"{"qty":null,"price":null,"#), notJSON.bodyText)
        XCTAssertNoThrow(try JSONParser.parse(notJSON.prepared.body))
    }

    func testJSONInATextBodyFileThatIsJSONOnceRendered() {
        let folder = TemporaryFolder()
        folder.write("__files/order.json", #"{"qty": {{json request.json./qty}}, "id": "{{uuid 'o'}}"}"#)
        folder.write(
            "s.json",
            #"""
            {"request": {"path": "/o"}, "response": {"template": true, "bodyFile": "__files/order.json",
              "headers": {"Location": "/o/{{uuid 'o'}}"}}}
            """#
        )
        let result = folder.load()
        XCTAssertEqual(result.problems, [])
        let response = Engine(stubs: result.stubs).handle(makeRequest("POST", "/o", body: #"{"qty": 2}"#)).answered
        let id = response.prepared.headers["Location"].map { String($0.dropFirst(3)) } ?? "?"
        XCTAssertEqual(response.bodyText, #"{"qty": 2, "id": "\#(id)"}"#)
    }

    func testNamesAndJSONAreCheckedAtLoad() {
        let body = "$.response.body"
        let cases: [(String, String, String)] = [
            (#"{"response": {"template": true, "body": "{{json}}"}}"#, body, "name the value"),
            (#"{"response": {"template": true, "body": "{{json json request.body}}"}}"#, body, "one json is enough"),
            (#"{"response": {"template": true, "body": "{{json request.nope}}"}}"#, body, "unknown variable"),
            (
                #"{"response": {"template": true, "body": {"q": "qty {{json request.json./qty}}"}}}"#,
                "$.response.body.q",
                "make it the whole string"
            ),
            (#"{"response": {"template": true, "body": "{{uuid 'or der'}}"}}"#, body, "unknown variable"),
            (#"{"response": {"template": true, "body": "{{uuid 'order}}"}}"#, body, "no closing '"),
            (#"{"response": {"template": true, "body": "{{uuid 'ord/er'}}"}}"#, body, "letters, digits"),
            (#"{"response": {"template": true, "body": "{{uuid ''}}"}}"#, body, "letters, digits"),
            (#"{"response": {"template": true, "body": "{{randomInt 1 2 'a' 'b'}}"}}"#, body, "maybe a name"),
            (
                #"{"response": {"template": true, "headers": {"X-A": "{{uuid 'a'}}"}, "#
                    + #""body": "{{randomInt 1 9 'a'}}"}}"#,
                "$.response", "'a' names one value per answer, but it is used as uuid and as randomInt 1 9"
            ),
            (
                #"{"response": {"template": true, "body": "{{randomInt 1 9 'a'}} {{randomInt 1 10 'a'}}"}}"#,
                "$.response", "randomInt 1 9 and as randomInt 1 10"
            ),
        ]
        assertLoadErrors(cases)
    }
}
