import Foundation
import TestSupport
import XCTest

/// Issue 38, items 7 and 8: symbolic links out of the stub folder, when serving and recording.
final class SymlinkContainmentTests: XCTestCase {
    // Item 7: a templated bodyFileName followed `__files/link.txt -> /etc/passwd` and served it,
    // although a fixed bodyFileName to the same link is refused at load.
    func testATemplatedBodyFileNameIsRefusedALinkOutOfTheFolder() throws {
        let mapping = """
            {"request": {"urlPath": "/f"},
             "response": {"status": 200, "bodyFileName": "{{request.query.f}}", "transformers": ["response-template"]}}
            """
        let dir = folder(["mappings/f.json": mapping, "__files/inside.txt": "inside\n"])
        let outside = folder(["secret.txt": "the secret\n"])
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("__files/link.txt").path,
            withDestinationPath: outside.appendingPathComponent("secret.txt").path
        )
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("__files/out").path,
            withDestinationPath: outside.path
        )
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0"])
        let base = try XCTUnwrap(server.baseURL())

        let inside = try fetch(base + "/f?f=inside.txt")
        XCTAssertEqual(inside.status, 200)
        XCTAssertEqual(inside.body, "inside\n")
        for name in [
            "link.txt", "out/secret.txt", "../../\(outside.lastPathComponent)/secret.txt", outside.path + "/secret.txt",
        ] {
            let query = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
            let answer = try fetch(base + "/f?f=" + query)
            XCTAssertEqual(answer.status, 500, name)
            XCTAssertFalse(answer.body.contains("the secret"), "\(name): \(answer.body)")
        }
        let refused = try fetch(base + "/f?f=link.txt")
        XCTAssertTrue(refused.body.contains("outside the stub folder"), refused.body)
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    // Item 8: a recording wrote its body files through `--out/__files -> elsewhere`.
    func testARecordingIsNotWrittenThroughALinkOutOfItsFolder() throws {
        let upstream = try ScriptedUpstream { _ in
            [.response(200, headers: [("Content-Type", "image/png")], body: (0..<3000).map { UInt8($0 % 251) })]
        }
        defer { upstream.stop() }
        let out = folder([:])
        let elsewhere = folder([:])
        try FileManager.default.createSymbolicLink(
            atPath: out.appendingPathComponent("__files").path,
            withDestinationPath: elsewhere.path
        )
        let server = try StubServerProcess([
            "record", "--proxy", "http://127.0.0.1:\(upstream.port)", "--out", out.path,
            "--port", "0", "--log", "quiet",
        ])
        let base = try XCTUnwrap(server.baseURL())
        XCTAssertEqual(try fetch(base + "/logo.png").status, 200)
        server.signal(SIGINT)
        XCTAssertEqual(server.exitStatus(), 1, server.stderr)
        XCTAssertTrue(
            server.stderr.contains("outside \(out.path), through a symbolic link; nothing was written"),
            server.stderr
        )
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["__files"])
    }
}
