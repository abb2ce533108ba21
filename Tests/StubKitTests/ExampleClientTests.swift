import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubEngine
import StubKit
import XCTest

/// The example client against the bundled stubs, through both transports: the in-process server
/// (real sockets) and StubURLProtocol (no sockets). Each test also checks what was sent.
final class ExampleClientTests: XCTestCase {
    static let stubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("stubs").path

    enum Transport: CaseIterable { case server, urlProtocol }

    /// A client and the server whose journal records what it sent.
    func makeClient(_ transport: Transport) throws -> (ExampleClient, LocalStubServer) {
        let server = try LocalStubServer(directory: Self.stubs)
        addTeardownBlock { server.stop() }
        switch transport {
        case .server:
            return (ExampleClient(baseURL: server.baseURL, session: URLSession(configuration: .ephemeral)), server)
        case .urlProtocol:
            let transport = StubURLProtocol.register(server.stubs)
            addTeardownBlock { StubURLProtocol.unregister(transport) }
            return (ExampleClient(baseURL: transport.baseURL, session: URLSession(configuration: transport.configuration)), server)
        }
    }

    func testRegistrationMapsE001ToUsernameAlreadyExists() async throws {
        for transport in Transport.allCases {
            let (client, server) = try makeClient(transport)
            do {
                try await client.register(username: "swift-senpai", password: "pw")
                XCTFail("\(transport): expected usernameAlreadyExists")
            } catch {
                XCTAssertEqual(error, .usernameAlreadyExists, "\(transport)")
            }
            try await client.register(username: "new-user", password: "pw")
            let sent = try server.stubs.requests(matching: RequestDefinition(method: "POST", path: "/v1/register"))
            XCTAssertEqual(sent.count, 2, "\(transport)")
            XCTAssertEqual(try sent[0].json([String: String].self), ["username": "swift-senpai", "password": "pw"], "\(transport)")
            XCTAssertEqual(sent[0].header("content-type"), "application/json", "\(transport)")
        }
    }

    func testLoginSendsJSONWithTheRightHeaders() async throws {
        for transport in Transport.allCases {
            let (client, server) = try makeClient(transport)
            let token = try await client.login(username: "swift-senpai", password: "correct-horse")
            XCTAssertEqual(token.token_type, "Bearer", "\(transport)")
            do {
                _ = try await client.login(username: "swift-senpai", password: "wrong")
                XCTFail("\(transport): expected invalidCredentials")
            } catch {
                XCTAssertEqual(error, .invalidCredentials, "\(transport)")
            }
            let matcher = RequestDefinition(method: "POST", path: "/oauth/token",
                                            headers: ["X-Client-Id": "ios-app", "Content-Type": .contains("json")],
                                            body: try .json(["grant_type": "password", "username": "swift-senpai"]))
            XCTAssertEqual(try server.stubs.count(matching: matcher), 2, "\(transport)")
            XCTAssertEqual(server.stubs.requests.last?.url?.absoluteString, client.baseURL.absoluteString + "/oauth/token", "\(transport)")
        }
    }

    func testWeatherHandlesSuccessBadLocationAndATruncatedBody() async throws {
        for transport in Transport.allCases {
            let (client, server) = try makeClient(transport)
            let forecast = try await client.forecast(location: "tokyo")
            XCTAssertEqual(forecast.location, "Tokyo", "\(transport)")
            XCTAssertEqual(forecast.days.count, 3)
            do { _ = try await client.forecast(location: "atlantis"); XCTFail() } catch { XCTAssertEqual(error, .unknownLocation, "\(transport)") }
            do { _ = try await client.forecast(location: "broken"); XCTFail() } catch { XCTAssertEqual(error, .malformedResponse, "\(transport)") }
            XCTAssertEqual(server.stubs.requests.map { $0.query("location") }, ["tokyo", "atlantis", "broken"], "\(transport)")
        }
    }

    func testANetworkLevelFailure() async throws {
        for transport in Transport.allCases {
            let (client, server) = try makeClient(transport)
            try server.stubs.add(StubDefinition(request: RequestDefinition(method: "POST", path: "/v1/register"),
                                          response: ResponseDefinition(fault: "reset")))
            do {
                try await client.register(username: "anyone", password: "pw")
                XCTFail("\(transport): expected a network error")
            } catch {
                guard case .network = error else { return XCTFail("\(transport): \(error)") }
            }
            XCTAssertEqual(try server.stubs.count(matching: RequestDefinition(path: "/v1/register")), 1, "\(transport)")
        }
    }

