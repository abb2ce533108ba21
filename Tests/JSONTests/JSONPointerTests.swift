import JSON
import XCTest

/// The package's one RFC 6901 pointer: parsing, escaping both ways, array indexes as the RFC
/// writes them (no leading zeros, no sign, `-` selects nothing), and what a bad one is told.
final class JSONPointerTests: XCTestCase {
    func testTokens() throws {
        let cases: [(String, [String])] = [
            ("", []),
            ("/", [""]),
            ("//", ["", ""]),
            ("/a/b", ["a", "b"]),
            ("/a~1b", ["a/b"]),
            ("/m~0n", ["m~n"]),
            // `~1` is undone before `~0`, so `~01` is the name `~1`, not `/`.
            ("/~01", ["~1"]),
            ("/~10", ["/0"]),
            ("/ ", [" "]),
            ("/é/0", ["é", "0"]),
        ]
        for (text, tokens) in cases {
            let pointer = try XCTUnwrap(JSONPointer(text), text)
            XCTAssertEqual(pointer.tokens, tokens, text)
            XCTAssertEqual(pointer.description, text)
        }
    }

    func testWhatIsNoPointer() {
        XCTAssertNil(JSONPointer("a/b"))
        XCTAssertNotNil(JSONPointer.problem(in: "a/b")?.contains("starts with \"/\""))
        for text in ["/~", "/a~", "/~2", "/~a/b", "/ok/~x"] {
            XCTAssertNil(JSONPointer(text), text)
            XCTAssertEqual(
                JSONPointer.problem(in: text),
                "\"~\" in a JSON pointer is written \"~0\", and \"/\" inside a name \"~1\""
            )
        }
        XCTAssertNil(JSONPointer.problem(in: "/~0/~1"))
    }

    func testTheBadEscapeIsFoundWithTheCharacterAfterIt() {
        let cases: [(String, String?)] = [
            ("/a~2b", "~2"),
            ("/a~", "~"),
            ("/~0~1~x", "~x"),
            ("/~0~1", nil),
            ("/~é", "~é"),
        ]
        for (text, bad) in cases {
            XCTAssertEqual(JSONPointer.badEscape(in: text).map { String(text[$0]) }, bad, text)
        }
    }

    func testEscapeAndUnescapeAreInverse() {
        for name in ["", "plain", "a/b", "m~n", "~1", "~0", "/~/", "~~//"] {
            let escaped = JSONPointer.escape(name)
            XCTAssertFalse(escaped.contains("/"), escaped)
            XCTAssertEqual(JSONPointer.unescape(Substring(escaped)), name)
            XCTAssertEqual(JSONPointer("/" + escaped)?.tokens, [name])
        }
        XCTAssertEqual(JSONPointer.escape("a/b~c"), "a~1b~0c")
    }

    /// RFC 6901 §4: array-index = %x30 / ( %x31-39 *(%x30-39) ). A leading zero, a sign, `-`
    /// (the element after the last), an exponent or a number too large select nothing.
    func testArrayIndexes() {
        let cases: [(String, Int?)] = [
            ("0", 0),
            ("7", 7),
            ("10", 10),
            ("01", nil),
            ("00", nil),
            ("+1", nil),
            ("-1", nil),
            ("-", nil),
            ("1e2", nil),
            ("", nil),
            (" 1", nil),
            ("١", nil),
            ("99999999999999999999999", nil),
        ]
        for (token, index) in cases {
            XCTAssertEqual(JSONPointer.arrayIndex(token), index, token)
        }
    }

    func testResolving() throws {
        let body = try JSONParser.parse(Array(#"{"a": [10, 20], "01": "name", "a/b": {"~": true}}"#.utf8))
        XCTAssertEqual(JSONPointer("/a/1")?.resolve(in: body)?.number?.value, 20)
        XCTAssertNil(JSONPointer("/a/01")?.resolve(in: body))
        XCTAssertNil(JSONPointer("/a/2")?.resolve(in: body))
        XCTAssertEqual(JSONPointer("/01")?.resolve(in: body)?.string, "name", "in an object 01 is a name")
        XCTAssertNotNil(JSONPointer("/a~1b/~0")?.resolve(in: body))
        XCTAssertNotNil(JSONPointer("")?.resolve(in: body)?.members)
        XCTAssertNil(JSONPointer("/a/0/x")?.resolve(in: body), "nothing inside a number")
    }
}
