import Foundation
import TestSupport
import XCTest

/// Dates in WireMock templates through the binary (issue 29): `{{now}}` crashed the shipped
/// binary at load (`TimeZone(identifier: "UTC")!` is nil without ICU) while the tests, linking
/// all of Foundation, passed. Zones come from the zone database (`TZDIR`) instead.
final class TemplateDatesEndToEndTests: XCTestCase {
    static let mapping = #"""
        {"request": {"urlPath": "/now"},
         "response": {"transformers": ["response-template"],
                      "body": "{{now}}|{{now timezone='Europe/London' format='yyyy-MM-dd HH:mm z'}}|{{now \#
        format='epoch'}}|{{now timezone='UTC' offset='-1 days' format='yyyy-MM-dd'}}"}}
        """#

    func testNowRendersInTheBinaryAndValidateAcceptsIt() throws {
        let dir = folder(["mappings/now.json": Self.mapping])
        let run = try runStubServer(["validate", "--wiremock", dir.path])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let server = try StubServerProcess(["--wiremock", dir.path, "--port", "0"])
        let base = try XCTUnwrap(server.baseURL(), server.stdout + server.stderr)
        let before = Int(Date().timeIntervalSince1970 * 1000)
        let parts = try fetch(base + "/now").body.split(separator: "|").map(String.init)
        XCTAssertEqual(parts.count, 4, parts.joined(separator: "|"))
        XCTAssertNotNil(
            parts[0].range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression),
            parts[0]
        )
        if FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/London") {
            XCTAssertNotNil(
                parts[1].range(of: #"^\d{4}-\d\d-\d\d \d\d:\d\d (GMT|BST)$"#, options: .regularExpression),
                parts[1]
            )
        }
        XCTAssertLessThan(abs((Int(parts[2]) ?? 0) - before), 60_000, parts[2])
        XCTAssertEqual(parts[3].count, 10, parts[3])
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    /// An unknown zone is a load error naming the mapping, never a crash; `TZDIR` is honoured.
    func testZonesComeFromTZDIRAndAnUnknownOneIsAnError() throws {
        let zones = folder([:])
        guard let utc = FileManager.default.contents(atPath: "/usr/share/zoneinfo/UTC") else {
            throw XCTSkip("no zone database at /usr/share/zoneinfo to copy a file from")
        }
        try utc.write(to: zones.appendingPathComponent("Test_Zone"))
        let good =
            #"{"request": {"urlPath": "/z"}, "response": {"transformers": ["response-template"], "#
            + #""body": "{{now timezone='Test_Zone' format='z'}}"}}"#
        let dir = folder(["mappings/z.json": good])
        let server = try StubServerProcess(["--wiremock", dir.path, "--port", "0"], environment: ["TZDIR": zones.path])
        let base = try XCTUnwrap(server.baseURL(), server.stdout + server.stderr)
        XCTAssertEqual(try fetch(base + "/z").body, "UTC")
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)

        let bad = folder(["mappings/bad.json": good.replacingOccurrences(of: "Test_Zone", with: "Mars/Olympus")])
        let run = try runStubServer(["validate", "--wiremock", bad.path])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("bad.json") && run.stdout.contains("Mars/Olympus"), run.stdout)
        XCTAssertFalse(run.stderr.contains("Fatal error"), run.stderr)
    }
}
