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

    /// `Stubs(openAPI:)`: the app's requests checked against the document from a test; the
    /// failure lists each request that broke it with its violations; enforced, the app gets 400.
    func testAContractFromAnOpenAPIDocumentFailsTheTestWithItsViolations() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let spec = folder.appendingPathComponent("api.yaml")
        try Data(
            """
            openapi: 3.0.3
            info: {title: t, version: '1'}
            paths:
              /v1/items:
                get:
                  parameters: [{name: limit, in: query, schema: {type: integer}}]
                  responses: {'200': {description: ok}}
            """.utf8
        ).write(to: spec)
        for enforcing in [false, true] {
            let stubs = try Stubs(openAPI: spec, enforcingContract: enforcing) {
                StubDefinition(request: .get("/v1/items"), response: .json(["ok": true]))
            }
            let registration = StubURLProtocol.register(stubs)
            defer { StubURLProtocol.unregister(registration) }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = [StubURLProtocol.self]
            let session = URLSession(configuration: configuration)
            let good = registration.baseURL.appendingPathComponent("v1/items")
            _ = try await session.data(from: URL(string: good.absoluteString + "?limit=5")!)
            XCTAssertEqual(failures { stubs.verifyContract() }, [], "a request that keeps to the document")
            let (_, response) = try await session.data(from: URL(string: good.absoluteString + "?limit=ten")!)
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, enforcing ? 400 : 200)
            let message = failures { stubs.verifyContract() }.first ?? ""
            XCTAssertTrue(message.contains("1 request broke the OpenAPI contract"), message)
            XCTAssertTrue(message.contains(#"query.limit: expected an integer, found the string "ten""#), message)
            XCTAssertEqual(try stubs.requests.last?.contractViolations.count, 1)
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
