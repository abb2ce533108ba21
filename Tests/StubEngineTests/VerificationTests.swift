import HTTP1
import NativeStubs
@testable import StubEngine
import XCTest

/// What StubKit's `verify` reads: the journal entries closest to a pattern that matched none.
final class VerificationTests: XCTestCase {
    func testClosestEntriesAreTheFewestAndLightestFailuresNewestFirst() throws {
        let e = engine(#"{"response": {}}"#)
        _ = e.handle(makeRequest("GET", "/v1/users"))
        _ = e.handle(makeRequest("POST", "/v1/user", body: #"{"name": "ann"}"#))
        _ = e.handle(makeRequest("POST", "/v1/users", body: #"{"name": "bob"}"#))
        _ = e.handle(makeRequest("POST", "/v1/users", body: #"{"name": "cy"}"#))
        let closest = try e.closestEntries(
            to: Array(#"{"method": "POST", "path": "/v1/users", "body": {"json": {"name": "ann"}}}"#.utf8),
            limit: 3
        )
        XCTAssertEqual(
            closest.map(\.entry.id),
            [4, 3, 2],
            "one failed body condition each for 4 and 3 (newest first), then a near path"
        )
        XCTAssertEqual(closest.first?.mismatches.map(\.condition), ["body.name"])
        XCTAssertEqual(closest.first?.mismatches.first?.actual, #""cy""#)
        XCTAssertEqual(closest.last?.mismatches.map(\.condition), ["path"])
        XCTAssertTrue(
            try e.closestEntries(to: Array(#"{"path": "/v1/users"}"#.utf8)).allSatisfy { $0.entry.id == 2 },
            "entries that match are not close"
        )
    }

    func testAComputedResponseIsCheckedLikeAFilesResponse() {
        let e = Engine(stubs: [])
        let request = makeRequest("GET", "/u/7")
        switch e.renderResponse(
            json: Array(#"{"status": 201, "template": true, "body": "{{request.path.id}}"}"#.utf8),
            for: request,
            captures: ["id": "7"],
            label: "code"
        ) {
        case .success(let response):
            XCTAssertEqual(response.prepared.status, 201)
            XCTAssertEqual(response.bodyText, "7")
        case .failure(let problems):
            XCTFail("\(problems)")
        }
        guard
            case .failure(let problems) = e.renderResponse(
                json: Array(#"{"status": 99, "fault": "boom"}"#.utf8),
                for: request,
                captures: [:],
                label: "code"
            )
        else {
            return XCTFail("accepted")
        }
        XCTAssertEqual(problems.problems.map(\.jsonPath), ["$.status", "$.fault"])
    }
}
