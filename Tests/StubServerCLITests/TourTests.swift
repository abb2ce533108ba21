import Foundation
import TestSupport
import XCTest

/// The README's tour, replayed with curl against the bundled `stubs/` folder served by the
/// built binary: the commands a new user copies must work as written.
final class TourTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// (command, expected status) pairs from the README's tour block.
    func tourCommands() throws -> [(String, Int)] {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let tour = try XCTUnwrap(readme.range(of: "## A tour of the bundled stubs"))
        let lines = readme[tour.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        var pairs: [(String, Int)] = []
        var pending: String?
        for line in lines {
            if line.hasPrefix("## ") { break }
            if line.hasPrefix("curl ") {
                pending = String(line)
                continue
            }
            if line.hasPrefix("# → "), let command = pending {
                let status = Int(line.dropFirst(4).prefix(3))!
                pairs.append((command, status))
                pending = nil
            }
        }
        return pairs
    }

    func testTheTourWorksAsWritten() throws {
        guard
            FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
                || FileManager.default.isExecutableFile(atPath: "/bin/curl")
        else {
            throw XCTSkip("curl is not installed")
        }
        let commands = try tourCommands()
        XCTAssertGreaterThanOrEqual(commands.count, 12)
        let server = try StubServerProcess(
            ["--dir", "stubs", "--port", "0", "--no-watch", "--log", "quiet"],
            workingDirectory: Self.root
        )
        let base = try XCTUnwrap(server.baseURL())
        let address = String(base.dropFirst("http://".count))
        for (command, expected) in commands {
            let runnable =
                command.replacingOccurrences(of: "localhost:8080", with: address) + " -s -o /dev/null -w '%{http_code}'"
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
        let server = try StubServerProcess(
            ["--dir", "stubs", "--port", "0", "--no-watch", "--log", "quiet"],
            workingDirectory: Self.root
        )
        let base = try XCTUnwrap(server.baseURL())
        let taken = try fetch(
            base + "/v1/register",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"username":"swift-senpai"}"#
        )
        XCTAssertEqual(taken.body, #"{"error_code":"E001","message":"Username already exists"}"#)
        let truncated = try fetch(base + "/v1/weather/forecast?location=broken")
        XCTAssertNil(
            try? JSONSerialization.jsonObject(with: Data(truncated.body.utf8)),
            "the truncated body must not parse"
        )
        let forecast = try fetch(base + "/v1/weather/forecast?location=tokyo")
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(forecast.body.utf8)))
        XCTAssertEqual(forecast.headers["content-type"], "application/json")
        let typo = try fetch(base + "/v1/user/42")
        XCTAssertTrue(typo.body.contains("path: expected /v1/users/{id}, got /v1/user/42"), typo.body)
    }
}

/// The README's "Start from your OpenAPI file", run as written: the import (into a fresh
/// folder), the curls against the imported stubs, and the check of the bundled stubs.
final class OpenAPITourTests: XCTestCase {
    func testStartFromYourOpenAPIFileWorksAsWritten() throws {
        guard
            FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
                || FileManager.default.isExecutableFile(atPath: "/bin/curl")
        else {
            throw XCTSkip("curl is not installed")
        }
        let readme = try String(contentsOf: TourTests.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "## Start from your OpenAPI file"))
        let lines = readme[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).prefix {
            !$0.hasPrefix("## ")
        }
        let commands = lines.filter { $0.hasPrefix("swift run stubserver ") }.map {
            String($0.dropFirst("swift run stubserver ".count))
        }
        // The OpenAPI import, serving its folder and the check of the bundled stubs; the section
        // also shows `import postman` on a collection of the reader's own, not replayed here.
        let importCommand = try XCTUnwrap(commands.first { $0.hasPrefix("import openapi ") })
        let validateCommand = try XCTUnwrap(commands.first { $0.hasPrefix("validate ") })
        XCTAssertTrue(commands.contains { $0.hasPrefix("--dir my-stubs ") }, "\(commands)")
        let out = folder([:]).appendingPathComponent("my-stubs").path
        // import openapi ... --out my-stubs
        let importArguments = importCommand.split(separator: " ").map { $0 == "my-stubs" ? out : String($0) }
        let imported = try StubServerProcess(importArguments, workingDirectory: TourTests.root)
        XCTAssertEqual(imported.exitStatus(), 0, imported.stderr)
        let expectedSummary = try XCTUnwrap(lines.first { $0.hasPrefix("# my-stubs: ") }).dropFirst("# my-stubs".count)
        XCTAssertEqual(imported.stdout, out + expectedSummary + "\n")
        // validate --dir stubs --openapi docs/stubs.openapi.yaml
        let validated = try StubServerProcess(
            validateCommand.split(separator: " ").map(String.init),
            workingDirectory: TourTests.root
        )
        XCTAssertEqual(validated.exitStatus(), 0, validated.stdout)
        let expectedCheck = try XCTUnwrap(lines.first { $0.hasPrefix("# stubs: ") }).dropFirst(2)
        XCTAssertTrue(validated.stdout.hasSuffix(expectedCheck + "\n"), validated.stdout)
        // The curls, against the imported folder.
        var pairs: [(String, Int)] = []
        var pending: String?
        for line in lines {
            if line.hasPrefix("curl ") {
                pending = String(line)
                continue
            }
            if line.hasPrefix("# → "), let command = pending, let status = Int(line.dropFirst(4).prefix(3)) {
                pairs.append((command, status))
                pending = nil
            }
        }
        XCTAssertEqual(pairs.count, 4)
        let server = try StubServerProcess(["--dir", out, "--port", "0", "--no-watch", "--log", "quiet"])
        let address = String(try XCTUnwrap(server.baseURL()).dropFirst("http://".count))
        for (command, expected) in pairs {
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/sh")
            shell.arguments = [
                "-c",
                command.replacingOccurrences(of: "localhost:8080", with: address)
                    + " -s -o /dev/null -w '%{http_code}'",
            ]
            let pipe = Pipe()
            shell.standardOutput = pipe
            try shell.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            XCTAssertEqual(Int(output), expected, command)
        }
        let free = try fetch("http://\(address)/v1/users/42", headers: ["Prefer": "example=free"])
        XCTAssertTrue(free.body.hasPrefix(#"{"id":7,"username":"kotlin-kohai""#), free.body)
    }
}
