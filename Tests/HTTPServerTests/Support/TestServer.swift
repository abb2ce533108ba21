import TestSupport
import Foundation
import HTTP1
@testable import HTTPServer

/// Starts a real server on an ephemeral port for one test and always stops it.
func withServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    handler: @escaping HTTPHandler = echoHandler,
    _ body: (HTTP1Server) async throws -> Void
) async throws {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configure(&configuration)
    let server = HTTP1Server(configuration: configuration, handler: handler)
    try server.start()
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Answers `METHOD PATH body-length` so tests can see which request a response belongs to.
let echoHandler: HTTPHandler = { request in
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
