import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import Testing

/// StubKit from Swift Testing, whose tests run in parallel by default: each test makes its own
/// server and its own URLProtocol registration, so they share nothing; `verify` records its
/// failures as issues of the current test.
@Suite struct StubKitWithSwiftTesting {
    @Test(arguments: ["en", "fr", "ja"])
    func eachTestHasItsOwnServer(language: String) async throws {
        let server = try LocalStubServer {
            StubDefinition(
                request: .get("/greeting", query: ["lang": .equals(language)]),
                response: .json(["lang": .string(language)])
            )
        }
        defer { server.stop() }
        var components = URLComponents(
            url: server.baseURL.appendingPathComponent("greeting"),
            resolvingAgainstBaseURL: false
        )!
        components.queryItems = [URLQueryItem(name: "lang", value: language)]
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: components.url!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"lang":"\#(language)"}"#)
        server.stubs.verify(RequestDefinition(query: ["lang": .equals(language)]), count: 1)
    }

    @Test func urlProtocolTransportsAreIsolated() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<6 {
                group.addTask {
                    let stubs = try Stubs { StubDefinition(request: .get("/who"), response: .text("\(i)")) }
                    let transport = StubURLProtocol.register(stubs)
                    defer { StubURLProtocol.unregister(transport) }
                    let (data, _) = try await URLSession(configuration: transport.configuration).data(
                        from: transport.baseURL.appendingPathComponent("who")
                    )
                    #expect(String(decoding: data, as: UTF8.self) == "\(i)")
                    #expect(try stubs.requests.count == 1)
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func aFailedVerificationIsAnIssueWithTheReport() async throws {
        let stubs = try Stubs { StubDefinition(request: .post("/v1/register"), response: .status(201)) }
        let transport = StubURLProtocol.register(stubs)
        defer { StubURLProtocol.unregister(transport) }
        var request = URLRequest(url: transport.baseURL.appendingPathComponent("v1/register"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"username": "taken"}"#.utf8)
        _ = try await URLSession(configuration: transport.configuration).data(for: request)
        withKnownIssue {
            stubs.verify(.post("/v1/register", body: .json(["username": "free"])))
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains(#"body.username: expected "free", got "taken""#) && text.contains("Closest requests")
        }
        stubs.verify(.post("/v1/register", body: .json(["username": .matches("t.*")])), count: .once)
    }
}
