import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// Issue 36, item 2: an answer the client gave up on is journaled as abandoned (not as sent
/// after its whole delay), and `stop()` cuts delays and dribbles at once instead of waiting them
/// out (it returned after 6 s, the grace period, with an 8 s delay pending).
final class AbandonedAnswerTests: XCTestCase {
    func testAClientThatGivesUpLeavesItsDelayedAnswerAbandonedThroughBothTransports() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(request: .get("/late"), response: ResponseDefinition(body: "late", delay: .seconds(8)))
            }
            let client = try client(of: stubs, through: transport)
            let started = ContinuousClock.now
            do {
                _ = try await client.ping("late", timeout: 1)
                XCTFail("\(transport): the client should have given up")
            } catch {
                XCTAssertEqual(error, .network(.timedOut), "\(transport)")
            }
            let entry = try await abandonedEntry(in: stubs, "\(transport)")
            XCTAssertNil(entry.status, "\(transport): nothing was sent")
            XCTAssertGreaterThanOrEqual(entry.duration, .milliseconds(900), "\(transport)")
            XCTAssertLessThan(entry.duration, .seconds(4), "\(transport): to when the client left, not 8 s")
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(5), "\(transport)")
            XCTAssertTrue(entry.description.contains("abandoned"), entry.description)
        }
    }

    func testStopCutsDelaysAndDribblesAtOnce() async throws {
        let server = try LocalStubServer {
            StubDefinition(request: .get("/late"), response: ResponseDefinition(body: "late", delay: .seconds(60)))
            StubDefinition(
                request: .get("/slow"),
                response: ResponseDefinition(body: "0123456789", dribble: .init(chunks: 10, over: .seconds(60)))
            )
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        let session = URLSession(configuration: configuration)
        let waiting = ["late", "slow"].map { path in
            Task { try await session.data(from: server.baseURL.appendingPathComponent(path)) }
        }
        // Both answers are under way once both requests are journaled.
        for _ in 0..<200 where try server.stubs.requests.count < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        XCTAssertEqual(try server.stubs.requests.count, 2)
        let stopping = ContinuousClock.now
        server.stop()
        XCTAssertLessThan(ContinuousClock.now - stopping, .seconds(1), "stop waits for no delay or dribble")
        for task in waiting {
            do {
                let (data, _) = try await task.value
                XCTFail("an answer arrived whole: \(String(decoding: data, as: UTF8.self))")
            } catch {}
        }
        let entries = try server.stubs.requests
        XCTAssertEqual(entries.map(\.abandoned), [true, true], entries.map(\.description).joined(separator: "\n"))
        XCTAssertTrue(entries.allSatisfy { $0.duration < .seconds(4) }, "\(entries.map(\.duration))")
    }

    func testAnAnswerThatArrivesIsNotAbandoned() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs {
                StubDefinition(
                    request: .get("/soon"),
                    response: ResponseDefinition(body: "soon", delay: .milliseconds(200))
                )
            }
            let client = try client(of: stubs, through: transport)
            let status = try await client.ping("soon")
            XCTAssertEqual(status, 200, "\(transport)")
            let entry = try XCTUnwrap(try stubs.requests.first)
            XCTAssertFalse(entry.abandoned, "\(transport)")
            XCTAssertEqual(entry.status, 200, "\(transport)")
            XCTAssertGreaterThanOrEqual(entry.duration, .milliseconds(190), "\(transport)")
        }
    }

    /// The server notices the client's close on its own loop: the entry changes shortly after.
    private func abandonedEntry(in stubs: Stubs, _ label: String) async throws -> RecordedRequest {
        for _ in 0..<300 {
            if let entry = try stubs.requests.first, entry.abandoned { return entry }
            try await Task.sleep(for: .milliseconds(10))
        }
        let entry = try XCTUnwrap(try stubs.requests.first, label)
        XCTFail("\(label): journaled as \(entry)")
        return entry
    }
}
