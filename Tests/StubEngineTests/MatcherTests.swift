import HTTP1
import NativeStubs
@testable import StubEngine
import XCTest
import RegularExpressions

final class MatcherTests: XCTestCase {
    func testMethodForms() {
        let e = engine(
            """
            [{"name": "one", "request": {"method": "POST"}, "response": {}},
             {"name": "list", "request": {"method": ["PUT", "PATCH"]}, "response": {}},
             {"name": "any", "request": {"method": "ANY"}, "priority": 9, "response": {}}]
            """
        )
        XCTAssertEqual(e.answer(makeRequest("POST", "/")), "one")
        XCTAssertEqual(e.answer(makeRequest("PATCH", "/")), "list")
        XCTAssertEqual(e.answer(makeRequest("DELETE", "/")), "any")
        XCTAssertEqual(e.answer(makeRequest("post", "/")), "any", "methods are case-sensitive")
    }

    func testPathForms() {
        let e = engine(
            """
            [{"name": "literal", "request": {"path": "/users/me"}, "response": {}},
             {"name": "param", "request": {"path": "/users/{id}"}, "response": {}},
             {"name": "star", "request": {"path": "/users/*/posts"}, "response": {}},
             {"name": "rest", "request": {"path": "/files/**"}, "response": {}},
             {"name": "regex", "request": {"pathPattern": "/v[0-9]+/ping"}, "response": {}},
             {"name": "slash", "request": {"path": "/users/"}, "response": {}},
             {"name": "encoded", "request": {"path": "/tags/caf%C3%A9 au lait"}, "response": {}}]
            """
        )
        XCTAssertEqual(e.answer(makeRequest("GET", "/users/me")), "literal")
        XCTAssertEqual(e.answer(makeRequest("GET", "/users/42")), "param")
        XCTAssertEqual(e.answer(makeRequest("GET", "/users/42/posts")), "star")
        XCTAssertNil(e.answer(makeRequest("GET", "/users/42/posts/1")))
        XCTAssertEqual(e.answer(makeRequest("GET", "/users/")), "slash", "a trailing slash is significant")
        XCTAssertNil(e.answer(makeRequest("GET", "/users//posts")), "{name} and * need a non-empty segment")
        XCTAssertEqual(e.answer(makeRequest("GET", "/files")), "rest", "** matches zero segments")
        XCTAssertEqual(e.answer(makeRequest("GET", "/files/a/b/c.txt")), "rest")
        XCTAssertNil(e.answer(makeRequest("GET", "/filesystem")))
        XCTAssertEqual(e.answer(makeRequest("GET", "/v12/ping")), "regex")
        XCTAssertNil(e.answer(makeRequest("GET", "/v12/ping/x")), "a pathPattern matches the whole path")
        XCTAssertEqual(
            e.answer(makeRequest("GET", "/tags/caf%C3%A9%20au%20lait")),
            "encoded",
            "both sides percent-decoded"
        )
        XCTAssertEqual(e.answer(makeRequest("GET", "/users/me?x=1")), "literal", "the query is not part of the path")
        XCTAssertEqual(e.answer(makeRequest("GET", "/a/../users/me")), "literal", "dot segments removed")
    }

