import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// The example client against the bundled stubs (`stubs/`), with the same assertions through
/// both transports: the in-process server (real sockets) and StubURLProtocol (no sockets).
/// Each test also verifies what the client sent.
final class ExampleClientTests: XCTestCase {
    func testRegistrationMapsE001ToUsernameAlreadyExists() async throws {
        try await forEachTransport { transport, client, stubs in
            do {
                try await client.register(username: "swift-senpai", password: "pw")
                XCTFail("\(transport): expected usernameAlreadyExists")
            } catch let error as ExampleClient.Failure {
                XCTAssertEqual(error, .usernameAlreadyExists, "\(transport)")
            }
            try await client.register(username: "new-user", password: "pw")
            let sent = try stubs.requests(matching: .post("/v1/register"))
            XCTAssertEqual(sent.count, 2, "\(transport)")
            XCTAssertEqual(
                try sent[0].json([String: String].self),
                ["username": "swift-senpai", "password": "pw"],
                "\(transport)"
            )
            XCTAssertEqual(sent[0].header("content-type"), "application/json", "\(transport)")
            XCTAssertEqual(sent.map(\.status), [409, 201], "\(transport)")
        }
    }

    func testLoginSendsJSONWithTheRightHeaders() async throws {
        try await forEachTransport { transport, client, stubs in
            let token = try await client.login(username: "swift-senpai", password: "correct-horse")
            XCTAssertEqual(token.token_type, "Bearer", "\(transport)")
            do {
                _ = try await client.login(username: "swift-senpai", password: "wrong")
                XCTFail("\(transport): expected invalidCredentials")
            } catch let error as ExampleClient.Failure {
                XCTAssertEqual(error, .invalidCredentials, "\(transport)")
            }
            stubs.verify(
                .post(
                    "/oauth/token",
                    headers: ["X-Client-Id": "ios-app", "Content-Type": .contains("json")],
                    body: .json(["grant_type": "password", "username": "swift-senpai", "password": .present])
                ),
                count: 2
            )
            stubs.verify(.post("/oauth/token", body: .json(["password": "correct-horse"])), count: .once)
            XCTAssertEqual(
                try stubs.requests.last?.url?.absoluteString,
                client.baseURL.absoluteString + "/oauth/token",
                "\(transport)"
            )
            stubs.verifyNoUnmatchedRequests()
        }
    }

    func testWeatherHandlesSuccessBadLocationAndATruncatedBody() async throws {
        try await forEachTransport { transport, client, stubs in
            let forecast = try await client.forecast(location: "tokyo")
            XCTAssertEqual(forecast.location, "Tokyo", "\(transport)")
            XCTAssertEqual(forecast.days.count, 3, "\(transport)")
            do {
                _ = try await client.forecast(location: "atlantis")
                XCTFail("\(transport)")
            } catch let error as ExampleClient.Failure { XCTAssertEqual(error, .unknownLocation, "\(transport)") }
            do {
                _ = try await client.forecast(location: "broken")
                XCTFail("\(transport)")
            } catch let error as ExampleClient.Failure { XCTAssertEqual(error, .malformedResponse, "\(transport)") }
            XCTAssertEqual(
                try stubs.requests.map { $0.query("location") },
                ["tokyo", "atlantis", "broken"],
                "\(transport)"
            )
            XCTAssertEqual(try stubs.requests.map(\.status), [200, 400, 200], "\(transport)")
        }
    }

    func testAConnectionResetIsANetworkError() async throws {
        try await forEachTransport { transport, client, stubs in
            do {
                _ = try await client.ping("v1/flaky/reset")
                XCTFail("\(transport): expected a network error")
            } catch let error as ExampleClient.Failure {
                XCTAssertEqual(error, .network(ResponseDefinition.Fault.reset.urlErrorCode), "\(transport)")
            }
            let sent = try stubs.requests(matching: .get("/v1/flaky/reset"))
            XCTAssertEqual(sent.map(\.fault), [.reset], "\(transport)")
            XCTAssertEqual(sent.map(\.status), [nil], "\(transport): a fault sends no status")
        }
    }

    /// A stub that never answers ends in the client's timeout, in about that time: the
    /// URLProtocol transport keeps the timer Foundation on Linux does not.
    func testARequestThatNeverAnswersTimesOutInAboutItsTimeout() async throws {
        try await forEachTransport { transport, client, stubs in
            let started = ContinuousClock.now
            do {
                _ = try await client.ping("v1/flaky/hang", timeout: 1)
                XCTFail("\(transport): expected a timeout")
            } catch let error as ExampleClient.Failure {
                XCTAssertEqual(error, .network(.timedOut), "\(transport)")
            }
            let elapsed = ContinuousClock.now - started
            XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(950), "\(transport): \(elapsed)")
            XCTAssertLessThan(elapsed, .seconds(2), "\(transport): \(elapsed)")
            XCTAssertEqual(try stubs.requests.first?.fault, .hang, "\(transport)")
        }
    }

    func testABlankTitleIsRefusedByAMatcherInsideTheJSONBody() async throws {
        try await forEachTransport { transport, client, stubs in
            try stubs.add(
                StubDefinition(
                    request: .post("/v1/comments", body: .json(["text": .matches(".*\\S.*"), "postId": .atLeast(1)])),
                    response: .status(201)
                )
            )
            try stubs.add(
                StubDefinition(
                    priority: 9,
                    request: .post("/v1/comments"),
                    response: .json(["error": "text required"], status: 422)
                )
            )
            let session = client.session
            for (body, expected) in [
                (#"{"text": "nice", "postId": 7}"#, 201), (#"{"text": "  ", "postId": 7}"#, 422),
                (#"{"text": "x", "postId": 0}"#, 422),
            ] {
                var request = URLRequest(url: client.baseURL.appendingPathComponent("v1/comments"))
                request.httpMethod = "POST"
                request.httpBody = Data(body.utf8)
                let (_, response) = try await session.data(for: request)
                XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, expected, "\(transport): \(body)")
            }
        }
    }

    func testUnmatchedRequestsSayWhatCameClosest() async throws {
        try await forEachTransport { transport, client, stubs in
            let elsewhere = ExampleClient(baseURL: client.baseURL.appendingPathComponent("v2"), session: client.session)
            _ = try? await elsewhere.login(username: "x", password: "y")
            let unmatched = try stubs.unmatched
            XCTAssertEqual(unmatched.count, 1, "\(transport)")
            XCTAssertTrue(
                unmatched.first?.nearMiss?.contains("path: expected /oauth/token, got /v2/oauth/token") ?? false,
                "\(transport): \(unmatched.first?.nearMiss ?? "nil")"
            )
        }
    }
}
