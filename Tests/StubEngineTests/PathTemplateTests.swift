import StubEngine
import XCTest

/// The one reader of `{name}` paths, for the stub format, WireMock's `urlPathTemplate` and
/// OpenAPI paths: parts, and the segment pattern with and without the stub format's wildcards.
final class PathTemplateTests: XCTestCase {
    func testPartsOfASegment() {
        let cases: [(String, [PathTemplate.Part])] = [
            ("", [.literal("")]),
            ("users", [.literal("users")]),
            ("{id}", [.parameter("id")]),
            ("{}", [.parameter("")]),
            ("{name}.json", [.parameter("name"), .literal(".json")]),
            ("v{major}.{minor}", [.literal("v"), .parameter("major"), .literal("."), .parameter("minor")]),
            ("{a}{b}", [.parameter("a"), .parameter("b")]),
            // A `{` with no `}` after it is text; a lone `}` is text.
            ("{open", [.literal("{open")]),
            ("close}", [.literal("close}")]),
            ("x{y", [.literal("x{y")]),
            // The first `}` closes: `{{a}}` is a parameter named `{a` and the text `}`.
            ("{{a}}", [.parameter("{a"), .literal("}")]),
            ("caf%C3%A9", [.literal("caf%C3%A9")]),
        ]
        for (segment, expected) in cases {
            XCTAssertEqual(PathTemplate.parts(Substring(segment)), expected, segment)
        }
    }

    func testSegmentsNamesAndSource() throws {
        XCTAssertNil(PathTemplate("users/{id}"))
        XCTAssertNil(PathTemplate(""))
        let root = try XCTUnwrap(PathTemplate("/"))
        XCTAssertEqual(root.segments, [[.literal("")]])
        let template = try XCTUnwrap(PathTemplate("/teams/{team}/files/{name}.json/"))
        XCTAssertEqual(template.source, "/teams/{team}/files/{name}.json/")
        XCTAssertEqual(template.segments.count, 5, "a trailing slash is an empty last segment")
        XCTAssertEqual(template.parameterNames, ["team", "name"])
        XCTAssertTrue(template.isPartialSegmentTemplate)
        XCTAssertFalse(try XCTUnwrap(PathTemplate("/teams/{team}")).isPartialSegmentTemplate)
    }

    func testParameterNames() {
        for name in ["id", "user_id", "user-id", "x1", "ñame"] {
            XCTAssertTrue(PathTemplate.isParameterName(name), name)
        }
        for name in ["", "a b", "+name", "name*", "a.b", "a/b"] {
            XCTAssertFalse(PathTemplate.isParameterName(name), name)
        }
    }

    private func pattern(_ source: String, wildcards: Bool) throws -> Result<PathPattern, PathTemplate.SegmentProblem> {
        try XCTUnwrap(PathTemplate(source)).segmentPattern(wildcards: wildcards)
    }

    func testSegmentPatternsMatchAsWritten() throws {
        let users = try pattern("/users/{id}/caf%C3%A9", wildcards: true).get()
        XCTAssertEqual(users.match("/users/42/café", segments: PathPattern.split("/users/42/café")), ["id": "42"])
        XCTAssertNil(
            users.match("/users//café", segments: PathPattern.split("/users//café")),
            "a parameter is never empty"
        )
        let literal = try pattern("/a/b", wildcards: false).get()
        XCTAssertEqual(literal.literalPath, "/a/b")
        let rest = try pattern("/files/*/**", wildcards: true).get()
        XCTAssertNotNil(rest.match("/files/x/y/z", segments: PathPattern.split("/files/x/y/z")))
        // Without wildcards (WireMock), `*` is text: only a path with that very character matches.
        let star = try pattern("/user*/{id}", wildcards: false).get()
        XCTAssertEqual(star.match("/user*/7", segments: PathPattern.split("/user*/7")), ["id": "7"])
        XCTAssertNil(star.match("/users/7", segments: PathPattern.split("/users/7")))
    }

    func testSegmentPatternProblems() throws {
        let cases: [(String, Bool, PathTemplate.SegmentProblem)] = [
            ("/a/x{id}", true, .partialSegment("x{id}")),
            ("/a/{id}.json", false, .partialSegment("{id}.json")),
            ("/a/{a}{b}", false, .partialSegment("{a}{b}")),
            ("/a/{open", true, .partialSegment("{open")),
            ("/a/close}", false, .partialSegment("close}")),
            ("/a/{}", true, .invalidName("")),
            ("/a/{+name}", false, .invalidName("+name")),
            ("/a/{name*}", false, .invalidName("name*")),
            ("/a/{id}/{id}", true, .repeatedName("id")),
            ("/a/%zz", true, .badEscape("%zz")),
            ("/a/%4", false, .badEscape("%4")),
            ("/**/a", true, .restNotLast),
            ("/a*b", true, .partialWildcard("a*b")),
        ]
        for (source, wildcards, expected) in cases {
            let result = try pattern(source, wildcards: wildcards)
            guard case .failure(let problem) = result else {
                XCTFail("\(source) compiled")
                continue
            }
            XCTAssertEqual(problem, expected, source)
        }
    }
}
