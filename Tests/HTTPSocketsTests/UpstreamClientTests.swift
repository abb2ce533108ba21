import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP1
@testable import HTTPSockets
import SystemSupport
import TestSupport
import XCTest

/// The server's HTTP client (the proxy's) against loopback upstreams started by the test.
final class UpstreamClientTests: XCTestCase {
    /// A name can resolve to several addresses (localhost to ::1 and 127.0.0.1, in an order
    /// that differs between systems) while the upstream listens on one: a refused connection
    /// tries the next address instead of answering 502.
    func testARefusedAddressFallsBackToTheNamesNextOne() throws {
        let refused = try XCTUnwrap(refusedLoopbackPort())
        defer { close(refused.descriptor) }
        let upstream = try ScriptedUpstream { _ in [.response(200, body: Array("reached".utf8))] }
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { _ in
            .now(OutgoingResponse(PreparedResponse(status: 204)))
        }
        try server.start()
        defer { server.stopAndWait() }
        let port = upstream.port
        let client = HTTPClient(server: server) { host, _ in
            // The first address refuses (nothing listens there), the second is the upstream.
            guard host == "upstream.test", var first = ClientSockets.numeric(host: "127.0.0.1", port: refused.port),
                var second = ClientSockets.numeric(host: "127.0.0.1", port: port)
            else { return .success([]) }
            first.setPort(refused.port)
            second.setPort(port)
            return .success([first, second])
        }
        let answered = expectation(description: "answered")
        let outcome = Locked<Result<ClientResponse, ClientFailure>?>(nil)
        let request = ClientRequest(method: "GET", target: "/", headers: HeaderFields([("Host", "upstream.test")]))
        client.send(request, to: ClientEndpoint(host: "upstream.test", port: port), timeoutMilliseconds: 5_000) {
            result in
            outcome.value = result
            answered.fulfill()
        }
        wait(for: [answered], timeout: 10)
        switch outcome.value {
        case .success(let response)?:
            XCTAssertEqual(response.head.status, 200)
        case .failure(let failure)?:
            XCTFail("refused by the first address and not tried on the second: \(failure)")
        case nil:
            XCTFail("no answer")
        }
        XCTAssertEqual(upstream.requests.count, 1)
    }
}
