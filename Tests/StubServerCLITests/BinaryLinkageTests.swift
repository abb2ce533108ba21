import Foundation
import TestSupport
import XCTest

/// The server must not load ICU. The test process links all of Foundation, where
/// `TimeZone(identifier:)`, `Calendar` and the formatters work; the binary links
/// FoundationEssentials only, where they return nil or misbehave (a `{{now}}` crashed it). So the
/// binary itself is checked: what it asks the loader for, and what it has mapped after it served
/// templates that format dates.
final class BinaryLinkageTests: XCTestCase {
    static let forbidden = [
        "FoundationInternationalization", "_FoundationICU", "libicu", "FoundationNetworking", "/libFoundation.so",
    ]

    func testTheBinaryNeedsNoInternationalizationLibrary() throws {
        let readelf = ["/usr/bin/readelf", "/bin/readelf"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let readelf else { throw XCTSkip("no readelf on this system (the mapped-libraries test still runs)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: readelf)
        process.arguments = ["-d", StubServerProcess.executable.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let needed = text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        for library in Self.forbidden {
            XCTAssertFalse(
                needed.contains { $0.contains(library) },
                "\(StubServerProcess.executable.path) needs \(library)"
            )
        }
    }

    /// After serving WireMock templates that format dates and a native stub, nothing of ICU is
    /// mapped into the process (a library loaded later, with dlopen, would show here too).
    func testServingDateTemplatesMapsNoInternationalizationLibrary() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/maps") else {
            throw XCTSkip("no /proc on this system")
        }
        let root = folder([
            "mappings/now.json": #"""
            {"request": {"url": "/now"}, "response": {"body": "{{now}} {{now format='yyyy-MM-dd'}}", "transformers": \#
            ["response-template"]}}
            """#
        ])
        let server = try StubServerProcess(["--wiremock", root.path, "--port", "0", "--no-watch", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL(), server.stderr)
        let answer = try fetch(base + "/now")
        XCTAssertEqual(answer.status, 200, answer.body)
        let maps = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/maps", encoding: .utf8)
        for library in Self.forbidden {
            XCTAssertFalse(maps.contains(library), "the server mapped \(library)")
        }
    }
}
