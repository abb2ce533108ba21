import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// `verify` fails the XCTest that runs it, with the near-miss report turned around: the requests
/// that came closest to the pattern, and each condition they failed. (Swift Testing's side is in
/// SwiftTestingTests.swift.) This class keeps the failures it is sent instead of failing.
final class VerifyTests: XCTestCase {
    private var failures: [String] = []
    private var capturing = false

    #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
        if capturing { failures.append(issue.compactDescription) } else { super.record(issue) }
    }
    #else
    override func recordFailure(
        withDescription description: String,
        inFile filePath: String,
        atLine lineNumber: Int,
        expected: Bool
    ) {
        if capturing {
            failures.append(description)
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }
    #endif

    /// What `body` makes XCTest record.
    private func failures(_ body: () -> Void) -> [String] {
        capturing = true
        failures = []
        body()
        capturing = false
        return failures
    }

    private func loggedIn(through transport: Transport) async throws -> Stubs {
        let stubs = try Stubs(directory: bundledStubs)
        let client = try client(of: stubs, through: transport)
        _ = try? await client.login(username: "swift-senpai", password: "wrong")
        _ = try? await client.forecast(location: "tokyo")
        return stubs
    }

    func testAFailedVerificationShowsTheClosestRequestsAndWhatDiffered() async throws {
        for transport in Transport.allCases {
            let stubs = try await loggedIn(through: transport)
            XCTAssertEqual(failures { stubs.verify(.post("/oauth/token")) }, [], "\(transport): it was called")
            let messages = failures { stubs.verify(.post("/oauth/token", body: .json(["password": "correct-horse"]))) }
            XCTAssertEqual(messages.count, 1, "\(transport)")
            let message = messages.first ?? ""
            XCTAssertTrue(
                message.contains(
                    #"""
                    Expected a request matching \#
                    {"method":"POST","path":"/oauth/token","body":{"json":{"password":"correct-horse"}}} at least \#
                    once; none was received.
                    """#
                ),
                message
            )
            XCTAssertTrue(message.contains("Closest requests, and what differed:"), message)
            XCTAssertTrue(message.contains(#"1. #1 POST /oauth/token → 401 "Login: wrong credentials""#), message)
            XCTAssertTrue(message.contains(#"body.password: expected "correct-horse", got "wrong""#), message)
            XCTAssertTrue(message.contains("2. #2 GET /v1/weather/forecast?location=tokyo"), message)
            XCTAssertTrue(message.contains("method: expected POST, got GET"), message)
        }
    }

    func testTooManyCallsListTheMatchingRequests() async throws {
        let stubs = try await loggedIn(through: .urlProtocol)
        let message = failures { stubs.verify(.get("/v1/weather/forecast"), count: .never) }.first ?? ""
        XCTAssertTrue(message.contains("never; 1 was received."), message)
        XCTAssertTrue(
            message.contains("Matching requests:\n  #2 GET /v1/weather/forecast?location=tokyo → 200"),
            message
        )
        XCTAssertEqual(failures { stubs.verify(.get("/v1/weather/forecast"), count: 1) }, [])
        XCTAssertEqual(failures { stubs.verify(.get("/v1/weather/forecast"), count: .atMost(1)) }, [])
        XCTAssertEqual(failures { stubs.verify(.get("/v1/weather/forecast"), count: .atLeast(2)) }.count, 1)
    }

    /// Nothing recorded must not pass as "never called".
    func testWithTheJournalOffVerifyingFailsAndCountingThrows() async throws {
        let stubs = try Stubs(journalCapacity: 0) { StubDefinition(request: .get("/x"), response: .status(204)) }
        let client = try client(of: stubs, through: .server)
        let status = try await client.ping("x")
        XCTAssertEqual(status, 204)
        let message = failures { stubs.verify(.get("/x"), count: .never) }.first ?? ""
        XCTAssertTrue(message.contains("the journal is off (journalCapacity: 0)"), message)
        XCTAssertThrowsError(try stubs.count(matching: .get("/x"))) {
            XCTAssertTrue("\($0)".contains("the journal is off"), "\($0)")
        }
        XCTAssertThrowsError(try stubs.requests)
        XCTAssertThrowsError(try stubs.unmatched)
        XCTAssertEqual(failures { stubs.verifyNoUnmatchedRequests() }.count, 1)
    }

    func testUnmatchedRequestsFailWithTheirNearMissReports() async throws {
        let stubs = try await loggedIn(through: .server)
        XCTAssertEqual(failures { stubs.verifyNoUnmatchedRequests() }, [])
        let client = try client(of: stubs, through: .server)
        _ = try? await client.ping("v1/wether/forecast")
        let message = failures { stubs.verifyNoUnmatchedRequests() }.first ?? ""
        XCTAssertTrue(message.contains("1 request matched no stub:"), message)
        XCTAssertTrue(message.contains("GET /v1/wether/forecast → 404 (no stub matched)"), message)
        XCTAssertTrue(message.contains("path: expected /v1/weather/forecast, got /v1/wether/forecast"), message)
    }
}
