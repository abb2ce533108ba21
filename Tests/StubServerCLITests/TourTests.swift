import Foundation
import XCTest

/// The README's tour, replayed with curl against the bundled `stubs/` folder served by the
/// built binary: the commands a new user copies must work as written.
final class TourTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// (command, expected status) pairs from the README's tour block.
    func tourCommands() throws -> [(String, Int)] {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let tour = try XCTUnwrap(readme.range(of: "## A tour of the bundled stubs"))
        let lines = readme[tour.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        var pairs: [(String, Int)] = []
        var pending: String?
        for line in lines {
            if line.hasPrefix("## ") { break }
            if line.hasPrefix("curl ") { pending = String(line); continue }
            if line.hasPrefix("# → "), let command = pending {
                let status = Int(line.dropFirst(4).prefix(3))!
                pairs.append((command, status))
                pending = nil
            }
        }
        return pairs
    }

    func testTheTourWorksAsWritten() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") || FileManager.default.isExecutableFile(atPath: "/bin/curl") else {
            throw XCTSkip("curl is not installed")
        }
        let commands = try tourCommands()
        XCTAssertGreaterThanOrEqual(commands.count, 12)
        let server = try StubServerProcess(["--dir", "stubs", "--port", "0", "--no-watch", "--log", "quiet"], workingDirectory: Self.root)
        let base = try XCTUnwrap(server.baseURL())
        let address = String(base.dropFirst("http://".count))
        for (command, expected) in commands {
            let runnable = command.replacingOccurrences(of: "localhost:8080", with: address) + " -s -o /dev/null -w '%{http_code}'"
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = ["-c", runnable]
            let out = Pipe()
            shell.standardOutput = out
            try shell.run()
            let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            XCTAssertEqual(Int(output), expected, command)
        }
    }

    func testTourBodiesSayWhatTheReadmeSays() throws {
        let server = try StubServerProcess(["--dir", "stubs", "--port", "0", "--no-watch", "--log", "quiet"], workingDirectory: Self.root)
        let base = try XCTUnwrap(server.baseURL())
        let taken = try fetch(base + "/v1/register", method: "POST", headers: ["Content-Type": "application/json"], body: #"{"username":"swift-senpai"}"#)
        XCTAssertEqual(taken.body, #"{"error_code":"E001","message":"Username already exists"}"#)
        let truncated = try fetch(base + "/v1/weather/forecast?location=broken")
        XCTAssertNil(try? JSONSerialization.jsonObject(with: Data(truncated.body.utf8)), "the truncated body must not parse")
        let forecast = try fetch(base + "/v1/weather/forecast?location=tokyo")
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(forecast.body.utf8)))
        XCTAssertEqual(forecast.headers["content-type"], "application/json")
        let typo = try fetch(base + "/v1/user/42")
        XCTAssertTrue(typo.body.contains("path: expected /v1/users/{id}, got /v1/user/42"), typo.body)
    }
}
