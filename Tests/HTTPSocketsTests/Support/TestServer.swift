import TestSupport
import Foundation
import HTTP1
@testable import HTTPSockets
import SystemSupport

typealias Respond = @Sendable (IncomingRequest) -> OutgoingResponse

/// Starts a real server on an ephemeral port for one test and always stops it, once per
/// selector this platform has (epoll and poll on Linux, kqueue and poll on macOS), so the
/// fallback selector is exercised by every connection test too.
func withServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    handler: @escaping Respond = echoHandler,
    _ body: (HTTP1Server) async throws -> Void
) async throws {
    try await withServer(configure, reply: { .now(handler($0)) }, body)
}

/// The same, with a handler that may answer later.
func withServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    reply: @escaping Handler,
    _ body: (HTTP1Server) async throws -> Void
) async throws {
    // Tests open hundreds of sockets; macOS starts a process at 256 descriptors.
    DescriptorLimit.raise()
    for selector in SelectorKind.available {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.selector = selector
        configure(&configuration)
        let server = HTTP1Server(configuration: configuration, handler: reply)
        try server.start()
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw SelectorFailure(selector: selector, error: error)
        }
        await server.stop()
    }
}

/// Which selector a failing run used.
struct SelectorFailure: Error, CustomStringConvertible {
    let selector: SelectorKind
    let error: any Error
    var description: String { "with the \(selector) selector: \(error)" }
}

/// Answers `METHOD PATH body-length` so tests can see which request a response belongs to.
let echoHandler: Respond = { request in
    .text(200, "\(request.method) \(request.path) \(request.body.count)")
}

/// Polls a condition (no sleeps waiting for readiness); false if it never holds.
func eventually(timeoutMilliseconds: Int = 5_000, _ condition: () -> Bool) async -> Bool {
    let deadline = WireConnection.now() + timeoutMilliseconds
    while WireConnection.now() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return condition()
}
