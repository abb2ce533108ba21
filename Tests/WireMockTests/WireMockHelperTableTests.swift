import Foundation
import TestSupport
import XCTest

/// Every documented helper in process (TestSupport's `HandlebarsHelperTable`); the binary
/// runs the same table in StubServerCLITests.
final class WireMockHelperTableTests: XCTestCase {
    func testEveryHelperRowRendersAsWireMockDocumentsIt() throws {
        XCTAssertGreaterThanOrEqual(HandlebarsHelperTable.rows.count, 40)
        let h = try WireMockHarness(self, mappings: try HandlebarsHelperTable.mappings())
        XCTAssertEqual(h.load.warnings, [], "no helper of the table is unknown")
        let failures = try HandlebarsHelperTable.check(port: h.server.port)
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
    }
}
