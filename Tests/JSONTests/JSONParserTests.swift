import Foundation
import JSON
import XCTest

final class JSONParserTests: XCTestCase {
    func testParsesEveryKindAndKeepsMemberOrder() throws {
        let node = try JSONParser.parse(
            #"{"b": [1, 2.50, -3e2], "a": {"t": true, "f": false, "n": null}, "s": "x\u00e9\ud83d\ude00\n"}"#
        )
        XCTAssertEqual(node.members?.map(\.key), ["b", "a", "s"])
        XCTAssertEqual(node["b"]?.elements?.map { $0.number?.text }, ["1", "2.50", "-3e2"])
        XCTAssertEqual(node["b"]?.elements?[2].number?.value, -300)
        XCTAssertEqual(node["s"]?.string, "xé😀\n")
        XCTAssertEqual(
            JSONSerializer.string(node),
            #"{"b":[1,2.50,-3e2],"a":{"t":true,"f":false,"n":null},"s":"xé😀\n"}"#
        )
    }

    func testPositionsAreOneBasedLineAndColumn() throws {
        let node = try JSONParser.parse("{\n  \"a\": 1,\n    \"b\": [true]\n}")
        XCTAssertEqual(node.members?[1].keyPosition, SourcePosition(line: 3, column: 5))
        XCTAssertEqual(node["b"]?.position, SourcePosition(line: 3, column: 10))
        XCTAssertEqual(node["b"]?.elements?.first?.position, SourcePosition(line: 3, column: 11))
    }

    func testSyntaxErrorsSayWhereAndWhat() {
        let cases: [(String, Int, Int, String)] = [
            ("", 1, 1, "empty"),
            ("{\"a\": 1,}", 1, 9, "trailing comma"),
            ("[1, 2,]", 1, 7, "trailing comma"),
            ("{\"a\" 1}", 1, 6, "expected ':'"),
            ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, "expected ',' or '}'"),
            ("{'a': 1}", 1, 2, "expected a key in double quotes"),
            ("['a']", 1, 2, "double quotes"),
            ("{\"a\": tru}", 1, 7, "unknown word"),
            ("{\"a\": 01}", 1, 7, "leading zeros"),
            ("{\"a\": \"x\ny\"}", 1, 9, "line break inside a string"),
            ("{\"a\": \"\\q\"}", 1, 8, "unknown escape"),
            ("{\"a\": 1} x", 1, 10, "after the end"),
            ("{\"a\": [1, 2}", 1, 12, "expected ',' or ']'"),
            ("{\"a\": 1", 1, 8, "not closed"),
            ("{\"a\": \"\\ud800\"}", 1, 14, "low surrogate"),
        ]
        for (text, line, column, fragment) in cases {
            do {
                _ = try JSONParser.parse(text)
                XCTFail("accepted \(text.debugDescription)")
            } catch {
                XCTAssertEqual(
                    error.position,
                    SourcePosition(line: line, column: column),
                    "position for \(text.debugDescription): \(error.message)"
                )
                XCTAssertTrue(error.message.contains(fragment), "\(text.debugDescription): \(error.message)")
            }
        }
    }

    func testDuplicateKeysAreRejectedOnlyWhenAsked() throws {
        XCTAssertNoThrow(try JSONParser.parse(#"{"a": 1, "a": 2}"#))
        XCTAssertThrowsError(try JSONParser.parse(#"{"a": 1, "a": 2}"#, rejectDuplicateKeys: true))
    }

    func testNestingIsBounded() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        XCTAssertThrowsError(try JSONParser.parse(deep))
    }

    func testByteOrderMarkIsSkipped() throws {
        XCTAssertEqual(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)).elements?.count, 1)
    }

    func testEqualityComparesNumbersByValueAndIgnoresKeyOrder() throws {
        let body = try JSONParser.parse(#"{"user": {"name": "ann", "age": 30, "tags": ["a", "b"]}, "extra": 1}"#)
        XCTAssertTrue(
            body.equals(
                try JSONParser.parse(#"{"extra": 1.0, "user": {"tags": ["a", "b"], "age": 3e1, "name": "ann"}}"#)
            )
        )
        XCTAssertFalse(body.equals(try JSONParser.parse(#"{"user": {"name": "ann", "age": 30, "tags": ["a", "b"]}}"#)))
    }

    func testPointerLookup() throws {
        let body = try JSONParser.parse(#"{"a/b": {"~x": [10, 20]}}"#)
        XCTAssertEqual(body.resolve(pointer: "/a~1b/~0x/1")?.number?.value, 20)
        XCTAssertNil(body.resolve(pointer: "/a~1b/~0x/2"))
        XCTAssertNotNil(body.resolve(pointer: ""))
    }

    /// Jackson's and JavaScript's reading of a repeated key: the last value, at the first place,
    /// in nested objects and arrays too; each repeat reported with its position.
    func testMergingDuplicateKeysKeepsTheLastValueInTheFirstPlace() throws {
        let parsed = try JSONParser.parse(#"{"a": 1, "b": {"x": 1, "x": 2}, "a": 3, "list": [{"k": 1, "k": 2}]}"#)
        let (merged, duplicates) = parsed.mergingDuplicateKeys()
        XCTAssertEqual(
            String(decoding: JSONSerializer.bytes(merged), as: UTF8.self),
            #"{"a":3,"b":{"x":2},"list":[{"k":2}]}"#
        )
        XCTAssertEqual(duplicates.map(\.key), ["x", "a", "k"])
        XCTAssertEqual(duplicates.map(\.objectPath), ["$.b", "$", "$.list[0]"])
        XCTAssertEqual(duplicates[1].position, SourcePosition(line: 1, column: 33))
        let (same, none) = try JSONParser.parse(#"{"a": [1, {"b": 2}]}"#).mergingDuplicateKeys()
        XCTAssertEqual(String(decoding: JSONSerializer.bytes(same), as: UTF8.self), #"{"a":[1,{"b":2}]}"#)
        XCTAssertEqual(none, [])
    }
}
