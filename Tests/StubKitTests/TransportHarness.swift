import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// The two ways a test reaches stubs: a real socket (`LocalStubServer`) and no socket
/// (`StubURLProtocol`). Tests run the same assertions through both.
enum Transport: String, CaseIterable, CustomStringConvertible {
    case server, urlProtocol
    var description: String { rawValue }
}

/// The repository's bundled example stubs.
let bundledStubs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("stubs").path

extension XCTestCase {
    /// A client of `stubs` through `transport`, torn down with the test. `configure` adjusts
    /// the session's configuration (timeouts) before the session is made.
    func client(
        of stubs: Stubs,
        through transport: Transport,
        configure: (URLSessionConfiguration) -> Void = { _ in }
    ) throws -> ExampleClient {
        switch transport {
        case .server:
            let server = try LocalStubServer(stubs)
            addTeardownBlock { server.stop() }
            let configuration = URLSessionConfiguration.ephemeral
            configure(configuration)
            return ExampleClient(baseURL: server.baseURL, session: URLSession(configuration: configuration))
        case .urlProtocol:
            let registration = StubURLProtocol.register(stubs)
            addTeardownBlock { StubURLProtocol.unregister(registration) }
            let configuration = registration.configuration
            configure(configuration)
            return ExampleClient(baseURL: registration.baseURL, session: URLSession(configuration: configuration))
        }
    }

    /// Runs `body` once per transport, each time with fresh stubs from the bundled folder.
    func forEachTransport(_ body: (Transport, ExampleClient, Stubs) async throws -> Void) async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs(directory: bundledStubs)
            try await body(transport, try client(of: stubs, through: transport), stubs)
        }
    }
}
