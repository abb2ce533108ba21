import Foundation
import StubEngine
import TestSupport
import XCTest

/// Java's look-around, back-references, atomic groups and possessive quantifiers in WireMock
/// mappings (issue 29): they load and match as Java matches them; a match that reaches the
/// backtracking budget counts as no match (for `doesNotMatch` and `not` too) and is journaled.
final class WireMockBacktrackingTests: XCTestCase {
    static let crafted = String(repeating: "a", count: 40) + "!"

    func testBacktrackingPatternsLoadAndMatchAsJavaDoes() throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "lookahead.json":
                    #"""
                {"request": {"urlPathPattern": "/api/(?!internal/).+", "method": "GET"}, "response": {"body": \#
                "public"}}
                """#,
                "lookbehind.json":
                    #"{"request": {"urlPattern": "/price/(?<=/price/)\\d+(?<!0)"}, "response": {"body": "price"}}"#,
                "backref.json":
                    #"""
                {"request": {"urlPath": "/pair", "queryParameters": {"p": {"matches": "(\\w+)-\\1"}}}, \#
                "response": {"body": "pair"}}
                """#,
                "atomic.json":
                    #"""
                {"request": {"urlPath": "/atomic", "headers": {"X-Id": {"matches": "(?>\\d+)[A-Z]++"}}}, \#
                "response": {"body": "atomic"}}
                """#,
            ]
        )
        XCTAssertEqual(h.load.stubs.count, 4)
        XCTAssertEqual(h.load.warnings.count, 0, "WireMock folders use them as a matter of course: \(h.load.warnings)")
        XCTAssertEqual(try h.send("GET", "/api/users").text, "public")
        XCTAssertEqual(try h.send("GET", "/api/internal/users").status, 404)
        XCTAssertEqual(try h.send("GET", "/price/123").text, "price")
        XCTAssertEqual(try h.send("GET", "/price/10").status, 404)
        XCTAssertEqual(try h.send("GET", "/pair?p=ab-ab").text, "pair")
        XCTAssertEqual(try h.send("GET", "/pair?p=ab-ba").status, 404)
        XCTAssertEqual(try h.send("GET", "/atomic", headers: [("X-Id", "42AB")]).text, "atomic")
        XCTAssertEqual(try h.send("GET", "/atomic", headers: [("X-Id", "42")]).status, 404)
    }

    /// `doesNotMatch` and `not` must not turn a match that gave up into a match.
    func testAnAbortIsNoMatchWhicheverWayTheMatcherReads() throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "negated.json":
                    #"""
                {"request": {"urlPath": "/negated", "headers": {"X-Token": {"doesNotMatch": \#
                "^(a+)+(?!b)$"}}}, "response": {"body": "negated"}}
                """#,
                "not.json":
                    #"""
                {"request": {"urlPath": "/not", "headers": {"X-Token": {"not": {"matches": \#
                "^(a+)+(?!b)$"}}}}, "response": {"body": "not"}}
                """#,
            ]
        )
        XCTAssertEqual(try h.send("GET", "/negated", headers: [("X-Token", "b")]).text, "negated")
        XCTAssertEqual(try h.send("GET", "/negated", headers: [("X-Token", "aaa")]).status, 404)
        XCTAssertEqual(try h.send("GET", "/negated", headers: [("X-Token", Self.crafted)]).status, 404)
        XCTAssertEqual(try h.send("GET", "/not", headers: [("X-Token", "b")]).text, "not")
        XCTAssertEqual(try h.send("GET", "/not", headers: [("X-Token", Self.crafted)]).status, 404)
    }

    /// A template's `regexExtract` that gives up renders its default, and the journal says so.
    func testATemplateRegexThatGivesUpIsJournaled() async throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "extract.json": #"""
                {"name": "extract", "request": {"urlPath": "/extract"},
                 "response": {"body": "[{{regexExtract request.query.t '^(a+)+(?!b)$' default='none'}}]",
                              "transformers": ["response-template"]}}
                """#
            ]
        )
        XCTAssertEqual(try h.send("GET", "/extract?t=aaaa").text, "[aaaa]")
        XCTAssertEqual(try h.send("GET", "/extract?t=\(Self.crafted)").text, "[none]")
        let listing = try await h.json("GET", "/__admin/requests", headers: ["X-Stubserver-Dialect": "native"])
        let entries = try XCTUnwrap((listing.json as? [String: Any])?["requests"] as? [[String: Any]])
        let aborted = entries.compactMap { $0["regexAborted"] as? [[String: Any]] }.flatMap { $0 }
        XCTAssertEqual(aborted.count, 1, "\(entries)")
        XCTAssertEqual(aborted.first?["condition"] as? String, "response template")
        XCTAssertEqual((aborted.first?["stub"] as? [String: Any])?["name"] as? String, "extract")
    }
}
