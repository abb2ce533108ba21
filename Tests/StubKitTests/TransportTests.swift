import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// What each transport does with the network's behaviour, and where the two must agree.
final class TransportTests: XCTestCase {
    func testParallelServersShareNothing() async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<8 {
                group.addTask {
                    let server = try LocalStubServer { StubDefinition(request: .get("/n"), response: .text("\(i)")) }
                    defer { server.stop() }
                    let (data, _) = try await URLSession(configuration: .ephemeral).data(
                        from: server.baseURL.appendingPathComponent("n")
                    )
                    XCTAssertEqual(String(decoding: data, as: UTF8.self), "\(i)")
                    return try server.stubs.requests.count
                }
            }
            for try await count in group { XCTAssertEqual(count, 1) }
        }
    }

    func testUploadBodiesArriveFromAStreamToo() async throws {
        let stubs = try Stubs {
            StubDefinition(request: .put("/upload", body: .contains("streamed")), response: .text("ok"))
        }
        let client = try client(of: stubs, through: .urlProtocol)
        var request = URLRequest(url: client.baseURL.appendingPathComponent("upload"))
        request.httpMethod = "PUT"
        request.httpBodyStream = InputStream(data: Data("a streamed body".utf8))
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            client.session.dataTask(with: request) { data, _, error in
                if let data {
                    continuation.resume(returning: data)
                } else {
                    continuation.resume(throwing: error ?? URLError(.unknown))
                }
            }.resume()
        }
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "ok")
    }

    func testRedirectsArriveAsPlainResponsesThroughURLProtocol() async throws {
        let stubs = try Stubs {
            StubDefinition(request: .get("/old"), response: .status(302, headers: ["Location": "/new"]))
            StubDefinition(request: .get("/new"), response: .text("new"))
        }
        let client = try client(of: stubs, through: .urlProtocol)
        let (_, response) = try await client.session.data(from: client.baseURL.appendingPathComponent("old"))
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 302, "the client sees the redirect itself")
        XCTAssertEqual(http.value(forHTTPHeaderField: "Location"), "/new")
        XCTAssertEqual(try stubs.requests.map(\.path), ["/old"], "and nothing followed it")
    }

    /// A dribbled body arrives in pieces over its time through both transports; the session's
    /// idle timeout counts from the last piece, so a slow body within it completes.
    func testADribbledBodyTakesItsTimeAndKeepsTheRequestAlive() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(
                    request: .get("/slow"),
                    response: ResponseDefinition(
                        body: "0123456789",
                        dribble: .init(chunks: 5, over: .milliseconds(1200))
                    )
                )
            }
            let client = try client(of: stubs, through: transport) { $0.timeoutIntervalForRequest = 1 }
            let started = ContinuousClock.now
            let (data, _) = try await client.session.data(from: client.baseURL.appendingPathComponent("slow"))
            let elapsed = ContinuousClock.now - started
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "0123456789", "\(transport)")
            XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(1100), "\(transport): \(elapsed)")
        }
    }

    /// A delay longer than the timeout is a timeout, as on a network; a shorter one is a wait.
    func testADelayLongerThanTheTimeoutTimesOut() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(request: .get("/late"), response: ResponseDefinition(body: "late", delay: .seconds(3)))
                StubDefinition(
                    request: .get("/soon"),
                    response: ResponseDefinition(
                        body: "soon",
                        delay: .random(.milliseconds(200)...(.milliseconds(300)))
                    )
                )
            }
            let client = try client(of: stubs, through: transport)
            let started = ContinuousClock.now
            do {
                _ = try await client.ping("late", timeout: 1)
                XCTFail("\(transport): expected a timeout")
            } catch {
                XCTAssertEqual(error, .network(.timedOut), "\(transport)")
            }
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "\(transport)")
            let soon = ContinuousClock.now
            let status = try await client.ping("soon", timeout: 1)
            XCTAssertEqual(status, 200, "\(transport)")
            XCTAssertGreaterThanOrEqual(ContinuousClock.now - soon, .milliseconds(190), "\(transport)")
        }
    }

    /// Regression: swift-corelibs-foundation keeps only the last piece a URLProtocol loads, so a
    /// body streamed in several pieces (an admin listing, a proxied answer) arrived cut.
    func testABodyStreamedInPiecesArrivesWhole() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(request: .get("/item"), response: .text(String(repeating: "x", count: 200)))
            }
            let client = try client(of: stubs, through: transport)
            for _ in 0..<200 { _ = try await client.ping("item") }
            let (data, _) = try await client.session.data(
                from: client.baseURL.appendingPathComponent("__admin/requests")
            )
            let listing = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            XCTAssertEqual((listing?["requests"] as? [Any])?.count, 200, "\(transport): \(data.count) bytes")
        }
    }

    /// Issue 11: both transports build the request through the same target parsing.
    func testDotSegmentsAndEscapesMatchTheSameWayOverBothTransports() async throws {
        let stubs = try Stubs { StubDefinition(request: .get("/files/a b/{name}"), response: .text("file")) }
        let clients = try Transport.allCases.map { try client(of: stubs, through: $0) }
        let targets = [
            "/files/a%20b/x", "/files/a%20b/%78", "/other/../files/a%20b/x", "/other/%2e%2e/files/a%20b/x",
            "/files/./a%20b/x", "/files/a%20b/x/", "/files/a+b/x", "/files/A%20b/x",
        ]
        for target in targets {
            var statuses: [Int] = []
            for client in clients {
                let url = try XCTUnwrap(URL(string: client.baseURL.absoluteString + target))
                let (_, response) = try await client.session.data(from: url)
                statuses.append((response as? HTTPURLResponse)?.statusCode ?? 0)
            }
            XCTAssertEqual(statuses[0], statuses[1], "\(target): socket \(statuses[0]), URLProtocol \(statuses[1])")
            let expected = target.hasSuffix("/") || target.contains("+") || target.contains("A%20") ? 404 : 200
            XCTAssertEqual(statuses[0], expected, target)
        }
    }
}