    func testPathCaptures() {
        let stubs = loadStubs(#"{"request": {"path": "/u/{user}/p/{post}"}, "response": {}}"#)
        let facts = RequestFacts(makeRequest("GET", "/u/ann/p/7"))
        XCTAssertEqual(StubCatalog(stubs).bestMatch(facts)?.captures, ["user": "ann", "post": "7"])
    }

    func testHostQueryAndHeaders() {
        let e = engine(
            """
            [{"name": "host", "request": {"host": "api.example.com", "path": "/h"}, "response": {}},
             {"name": "query", "request": {"path": "/q", "query": {"lang": "en", "page": {"matches": "[0-9]+"}}}, \
            "response": {}},
             {"name": "header", "request": {"path": "/r", "headers": {"x-api-key": {"equals": "SECRET", \
            "caseInsensitive": true}}}, "response": {}},
             {"name": "absent", "request": {"path": "/a", "headers": {"Authorization": {"absent": true}}}, "response": \
            {}},
             {"name": "present", "request": {"path": "/p", "query": {"debug": {"present": true}}}, "response": {}},
             {"name": "contains", "request": {"path": "/c", "headers": {"User-Agent": {"contains": "iPhone"}}}, \
            "response": {}}]
            """
        )
        XCTAssertEqual(e.answer(makeRequest("GET", "/h")), "host", "Host without its port")
        XCTAssertNil(e.answer(makeRequest("GET", "http://other.example.com/h")), "absolute-form authority wins")
        XCTAssertEqual(
            e.answer(makeRequest("GET", "/q?page=2&lang=en&extra=1")),
            "query",
            "other parameters may be present"
        )
        XCTAssertEqual(
            e.answer(makeRequest("GET", "/q?lang=fr&lang=en&page=3")),
            "query",
            "a repeated parameter matches if any value does"
        )
        XCTAssertNil(e.answer(makeRequest("GET", "/q?lang=en&page=two")))
        XCTAssertNil(e.answer(makeRequest("GET", "/q?lang=en")))
        XCTAssertEqual(e.answer(makeRequest("GET", "/q?lang=%65n&page=1")), "query", "query values are percent-decoded")
        XCTAssertEqual(
            e.answer(makeRequest("GET", "/r", headers: [("X-API-Key", "secret")])),
            "header",
            "names and (here) values ignore case"
        )
        XCTAssertNil(e.answer(makeRequest("GET", "/r", headers: [("X-API-Key", "secret2")])))
        XCTAssertEqual(e.answer(makeRequest("GET", "/a")), "absent")
        XCTAssertNil(e.answer(makeRequest("GET", "/a", headers: [("Authorization", "Bearer x")])))
        XCTAssertEqual(e.answer(makeRequest("GET", "/p?debug")), "present", "a parameter without a value is present")
        XCTAssertNil(e.answer(makeRequest("GET", "/p")))
        XCTAssertEqual(
            e.answer(makeRequest("GET", "/c", headers: [("User-Agent", "MyApp/1.0 (iPhone; iOS 18)")])),
            "contains"
        )
        XCTAssertNil(
            e.answer(makeRequest("GET", "/c", headers: [("User-Agent", "MyApp/1.0 (iphone)")])),
            "case-sensitive unless asked"
        )
    }

    /// `rawQuery`: the whole query as sent, not decoded, in its order; `absent` is no query at all.
    func testRawQuery() {
        let e = engine(
            """
            [{"name": "none", "request": {"path": "/n", "rawQuery": {"absent": true}}, "response": {}},
             {"name": "exact", "request": {"path": "/e", "rawQuery": "q=a%20b&page=2"}, "response": {}},
             {"name": "pattern", "request": {"path": "/m", "rawQuery": {"matches": "id=[0-9]+"}}, "response": {}}]
            """
        )
        XCTAssertEqual(e.answer(makeRequest("GET", "/n")), "none")
        XCTAssertNil(e.answer(makeRequest("GET", "/n?x=1")))
        XCTAssertEqual(e.answer(makeRequest("GET", "/e?q=a%20b&page=2")), "exact")
        XCTAssertNil(e.answer(makeRequest("GET", "/e?page=2&q=a%20b")), "the order counts")
        XCTAssertNil(e.answer(makeRequest("GET", "/e?q=%61%20b&page=2")), "compared as sent, not decoded")
        XCTAssertNil(e.answer(makeRequest("GET", "/e?q=a%20b&page=2&x=1")), "nothing else")
        XCTAssertNil(e.answer(makeRequest("GET", "/e")))
        XCTAssertEqual(e.answer(makeRequest("GET", "/m?id=42")), "pattern")
        XCTAssertNil(e.answer(makeRequest("GET", "/m?id=42&x")))
        let miss = e.handle(makeRequest("GET", "/n?x=1")).nearMiss?.resolved.candidates.first { $0.name == "none" }
        let line = miss?.mismatches.first.map { "\($0.condition) \($0.expected) \($0.actual)" }
        XCTAssertEqual(line, "rawQuery absent \"x=1\"")
    }

    func testBodyMatchers() {
        let e = engine(
            """
            [{"name": "json", "request": {"path": "/json", "body": {"json": {"user": {"name": "ann"}, "n": 1}}}, \
            "response": {}},
             {"name": "jsonEquals", "request": {"path": "/eq", "body": {"jsonEquals": {"a": [1, 2]}}}, "response": {}},
             {"name": "text", "request": {"path": "/text", "body": {"contains": "HELLO", "caseInsensitive": true}}, \
            "response": {}},
             {"name": "regex", "request": {"path": "/re", "body": {"matches": "id=[0-9]+"}}, "response": {}},
             {"name": "form", "request": {"path": "/form", "body": {"form": {"user": "ann lee", "remember": \
            {"present": true}}}}, "response": {}}]
            """
        )
        XCTAssertEqual(
            e.answer(makeRequest("POST", "/json", body: #"{"n": 1.0, "user": {"name": "ann", "age": 3}, "x": true}"#)),
            "json"
        )
        XCTAssertNil(e.answer(makeRequest("POST", "/json", body: #"{"n": 1, "user": {"name": "bob"}}"#)))
        XCTAssertNil(e.answer(makeRequest("POST", "/json", body: "not json")))
        XCTAssertNil(e.answer(makeRequest("POST", "/json")))
        XCTAssertEqual(e.answer(makeRequest("POST", "/eq", body: #" { "a" : [1, 2.0] } "#)), "jsonEquals")
        XCTAssertNil(e.answer(makeRequest("POST", "/eq", body: #"{"a": [1, 2], "b": 1}"#)))
        XCTAssertEqual(e.answer(makeRequest("POST", "/text", body: "well hello there")), "text")
        XCTAssertEqual(e.answer(makeRequest("POST", "/re", body: "id=42")), "regex")
        XCTAssertNil(e.answer(makeRequest("POST", "/re", body: "id=42&x")), "matches is whole-body")
        XCTAssertEqual(e.answer(makeRequest("POST", "/form", body: "remember=&user=ann+lee")), "form")
        XCTAssertEqual(e.answer(makeRequest("POST", "/form", body: "user=ann%20lee&remember=1")), "form")
        XCTAssertNil(e.answer(makeRequest("POST", "/form", body: "user=ann")))
    }

    func testSelectionOrder() {
        let e = engine(
            """
            [{"name": "catch-all", "response": {}},
             {"name": "rest", "request": {"path": "/api/**"}, "response": {}},
             {"name": "star", "request": {"path": "/api/*/x"}, "response": {}},
             {"name": "param", "request": {"path": "/api/{id}/x"}, "response": {}},
             {"name": "literal", "request": {"path": "/api/1/x"}, "response": {}},
             {"name": "literal+header", "request": {"path": "/api/1/x", "headers": {"X-A": "1"}}, "response": {}},
             {"name": "regex-priority-1", "priority": 1, "request": {"pathPattern": "/api/2/.*"}, "response": {}},
             {"name": "first-of-equals", "request": {"path": "/same"}, "response": {}},
             {"name": "second-of-equals", "request": {"path": "/same"}, "response": {}}]
            """
        )
        XCTAssertEqual(
            e.answer(makeRequest("GET", "/api/1/x", headers: [("X-A", "1")])),
            "literal+header",
            "more conditions win"
        )
        XCTAssertEqual(e.answer(makeRequest("GET", "/api/1/x")), "literal")
        XCTAssertEqual(e.answer(makeRequest("GET", "/api/7/x")), "param", "{name} over *")
        XCTAssertEqual(e.answer(makeRequest("GET", "/api/2/x")), "regex-priority-1", "priority first")
        XCTAssertEqual(e.answer(makeRequest("GET", "/api/7/y")), "rest", "** over no path")
        XCTAssertEqual(e.answer(makeRequest("GET", "/elsewhere")), "catch-all")
        XCTAssertEqual(e.answer(makeRequest("GET", "/same")), "first-of-equals", "then file order")
    }

    func testStarOverRest() {
        let e = engine(
            """
            [{"name": "rest", "request": {"path": "/a/**"}, "response": {}},
             {"name": "star", "request": {"path": "/a/*"}, "response": {}}]
            """
        )
        XCTAssertEqual(e.answer(makeRequest("GET", "/a/b")), "star")
    }

    func testRuntimeStubsComeBeforeFileStubsOfEqualRank() {
        let file = loadStubs(#"{"name": "file", "request": {"path": "/x"}, "response": {}}"#)[0]
        let runtime = Stub(
            name: "runtime",
            source: .runtime(id: "r1"),
            priority: 5,
            request: file.request,
            responses: file.responses,
            order: 99
        )
        XCTAssertEqual(Engine(stubs: [file, runtime]).answer(makeRequest("GET", "/x")), "runtime")
    }

    /// An exact-path hit ends the search only when no stub outside the exact buckets could
    /// outrank it: a pattern of higher priority still wins, whether loaded or added later.
    func testAnExactPathHitStillLosesToAPatternOfHigherPriority() {
        let loaded = loadStubs(
            """
            [{"name": "exact", "request": {"path": "/orders/7"}, "response": {}},
             {"name": "pattern-p1", "priority": 1, "request": {"path": "/orders/{id}"}, "response": {}},
             {"name": "regex-p2", "priority": 2, "request": {"pathPattern": "/orders/[0-9]+"}, "response": {}},
             {"name": "other-exact", "request": {"path": "/carts/1"}, "response": {}},
             {"name": "carts-p9", "priority": 9, "request": {"path": "/carts/{id}"}, "response": {}}]
            """
        )
        let e = Engine(stubs: loaded)
        XCTAssertEqual(e.answer(makeRequest("GET", "/orders/7")), "pattern-p1")
        XCTAssertEqual(
            e.answer(makeRequest("GET", "/carts/1")),
            "other-exact",
            "a lower-priority pattern cannot beat the hit"
        )

        var catalog = StubCatalog([loaded[0], loaded[3]])
        XCTAssertEqual(catalog.bestMatch(RequestFacts(makeRequest("GET", "/orders/7")))?.stub.name, "exact")
        catalog.insert(loaded[2])
        XCTAssertEqual(
            catalog.bestMatch(RequestFacts(makeRequest("GET", "/orders/7")))?.stub.name,
            "regex-p2",
            "a pattern added after loading is still considered"
        )
        // A copy taken before an insert (a request's snapshot) keeps what it had: the catalog's
        // storage is shared between copies and copied on the first insert.
        let snapshot = catalog
        catalog.insert(loaded[1])
        XCTAssertEqual(catalog.bestMatch(RequestFacts(makeRequest("GET", "/orders/7")))?.stub.name, "pattern-p1")
        XCTAssertEqual(snapshot.bestMatch(RequestFacts(makeRequest("GET", "/orders/7")))?.stub.name, "regex-p2")
        XCTAssertEqual([snapshot.count, catalog.count], [3, 4])
        catalog.insert(loaded[4])
        XCTAssertEqual(catalog.bestMatch(RequestFacts(makeRequest("GET", "/carts/1")))?.stub.name, "other-exact")
        XCTAssertEqual([snapshot.count, catalog.count], [3, 5])
    }

    func testIndexFindsTheRightStubAmongTenThousand() {
        var json = "["
        for i in 0..<10_000 {
            json +=
                (i > 0 ? "," : "")
                    + #"""
                    {"name": "s\#(i)", "request": {"method": "GET", "path": \#
                    "/api/v1/resource-\#(i / 10)/item-\#(i % 10)"}, "response": {"body": {"i": \#(i)}}}
                    """#
        }
        json += #",{"name": "param", "request": {"path": "/api/v1/{any}/other"}, "response": {}}]"#
        let e = engine(json)
        XCTAssertEqual(e.answer(makeRequest("GET", "/api/v1/resource-777/item-3")), "s7773")
        XCTAssertEqual(e.answer(makeRequest("GET", "/api/v1/resource-777/other")), "param")
        XCTAssertNil(e.answer(makeRequest("POST", "/api/v1/resource-777/item-3")))
    }

    func testValueMatcherEdgeCases() throws {
        XCTAssertTrue(ValueMatcher(.contains("")).matches("anything"))
        XCTAssertTrue(ValueMatcher(.equals("ÄB"), caseInsensitive: true).matches("äb"))
        XCTAssertTrue(
            ValueMatcher(.matches(try CompiledRegex("a|b"))).matches("b"),
            "alternation is anchored as a whole"
        )
        XCTAssertFalse(ValueMatcher(.matches(try CompiledRegex("a|b"))).matches("ab"))
        XCTAssertTrue(ValueMatcher(.absent).matches([]))
        XCTAssertFalse(ValueMatcher(.equals("")).matches([]), "an absent value is not an empty one")
        XCTAssertTrue(ValueMatcher(.equals("")).matches([""]))
    }
}
