import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import Testing

/// StubKit from Swift Testing, whose tests run in parallel by default: each test makes its own
/// server and its own URLProtocol registration, so they share nothing.
@Suite struct StubKitWithSwiftTesting {
    @Test(arguments: ["en", "fr", "ja"])
    func eachTestHasItsOwnServer(language: String) async throws {
        let server = try LocalStubServer(stubs: [
            StubDefinition(request: RequestDefinition(method: "GET", path: "/greeting", query: ["lang": .equals(language)]),
                           response: try .json(["lang": language])),
        ])
        defer { server.stop() }
        var components = URLComponents(url: server.baseURL.appendingPathComponent("greeting"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "lang", value: language)]
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: components.url!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"lang":"\#(language)"}"#)
        #expect(try server.stubs.count(matching: RequestDefinition(query: ["lang": .equals(language)])) == 1)
    }

    @Test func urlProtocolTransportsAreIsolated() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<6 {
                group.addTask {
                    let server = try LocalStubServer(stubs: [StubDefinition(request: RequestDefinition(path: "/who"), response: .text("\(i)"))])
                    defer { server.stop() }
                    let transport = StubURLProtocol.register(server.stubs)
                    defer { StubURLProtocol.unregister(transport) }
                    let (data, _) = try await URLSession(configuration: transport.configuration).data(from: transport.baseURL.appendingPathComponent("who"))
                    #expect(String(decoding: data, as: UTF8.self) == "\(i)")
                    #expect(server.stubs.requests.count == 1)
                }
            }
            try await group.waitForAll()
        }
    }
}
