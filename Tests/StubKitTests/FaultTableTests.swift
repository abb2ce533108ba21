import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import XCTest

/// Each fault fails a URLSession task with one `URLError` code through both transports, the
/// code `Fault.urlErrorCode` gives and docs/testing.md's table lists for this platform.
final class FaultTableTests: XCTestCase {
    func testEachFaultGivesTheSameCodeThroughBothTransports() async throws {
        for fault in ResponseDefinition.Fault.allCases {
            for transport in Transport.allCases {
                let stubs = try Stubs { StubDefinition(request: .get("/fault"), response: .fault(fault)) }
                // The session's timeout, not the request's: the URLProtocol transport must find it.
                let client = try client(of: stubs, through: transport) { $0.timeoutIntervalForRequest = 1 }
                let started = ContinuousClock.now
                do {
                    let (_, response) = try await client.session.data(
                        from: client.baseURL.appendingPathComponent("fault")
                    )
                    XCTFail(
                        "\(fault) through \(transport): answered \((response as? HTTPURLResponse)?.statusCode ?? 0)"
                    )
                } catch let error as URLError {
                    XCTAssertEqual(error.code, fault.urlErrorCode, "\(fault) through \(transport)")
                }
                if fault == .hang { XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "\(transport)") }
                XCTAssertEqual(
                    try stubs.requests.map(\.fault),
                    [fault],
                    "\(fault) through \(transport): journaled as the fault"
                )
            }
        }
    }

    /// The request's own timeout wins over the session's, as URLSession has it.
    func testTheRequestsTimeoutWinsOverTheSessions() async throws {
        for transport in Transport.allCases {
            let stubs = try Stubs { StubDefinition(request: .get("/hang"), response: .fault(.hang)) }
            let client = try client(of: stubs, through: transport) { $0.timeoutIntervalForRequest = 30 }
            let started = ContinuousClock.now
            do {
                _ = try await client.ping("hang", timeout: 1)
                XCTFail("\(transport): expected a timeout")
            } catch {
                XCTAssertEqual(error, .network(.timedOut), "\(transport)")
            }
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "\(transport)")
        }
    }

    /// The table in docs/testing.md says what `urlErrorCode` says, for this platform's column.
    func testTheDocumentedTableAgrees() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let document = try String(contentsOf: root.appendingPathComponent("docs/testing.md"), encoding: .utf8)
        #if canImport(Darwin)
        let column = 2
        #else
        let column = 3
        #endif
        for fault in ResponseDefinition.Fault.allCases {
            let row = try XCTUnwrap(
                document.split(separator: "\n").first { $0.hasPrefix("| `\(fault.rawValue)` |") },
                "no row for \(fault)"
            )
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertTrue(
                cells[column].contains("(\(fault.urlErrorCode.rawValue))"),
                "\(fault): the table says \(cells[column])"
            )
        }
    }
}
