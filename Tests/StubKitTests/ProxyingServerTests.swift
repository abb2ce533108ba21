import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// `LocalStubServer(proxyingUnmatchedTo:)`: stubs answer what they match, the real backend
/// (here another local server standing in for it) the rest.
final class ProxyingServerTests: XCTestCase {
    private func get(_ url: URL) throws -> (Int, String) {
        let done = expectation(description: url.path)
        nonisolated(unsafe) var result: (Int, String) = (0, "")
        URLSession.shared.dataTask(with: url) { data, response, _ in
            result = ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data ?? Data(), as: UTF8.self))
            done.fulfill()
        }.resume()
        wait(for: [done], timeout: 10)
        return result
    }

    func testUnmatchedRequestsReachTheBackend() throws {
        let backend = try LocalStubServer(stubs: [
            StubDefinition(request: RequestDefinition(path: "/v1/real"), response: .text("from the backend"))
        ])
        defer { backend.stop() }
        let server = try LocalStubServer(
            stubs: [StubDefinition(request: RequestDefinition(path: "/v1/new"), response: .text("stubbed"))],
            proxyingUnmatchedTo: backend.baseURL
        )
        defer { server.stop() }
        XCTAssertEqual(try get(server.baseURL.appendingPathComponent("v1/new")).1, "stubbed")
        XCTAssertEqual(try get(server.baseURL.appendingPathComponent("v1/real")).1, "from the backend")
        XCTAssertEqual(try get(server.baseURL.appendingPathComponent("v1/neither")).0, 404, "the backend's own 404")
        XCTAssertEqual(
            try backend.stubs.count(matching: RequestDefinition(path: "/v1/new")),
            0,
            "stubbed requests never reach it"
        )
    }

    func testAnUpstreamURLThatCannotBeProxiedIsAnError() {
        XCTAssertThrowsError(try LocalStubServer(stubs: [], proxyingUnmatchedTo: URL(string: "ftp://example.com")!))
    }
}