    func testUnmatchedRequestsSayWhatCameClosest() async throws {
        for transport in Transport.allCases {
            let (client, server) = try makeClient(transport)
            _ = try? await client.login(username: "x", password: "y")
            server.stubs.reset()
            let stubbed = ExampleClient(baseURL: client.baseURL.appendingPathComponent("v2"), session: client.session)
            _ = try? await stubbed.login(username: "x", password: "y")
            let unmatched = server.stubs.unmatched
            XCTAssertEqual(unmatched.count, 1, "\(transport)")
            XCTAssertTrue(unmatched.first?.nearMiss?.contains("path: expected /oauth/token, got /v2/oauth/token") ?? false, "\(transport): \(unmatched.first?.nearMiss ?? "nil")")
        }
    }

    func testParallelServersShareNothing() async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<8 {
                group.addTask {
                    let server = try LocalStubServer(stubs: [StubDefinition(request: RequestDefinition(path: "/n"), response: .text("\(i)"))])
                    defer { server.stop() }
                    let (data, _) = try await URLSession(configuration: .ephemeral).data(from: server.baseURL.appendingPathComponent("n"))
                    XCTAssertEqual(String(decoding: data, as: UTF8.self), "\(i)")
                    return server.stubs.requests.count
                }
            }
            for try await count in group { XCTAssertEqual(count, 1) }
        }
    }

    func testUploadBodiesArriveFromAStreamToo() async throws {
        let server = try LocalStubServer(stubs: [StubDefinition(request: RequestDefinition(method: "PUT", path: "/upload",
                                                                                              body: .contains("streamed")),
                                                                response: .text("ok"))])
        defer { server.stop() }
        let transport = StubURLProtocol.register(server.stubs)
        defer { StubURLProtocol.unregister(transport) }
        let session = URLSession(configuration: transport.configuration)
        var request = URLRequest(url: transport.baseURL.appendingPathComponent("upload"))
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data("a streamed body".utf8))
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, _, error in
                if let data { continuation.resume(returning: data) } else { continuation.resume(throwing: error ?? URLError(.unknown)) }
            }.resume()
        }
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "ok")
    }

    func testRedirectsArriveAsPlainResponsesThroughURLProtocol() async throws {
        let server = try LocalStubServer(stubs: [
            StubDefinition(request: RequestDefinition(path: "/old"),
                           response: ResponseDefinition(status: 302, headers: ["Location": "/new"])),
            StubDefinition(request: RequestDefinition(path: "/new"), response: .text("new")),
        ])
        defer { server.stop() }
        let transport = StubURLProtocol.register(server.stubs)
        defer { StubURLProtocol.unregister(transport) }
        let (_, response) = try await URLSession(configuration: transport.configuration)
            .data(from: transport.baseURL.appendingPathComponent("old"))
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 302, "the client sees the redirect itself")
        XCTAssertEqual(http.value(forHTTPHeaderField: "Location"), "/new")
        XCTAssertEqual(server.stubs.requests.map(\.path), ["/old"], "and nothing followed it")
    }

    func testAStubBuiltInCodeThatIsWrongSaysWhy() throws {
        let server = try LocalStubServer()
        defer { server.stop() }
        XCTAssertThrowsError(try server.stubs.add(StubDefinition(request: RequestDefinition(path: "no-slash"), response: .text("x")))) { error in
            XCTAssertTrue(String(describing: error).contains(#"$[0].request.path: a path starts with "/""#), "\(error)")
        }
    }
}


/// Issue 11: both transports build the request through the same target parsing.
final class TransportParityTests: XCTestCase {
    func testDotSegmentsAndEscapesMatchTheSameWayOverBothTransports() async throws {
        let server = try LocalStubServer(stubs: [
            StubDefinition(request: RequestDefinition(method: "GET", path: "/files/a b/{name}"),
                           response: .text("file", status: 200)),
        ])
        defer { server.stop() }
        let transport = StubURLProtocol.register(server.stubs)
        defer { StubURLProtocol.unregister(transport) }
        let viaSocket = URLSession(configuration: .ephemeral)
        let inProcess = URLSession(configuration: transport.configuration)
        let targets = ["/files/a%20b/x", "/files/a%20b/%78", "/other/../files/a%20b/x", "/other/%2e%2e/files/a%20b/x",
                       "/files/./a%20b/x", "/files/a%20b/x/", "/files/a+b/x", "/files/A%20b/x"]
        for target in targets {
            var statuses: [Int] = []
            for (base, session) in [(server.baseURL, viaSocket), (transport.baseURL, inProcess)] {
                let url = try XCTUnwrap(URL(string: base.absoluteString + target))
                let (_, response) = try await session.data(from: url)
                statuses.append((response as? HTTPURLResponse)?.statusCode ?? 0)
            }
            XCTAssertEqual(statuses[0], statuses[1], "\(target): socket \(statuses[0]), URLProtocol \(statuses[1])")
            let expected = target.hasSuffix("/") || target.contains("+") || target.contains("A%20") ? 404 : 200
            XCTAssertEqual(statuses[0], expected, target)
        }
    }
}
