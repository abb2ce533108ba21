import HTTP1
@testable import StubEngine
import XCTest

/// The exact-path index answers by bytes for ASCII paths and as `String` compares otherwise:
/// its answers must be the `String`-keyed dictionary's it replaced.
final class LiteralIndexTests: XCTestCase {
    func testPathsThatShareBytesAreStillApart() {
        let index = LiteralIndex()
        let paths = ["/", "/a", "/a/", "/ab", "/v1/bench", "/v1/bench2", "/v1/benci", "/v1/bench-template/7"]
        for (i, path) in paths.enumerated() { index.append(i, at: path) }
        for (i, path) in paths.enumerated() { XCTAssertEqual(index.bucket(path), [i], path) }
        for missing in ["", "/b", "/v1/bench/", "/v1/benc", "/A", "/v1/bench-template/8"] {
            XCTAssertNil(index.bucket(missing), missing)
        }
    }

    /// "\u{212A}" (KELVIN SIGN) is canonically equivalent to "K": as `String`s, "/\u{212A}" and
    /// "/K" are one path, so one bucket, whichever is the stub's and whichever the request's.
    func testCanonicallyEquivalentPathsAreOnePath() {
        let asciiKey = LiteralIndex()
        asciiKey.append(0, at: "/K")
        XCTAssertEqual(asciiKey.bucket("/\u{212A}"), [0], "a request that is not ASCII is looked up as a String")
        asciiKey.append(1, at: "/\u{212A}")
        XCTAssertEqual(asciiKey.bucket("/K"), [0, 1])
        XCTAssertEqual(asciiKey.bucket("/\u{212A}"), [0, 1])
        XCTAssertNil(asciiKey.bucket("/k"))

        let otherKey = LiteralIndex()
        otherKey.append(0, at: "/\u{212A}")
        otherKey.append(1, at: "/plain")
        XCTAssertEqual(
            otherKey.bucket("/K"),
            [0],
            "with a path that is not ASCII, ASCII requests are not looked up by bytes"
        )
        XCTAssertEqual(otherKey.bucket("/plain"), [1])

        let composed = LiteralIndex()
        composed.append(0, at: "/caf\u{E9}")
        XCTAssertEqual(composed.bucket("/cafe\u{301}"), [0])
        XCTAssertNil(composed.bucket("/cafe"))
    }

    /// Paths added one at a time (runtime stubs) grow the table; a copy (a request's snapshot of
    /// the catalog) keeps what it had.
    func testGrowingAndCopying() {
        let index = LiteralIndex()
        for i in 0..<2_000 { index.append(i, at: "/api/v1/resource-\(i)") }
        let copy = index.copy()
        index.append(2_000, at: "/api/v1/resource-7")
        index.append(2_001, at: "/late")
        for i in stride(from: 0, to: 2_000, by: 97) where i != 7 {
            XCTAssertEqual(index.bucket("/api/v1/resource-\(i)"), [i])
        }
        XCTAssertEqual(index.bucket("/api/v1/resource-7"), [7, 2_000])
        XCTAssertEqual(copy.bucket("/api/v1/resource-7"), [7])
        XCTAssertEqual(index.bucket("/late"), [2_001])
        XCTAssertNil(copy.bucket("/late"))
        XCTAssertNil(index.bucket("/api/v1/resource-2000"))
    }

    /// Through the catalog: a stub whose literal path is written with the Kelvin sign answers
    /// the ASCII request, as it did when the index was a `String`-keyed dictionary.
    func testTheCatalogMatchesCanonicallyEquivalentPaths() {
        let stubs = loadStubs(
            #"""
            [{"name": "kelvin", "request": {"method": "GET", "path": "/temperature/\u212A"}, "response": {}},
             {"name": "plain", "request": {"method": "GET", "path": "/plain"}, "response": {}}]
            """#
        )
        let e = Engine(stubs: stubs)
        XCTAssertEqual(e.answer(makeRequest("GET", "/temperature/K")), "kelvin")
        XCTAssertEqual(e.answer(makeRequest("GET", "/temperature/%E2%84%AA")), "kelvin")
        XCTAssertEqual(e.answer(makeRequest("GET", "/plain")), "plain")
        XCTAssertNil(e.answer(makeRequest("POST", "/plain")))
    }

    func testAdminPathsAreClaimedByTheirBytes() {
        for path in ["/__admin", "/__admin/", "/__admin/stubs", "/__admin/%20"] {
            XCTAssertTrue(AdminAPI.claims(path), path)
        }
        for path in ["", "/", "/__admi", "/__adminx", "/__admin\u{301}", "/__Admin", "/v1/__admin", "/__admin\u{301}/"]
        {
            XCTAssertFalse(AdminAPI.claims(path), path)
        }
    }
}
