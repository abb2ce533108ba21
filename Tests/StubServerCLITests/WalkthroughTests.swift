import Foundation
import TestSupport
import XCTest

/// The README's "When half the API exists" walk-through, run as written: its `swift run
/// stubserver` commands (the built binary, a loopback upstream for staging, a free port) over a
/// copy of the bundled stubs: proxy, record, edit, serve without the upstream.
final class WalkthroughTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The commands of the README's walk-through, in order, as argument lists.
    func commands() throws -> [[String]] {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "## When half the API exists"))
        var commands: [[String]] = []
        for line in readme[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("swift run stubserver") else { continue }
            commands.append(line.split(separator: " ").dropFirst(3).map(String.init))
        }
        return commands
    }

    func testTheWalkthroughWorksAsWritten() throws {
        let commands = try commands()
        XCTAssertEqual(commands.count, 3)
        let staging = try ScriptedUpstream { request in
            switch request.target {
            case "/v1/me":
                [
                    .response(
                        200,
                        headers: [("Content-Type", "application/json")],
                        body: Array(#"{"id":7,"name":"Ana"}"#.utf8)
                    )
                ]
            case "/v1/items?page=1":
                [.response(200, headers: [("Content-Type", "application/json")], body: Array(#"{"items":[1,2]}"#.utf8))]
            default: [.response(404, "Not Found", body: [])]
            }
        }
        let project = FileManager.default.temporaryDirectory.appendingPathComponent("walkthrough-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: project) }
        try FileManager.default.copyItem(
            at: Self.root.appendingPathComponent("stubs"),
            to: project.appendingPathComponent("stubs")
        )
        func run(_ arguments: [String]) throws -> (StubServerProcess, String) {
            let adapted = arguments.map {
                $0 == "https://staging.example.com" ? "http://127.0.0.1:\(staging.port)" : $0
            }
            let process = try StubServerProcess(adapted + ["--port", "0", "--log", "quiet"], workingDirectory: project)
            return (process, try XCTUnwrap(process.baseURL(), process.stderr))
        }

        // 1. Stubs first, staging for the rest.
        let (proxying, base1) = try run(commands[0])
        XCTAssertEqual(
            try fetch(base1 + "/v1/users/42", headers: ["Authorization": "Bearer abc"]).status,
            200,
            "a bundled stub"
        )
        XCTAssertEqual(try fetch(base1 + "/v1/me").body, #"{"id":7,"name":"Ana"}"#, "from staging")
        proxying.signal(SIGTERM)
        XCTAssertEqual(proxying.exitStatus(), 0)

        // 2. Record a session.
        let (recording, base2) = try run(commands[1])
        XCTAssertEqual(try fetch(base2 + "/v1/me").status, 200)
        XCTAssertEqual(try fetch(base2 + "/v1/items?page=1").status, 200)
        recording.signal(SIGINT)
        XCTAssertEqual(recording.exitStatus(), 0, recording.stderr)
        let me = project.appendingPathComponent("stubs/recorded/get-v1-me.json")
        XCTAssertTrue(FileManager.default.fileExists(atPath: me.path), recording.stdout)

        // 3. The edit the README describes.
        let text = try String(contentsOf: me, encoding: .utf8)
        XCTAssertTrue(text.contains(#""status": 200"#), text)
        try text.replacingOccurrences(of: #""status": 200"#, with: #""status": 500"#).write(
            to: me,
            atomically: true,
            encoding: .utf8
        )

        // 4. Without staging.
        staging.stop()
        let (offline, base3) = try run(commands[2])
        XCTAssertEqual(try fetch(base3 + "/v1/me").status, 500, "the edited stub")
        XCTAssertEqual(try fetch(base3 + "/v1/items?page=1").body, #"{"items":[1,2]}"#, "the recorded answer")
        XCTAssertEqual(try fetch(base3 + "/v1/users/42", headers: ["Authorization": "Bearer abc"]).status, 200)
        offline.signal(SIGTERM)
        XCTAssertEqual(offline.exitStatus(), 0)
    }
}
