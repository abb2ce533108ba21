import Foundation
import XCTest

/// The Swift snippets of docs/testing.md and of StubKit's DocC articles, built and run in a
/// package of their own that depends on this repository by path and imports nothing of it but
/// StubKit: what a reader gets.
/// `scripts/doc-snippets` writes the package into `.build/doc-snippets` (kept between runs, so
/// only the first build is slow); this test builds it once and runs its tests once.
///
/// Skipped, saying why, when `swift` or `python3` is not on the PATH, or when
/// `STUBKIT_SKIP_CONSUMER_PACKAGE=1` (for a quick local run: the build compiles the library a
/// second time).
final class ConsumerPackageTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testTheDocumentedSnippetsBuildAndPassInAConsumerPackage() throws {
        if ProcessInfo.processInfo.environment["STUBKIT_SKIP_CONSUMER_PACKAGE"] == "1" {
            throw XCTSkip(
                "STUBKIT_SKIP_CONSUMER_PACKAGE=1: docs/testing.md's snippets were not built in a consumer package"
            )
        }
        for tool in ["swift", "python3"] where Self.which(tool) == nil {
            throw XCTSkip(
                "\(tool) is not on the PATH: docs/testing.md's snippets cannot be built in a consumer package here"
            )
        }
        let package = Self.root.appendingPathComponent(".build/doc-snippets").path
        let generated = try Self.run([
            "python3", Self.root.appendingPathComponent("scripts/doc-snippets").path, package,
        ])
        XCTAssertEqual(generated.status, 0, generated.output)
        guard generated.status == 0 else { return }
        let built = try Self.run(["swift", "build", "--build-tests", "--package-path", package])
        XCTAssertEqual(built.status, 0, "the consumer package does not build:\n" + Self.tail(built.output))
        guard built.status == 0 else { return }
        let tested = try Self.run(["swift", "test", "--skip-build", "--package-path", package])
        XCTAssertEqual(tested.status, 0, "the snippets' tests fail:\n" + Self.tail(tested.output))
        let expected = try XCTUnwrap(generated.output.firstMatch(of: /; (\d+) XCTest tests/).flatMap { Int($0.1) })
        XCTAssertTrue(tested.output.contains("Executed \(expected) tests, with 0 failures"), Self.tail(tested.output))
        XCTAssertTrue(
            tested.output.contains("✔ Test run with"),
            "the Swift Testing snippet ran:\n" + Self.tail(tested.output)
        )
    }

    /// Runs a command to its end; stdout and stderr together.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = root
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    static func which(_ tool: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func tail(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).suffix(60).joined(separator: "\n")
    }
}
