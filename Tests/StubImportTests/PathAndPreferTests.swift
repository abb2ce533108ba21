import Foundation
@testable import StubImport
import StubEngine
import XCTest
import RegularExpressions

/// Path templates as stub conditions and as what stub paths are checked against; the Prefer
/// header conditions.
final class PathAndPreferTests: XCTestCase {
    func testTemplatesBecomeStubPaths() {
        let cases: [(String, PathTemplate.StubPath)] = [
            ("/pets/{petId}", .path("/pets/{petId}")),
            ("/a/{x.y}/{x_y}", .path("/a/{x_y}/{x_y_2}")),
            ("/files/{name}.json", .pattern(#"/files/[^/]+\.json"#)),
            ("/v1/{a}-{b}/x", .pattern(#"/v1/[^/]+\-[^/]+/x"#)),
            ("/odd/*/100%/{}", .path("/odd/%2A/100%25/{param}")),
            ("/", .path("/")),
        ]
        for (source, expected) in cases {
            XCTAssertEqual(PathTemplate(source)?.stubPath, expected, source)
        }
        XCTAssertNil(PathTemplate("pets"))
    }

    func testALongPartialSegmentTemplateStillCompiles() throws {
        // Found by the openapi fuzz target: a 297-character pathPattern (Foundation leaks a little
        // compiling patterns over 255 characters, Fuzz/lsan.supp; the pattern itself is right).
        let literal = String(repeating: "\\", count: 100) + String(repeating: "_", count: 40)
        let template = try XCTUnwrap(PathTemplate("/a/{b}\(literal)/{c}/*"))
        guard case .pattern(let pattern) = template.stubPath else { return XCTFail("expected a pathPattern") }
        XCTAssertGreaterThan(pattern.count, 255)
        XCTAssertTrue(try CompiledRegex(pattern).matchesWhole("/a/x\(literal)/y/*"))
        XCTAssertFalse(try CompiledRegex(pattern).matchesWhole("/a/x\(literal)/y/z"))
    }

    func testStubPathsFitTemplatesSensibly() {
        let template = PathTemplate("/v1/users/{userId}")!
        XCTAssertNotNil(template.fit(PathTemplate.stubSegments("/v1/users/{id}")))
        XCTAssertNotNil(template.fit(PathTemplate.stubSegments("/v1/users/42")))
        XCTAssertNotNil(template.fit(PathTemplate.stubSegments("/v1/users/*")))
        XCTAssertNotNil(template.fit(PathTemplate.stubSegments("/v1/**")))
        XCTAssertNil(template.fit(PathTemplate.stubSegments("/v1/users")))
        XCTAssertNil(template.fit(PathTemplate.stubSegments("/v1/users/42/x")))
        XCTAssertNil(
            PathTemplate("/v1/users/me")!.fit(PathTemplate.stubSegments("/v1/users/{id}")),
            "a stub path wider than the document's"
        )
        XCTAssertNotNil(PathTemplate("/files/{name}.json")!.fit(PathTemplate.stubSegments("/files/a.json")))
        XCTAssertNil(PathTemplate("/files/{name}.json")!.fit(PathTemplate.stubSegments("/files/a.xml")))
        XCTAssertTrue(PathTemplate("/files/{name}.json")!.fit(pattern: try! CompiledRegex(#"/files/[^/]+\.json"#)))
        XCTAssertFalse(PathTemplate("/files/{name}.json")!.fit(pattern: try! CompiledRegex(#"/other/.*"#)))
        // The most literal template wins.
        let document = try! openAPI("openapi: 3.1.0\npaths:\n  /users/{id}: {get: {}}\n  /users/me: {get: {}}\n")
        let routes = RouteTable(OperationCatalog.operations(in: document).operations)
        XCTAssertEqual(routes.route(forPath: "/users/me")?.path, "/users/me")
        XCTAssertEqual(routes.route(forPath: "/users/7")?.path, "/users/{id}")
    }

    func testPreferConditionsAcceptTheListsClientsSend() throws {
        let code = try CompiledRegex(PreferCondition.code(404))
        for value in [
            "code=404", "CODE=404", "code = 404", #"code="404""#, "respond-async, code=404", "code=404, example=x",
            "wait=10; code=404", "return=minimal,code=404 ,x=1",
        ] {
            XCTAssertTrue(code.matchesWhole(value), value)
        }
        for value in ["code=4040", "xcode=404", "code=40", "example=404", "code=200", "", "mycode=404, code=500"] {
            XCTAssertFalse(code.matchesWhole(value), value)
        }
        let example = try CompiledRegex(PreferCondition.example("not.found"))
        XCTAssertTrue(example.matchesWhole("example=not.found"))
        XCTAssertTrue(example.matchesWhole(#"code=200, example="not.found""#))
        XCTAssertFalse(example.matchesWhole("example=notXfound"), "a dot in a name is literal")
        let both = try CompiledRegex(PreferCondition.code(404, example: "gone"))
        XCTAssertTrue(both.matchesWhole("code=404, example=gone"))
        XCTAssertTrue(both.matchesWhole("example=gone; code=404"))
        XCTAssertFalse(both.matchesWhole("example=gone"))
        XCTAssertFalse(both.matchesWhole("code=404"))
    }
}
