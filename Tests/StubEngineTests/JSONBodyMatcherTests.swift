import Foundation
import HTTP1
import JSON
@testable import NativeStubs
@testable import StubEngine
import XCTest

/// Matchers inside `json` body patterns and `jsonPointer` conditions: each operator, where a
/// matcher may stand, what stays literal, load errors and warnings, and the near-miss path.
final class JSONBodyMatcherTests: XCTestCase {
    /// Whether a stub with `body` answers a POST with `requestBody`.
    private func holds(
        _ body: String,
        _ requestBody: String,
        file: StaticString = #filePath,
        line: UInt = #line
    ) -> Bool {
        let e = engine(#"{"name": "s", "request": {"body": \#(body)}, "response": {}}"#, file: file, line: line)
        return e.answer(makeRequest("POST", "/", body: requestBody)) == "s"
    }

    private func assertHolds(
        _ body: String,
        for matching: [String],
        not failing: [String],
        file: StaticString = #filePath,
        line: UInt = #line
    ) {
        for request in matching {
            XCTAssertTrue(
                holds(body, request, file: file, line: line),
                "\(body) should match \(request)",
                file: file,
                line: line
            )
        }
        for request in failing {
            XCTAssertFalse(
                holds(body, request, file: file, line: line),
                "\(body) should not match \(request)",
                file: file,
                line: line
            )
        }
    }

    func testMatches() {
        assertHolds(
            #"{"json": {"title": {"matches": ".+"}}}"#,
            for: [#"{"title": "x"}"#, #"{"title": "a long title", "other": 1}"#],
            not: [#"{"title": ""}"#, #"{"title": 5}"#, #"{"other": "x"}"#, #"{"title": null}"#]
        )
        assertHolds(
            #"{"json": {"code": {"matches": "e[0-9]{3}", "caseInsensitive": true}}}"#,
            for: [#"{"code": "E001"}"#, #"{"code": "e123"}"#],
            not: [#"{"code": "E01"}"#, #"{"code": "xE001"}"#]
        )
    }

    func testContains() {
        assertHolds(
            #"{"json": {"user": {"email": {"contains": "@example."}}}}"#,
            for: [#"{"user": {"email": "ann@example.com"}}"#],
            not: [#"{"user": {"email": "ann@elsewhere.com"}}"#, #"{"user": {"email": ["@example."]}}"#]
        )
        assertHolds(
            #"{"json": {"q": {"contains": "SWIFT", "caseInsensitive": true}}}"#,
            for: [#"{"q": "learn swift"}"#],
            not: [#"{"q": "learn kotlin"}"#]
        )
    }

    func testEqualsComparesTheValueAsWrittenWithoutMatchersInside() {
        assertHolds(
            #"{"json": {"filter": {"equals": {"present": true}}}}"#,
            for: [#"{"filter": {"present": true}}"#],
            not: [#"{"filter": {"present": true, "x": 1}}"#, #"{"filter": "anything"}"#]
        )
        assertHolds(
            #"{"json": {"tags": {"equals": ["a", 1]}}}"#,
            for: [#"{"tags": ["a", 1.0]}"#],
            not: [#"{"tags": ["a"]}"#]
        )
        assertHolds(
            #"{"json": {"name": {"equals": "ANN", "caseInsensitive": true}}}"#,
            for: [#"{"name": "ann"}"#],
            not: [#"{"name": "anne"}"#]
        )
    }

    func testPresentAndAbsent() {
        assertHolds(
            #"{"json": {"token": {"present": true}}}"#,
            for: [#"{"token": "t"}"#, #"{"token": null}"#, #"{"token": {}}"#],
            not: [#"{"other": 1}"#, "[]"]
        )
        assertHolds(
            #"{"json": {"password": {"absent": true}, "user": "ann"}}"#,
            for: [#"{"user": "ann"}"#],
            not: [#"{"user": "ann", "password": null}"#, #"{"user": "bob"}"#]
        )
    }

    func testNumberBounds() {
        assertHolds(
            #"{"json": {"n": {"greaterThan": 0}}}"#,
            for: [#"{"n": 0.5}"#, #"{"n": 7}"#],
            not: [#"{"n": 0}"#, #"{"n": -1}"#, #"{"n": "7"}"#]
        )
        assertHolds(
            #"{"json": {"n": {"atLeast": 18}}}"#,
            for: [#"{"n": 18}"#, #"{"n": 18.0}"#, #"{"n": 99}"#],
            not: [#"{"n": 17.99}"#]
        )
        assertHolds(#"{"json": {"n": {"lessThan": 1e3}}}"#, for: [#"{"n": 999}"#], not: [#"{"n": 1000}"#])
        assertHolds(#"{"json": {"n": {"atMost": -2}}}"#, for: [#"{"n": -2}"#, #"{"n": -3}"#], not: [#"{"n": -1}"#])
        assertHolds(
            #"{"json": {"qty": {"atLeast": 1, "lessThan": 10}}}"#,
            for: [#"{"qty": 1}"#, #"{"qty": 9.5}"#],
            not: [#"{"qty": 0}"#, #"{"qty": 10}"#]
        )
    }

    func testMatchersInsideArraysAndAtTheRoot() {
        assertHolds(
            #"{"json": {"items": [{"id": {"greaterThan": 0}}, "b"]}}"#,
            for: [#"{"items": [{"id": 3, "name": "x"}, "b"]}"#],
            not: [#"{"items": [{"id": 0}, "b"]}"#, #"{"items": [{"id": 3}]}"#]
        )
        assertHolds(#"{"json": {"matches": "hello.*"}}"#, for: [#""hello world""#], not: [#"{"matches": "hello"}"#])
    }

    func testLiteralObjectsStillMatchAsBefore() {
        // An object with a key that is not a matcher key is a literal, compared as a subset.
        assertHolds(
            #"{"json": {"user": {"name": "ann"}, "n": 1}}"#,
            for: [#"{"n": 1.0, "user": {"name": "ann", "age": 3}}"#],
            not: [#"{"n": 1, "user": {"name": "bob"}}"#, "not json", ""]
        )
        assertHolds(
            #"{"json": {"meta": {"matches": "x", "_note": "a literal: it has a key that is not a matcher's"}}}"#,
            for: [#"{"meta": {"matches": "x", "_note": "a literal: it has a key that is not a matcher's"}}"#],
            not: [#"{"meta": "x"}"#]
        )
        assertHolds(#"{"json": {}}"#, for: [#"{"a": 1}"#], not: ["[]"])
    }

    func testJSONPointers() {
        assertHolds(
            #"""
            {"jsonPointer": {"/user/name": {"matches": "[a-z]+"}, "/items/0/id": 7, "/a~1b": true, "/m~0n": \#
            {"present": true}}}
            """#,
            for: [#"{"user": {"name": "ann"}, "items": [{"id": 7, "x": 1}], "a/b": true, "m~n": 0}"#],
            not: [
                #"{"user": {"name": "Ann"}, "items": [{"id": 7}], "a/b": true, "m~n": 0}"#,
                #"{"user": {"name": "ann"}, "items": [], "a/b": true, "m~n": 0}"#,
                #"{"user": {"name": "ann"}, "items": [{"id": 7}], "a/b": true}"#,
            ]
        )
        assertHolds(
            #"{"jsonPointer": {"/debug": {"absent": true}}}"#,
            for: [#"{"x": 1}"#],
            not: [#"{"debug": false}"#, "text"]
        )
        assertHolds(#"{"jsonPointer": {"": {"equals": [1, 2]}}}"#, for: ["[1, 2]"], not: ["[2, 1]"])
        assertHolds(#"{"jsonPointer": {"/list/01": 1}}"#, for: [], not: [#"{"list": [0, 1]}"#])
        assertHolds(
            #"{"jsonPointer": {"/list/1": 1}}"#,
            for: [#"{"list": [0, 1]}"#, #"{"list": {"1": 1}}"#],
            not: [#"{"list": [1]}"#]
        )
    }

    func testNearMissNamesTheFailingJSONPath() {
        let e = engine(
            """
            [{"name": "Create", "request": {"method": "POST", "path": "/posts",
              "body": {"json": {"title": {"matches": ".+"}, "author": {"id": {"atLeast": 1}}, "tags": [{"equals": \
            "swift"}], "draft": {"absent": true}}}}, "response": {}},
             {"name": "Pointer", "request": {"method": "POST", "path": "/posts",
              "body": {"jsonPointer": {"/author/id": {"greaterThan": 100}, "/tags/0": {"contains": "x"}}}}, \
            "response": {}}]
            """
        )
        func report(_ body: String) -> String {
            e.handle(makeRequest("POST", "/posts", body: body)).nearMiss?.resolved.text ?? "matched"
        }
        XCTAssertTrue(
            report(#"{"title": "", "author": {"id": 3}, "tags": ["swift"]}"#).contains(
                #"body.title: expected a string matching /.+/, got """#
            )
        )
        XCTAssertTrue(
            report(#"{"title": "t", "author": {"id": 0}, "tags": ["swift"]}"#).contains(
                "body.author.id: expected a number >= 1, got 0"
            )
        )
        XCTAssertTrue(
            report(#"{"title": "t", "author": {}, "tags": ["swift"]}"#).contains(
                "body.author.id: expected a number >= 1, got absent"
            )
        )
        XCTAssertTrue(
            report(#"{"title": "t", "author": {"id": 1}, "tags": ["kotlin"]}"#).contains(
                #"body.tags[0]: expected "swift", got "kotlin""#
            )
        )
        XCTAssertTrue(
            report(#"{"title": "t", "author": {"id": 1}, "tags": []}"#).contains(
                "body.tags: expected an array of 1, got an array of 0"
            )
        )
        XCTAssertTrue(
            report(#"{"title": "t", "author": {"id": 1}, "tags": ["swift"], "draft": true}"#).contains(
                "body.draft: expected absent, got true"
            )
        )
        let pointer = report(#"{"author": {"id": 50}, "tags": ["y"]}"#)
        XCTAssertTrue(pointer.contains("body/author/id: expected a number > 100, got 50"), pointer)
        XCTAssertTrue(pointer.contains(#"body/tags/0: expected a string containing "x", got "y""#), pointer)
        XCTAssertTrue(report("not json").contains("body: expected JSON matching"), report("not json"))
    }

    func testMistakesAreLoadErrors() {
        assertLoadErrors([
            (
                #"{"request": {"body": {"json": {"a": {"matches": "("}}}}, "response": {}}"#,
                "$.request.body.json.a.matches", "invalid regular expression"
            ),
            (
                #"{"request": {"body": {"json": {"a": {"matches": 5}}}}, "response": {}}"#,
                "$.request.body.json.a.matches", "expected a string"
            ),
            (
                #"{"request": {"body": {"json": {"a": {"present": false}}}}, "response": {}}"#,
                "$.request.body.json.a.present", "expected true"
            ),
            (
                #"{"request": {"body": {"json": [{"contains": "x", "matches": "y"}]}}, "response": {}}"#,
                "$.request.body.json[0]", "exactly one of contains, matches"
            ),
            (
                #"{"request": {"body": {"json": {"n": {"greaterThan": "1"}}}}, "response": {}}"#,
                "$.request.body.json.n.greaterThan", "expected a number"
            ),
            (
                #"{"request": {"body": {"json": {"n": {"greaterThan": 1, "atLeast": 2}}}}, "response": {}}"#,
                "$.request.body.json.n", "one lower bound"
            ),
            (
                #"{"request": {"body": {"json": {"n": {"atMost": 1, "equals": 2}}}}, "response": {}}"#,
                "$.request.body.json.n.equals", "does not go with a number bound"
            ),
            (
                #"{"request": {"body": {"json": {"n": {"atMost": 1, "caseInsensitive": true}}}}, "response": {}}"#,
                "$.request.body.json.n.caseInsensitive", "does not go with"
            ),
            (
                #"{"request": {"body": {"json": {"n": {"equals": 1, "caseInsensitive": true}}}}, "response": {}}"#,
                "$.request.body.json.n.caseInsensitive", "applies to a string"
            ),
            (
                #"{"request": {"body": {"json": {"n": {"caseInsensitive": true}}}}, "response": {}}"#,
                "$.request.body.json.n", "a matcher needs one of"
            ),
            (
                #"{"request": {"body": {"jsonPointer": {"user/name": 1}}}, "response": {}}"#,
                "$.request.body.jsonPointer[\"user/name\"]", "starts with \"/\""
            ),
            (
                #"{"request": {"body": {"jsonPointer": {"/a~2": 1}}}, "response": {}}"#,
                "$.request.body.jsonPointer[\"/a~2\"]", "~0"
            ),
            (
                #"{"request": {"body": {"jsonPointer": {}}}, "response": {}}"#, "$.request.body.jsonPointer",
                "expected an object of JSON pointer"
            ),
            (
                #"{"request": {"body": {"jsonPointer": {"/a": {"matches": "["}}}}, "response": {}}"#,
                "$.request.body.jsonPointer[\"/a\"].matches", "invalid regular expression"
            ),
            (
                #"{"request": {"body": {"jsonPointer": {"/a": 1}, "caseInsensitive": true}}, "response": {}}"#,
                "$.request.body.caseInsensitive", "not to jsonPointer"
            ),
        ])
    }

    func testWarningsForPatternsThatCannotBeMeant() {
        func warnings(_ json: String) -> [String] {
            let folder = TemporaryFolder()
            folder.write("s.json", json)
            let result = folder.load()
            XCTAssertTrue(result.isServable, json)
            return result.warnings.map(\.description)
        }
        XCTAssertTrue(
            warnings(#"{"request": {"body": {"json": {"title": {"maches": ".+"}}}}, "response": {}}"#)
                .contains {
                    $0.contains("$.request.body.json.title.maches")
                        && $0.contains("did you mean the matcher \"matches\"")
                }
        )
        XCTAssertTrue(
            warnings(#"{"request": {"body": {"json": [{"absent": true}]}}, "response": {}}"#).contains {
                $0.contains("never matches")
            }
        )
        XCTAssertTrue(
            warnings(#"{"request": {"body": {"json": {"n": {"greaterThan": 5, "atMost": 5}}}}, "response": {}}"#)
                .contains { $0.contains("no number is > 5 and <= 5") }
        )
        XCTAssertEqual(
            warnings(
                #"""
                {"request": {"body": {"json": {"user": {"name": "x"}, "n": {"atLeast": 1, "atMost": 1}}}}, \#
                "response": {}}
                """#
            ),
            []
        )
    }

    func testPointersAreStrictAboutArrayIndexes() {
        let body = try! JSONParser.parse(#"{"a": [10, 20], "": {"": 3}}"#)
        XCTAssertEqual(body.resolve(pointer: "/a/1")?.number?.value, 20)
        XCTAssertNil(body.resolve(pointer: "/a/01"), "RFC 6901: no leading zeros")
        XCTAssertNil(body.resolve(pointer: "/a/+1"))
        XCTAssertNil(body.resolve(pointer: "/a/-"), "the element after the last does not exist")
        XCTAssertEqual(body.resolve(pointer: "//")?.number?.value, 3, "empty names are names")
        XCTAssertNil(JSONPointer("a"))
        XCTAssertNil(JSONPointer("/~"))
        XCTAssertEqual(JSONPointer("/~01")?.tokens, ["~1"])
    }

    func testTheEncoderWritesMatchersAsTheyWereWritten() throws {
        let stubs = loadStubs(
            #"{"request": {"body": {"jsonPointer": {"/n": {"atLeast": 1, "lessThan": 9}}}}, "response": {}}"#
        )
        let written = String(decoding: StubEncoder.encode(stubs[0]), as: UTF8.self)
        XCTAssertTrue(written.contains(#""/n": {"#) && written.contains(#""atLeast": 1"#), written)
        XCTAssertEqual(loadStubs(written).count, 1)
    }

    func testPatternsCompareNumbersByValueAndIgnoreKeyOrder() throws {
        let body = try JSONParser.parse(#"{"user": {"name": "ann", "age": 30, "tags": ["a", "b"]}, "extra": 1}"#)
        XCTAssertTrue(try pattern(#"{"user": {"age": 30.0}}"#).holds(for: body))
        XCTAssertTrue(try pattern(#"{"user": {"tags": ["a", "b"]}}"#).holds(for: body))
        XCTAssertFalse(try pattern(#"{"user": {"tags": ["a"]}}"#).holds(for: body), "arrays have as many elements")
        XCTAssertFalse(try pattern(#"{"missing": null}"#).holds(for: body), "null is not absent")
    }

    /// A `json` body pattern, compiled as the loader compiles it.
    private func pattern(_ json: String) throws -> JSONCondition {
        var context = DecodingContext(
            displayPath: "test",
            fileURL: URL(fileURLWithPath: "/"),
            bodyFiles: BodyFileReader(root: URL(fileURLWithPath: "/"))
        )
        let condition = JSONConditionDecoder.decodePattern(&context, try JSONParser.parse(json), "$")
        XCTAssertFalse(context.hasErrors, "\(context.problems)")
        return try XCTUnwrap(condition)
    }
}
