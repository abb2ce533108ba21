import Foundation
import TestSupport
import XCTest

/// Issue 38, item 9: `Private-Token`, `X-Goog-Api-Key` and `X-Session-Token` were written to
/// recordings (a list of names missed them). A rule now decides, and `--keep-header` keeps one.
final class RecordingSecretsTests: XCTestCase {
    func testHeadersThatLookSecretAreLeftOutUnlessKeptByName() throws {
        let upstream = try ScriptedUpstream { _ in
            [
                .response(
                    401,
                    "Unauthorized",
                    headers: [
                        ("Content-Type", "application/json"), ("Private-Token", "pt-secret-1"),
                        ("X-Goog-Api-Key", "goog-secret-2"),
                        ("X-Session-Token", "session-secret-3"), ("X-Client-Signature", "sig-secret-4"),
                        ("X-Db-Password", "pw-secret-5"),
                        ("X-Team-Token", "kept-on-purpose"), ("WWW-Authenticate", "Bearer realm=\"api\""),
                        ("X-Request-Id", "r-1"),
                    ],
                    body: Array(#"{"error":"login"}"#.utf8)
                )
            ]
        }
        defer { upstream.stop() }
        let out = folder([:])
        let server = try StubServerProcess([
            "record", "--proxy", "http://127.0.0.1:\(upstream.port)", "--out", out.path,
            "--port", "0", "--log", "quiet", "--keep-header", "x-team-token",
            "--match-header", "X-Goog-Api-Key",
        ])
        let base = try XCTUnwrap(server.baseURL())
        XCTAssertEqual(try fetch(base + "/me", headers: ["X-Goog-Api-Key": "goog-secret-2"]).status, 401)
        server.signal(SIGINT)
        XCTAssertEqual(server.exitStatus(), 0, server.stderr)
        let stub = try String(contentsOf: out.appendingPathComponent("get-me.json"), encoding: .utf8)
        for secret in ["pt-secret-1", "goog-secret-2", "session-secret-3", "sig-secret-4", "pw-secret-5"] {
            XCTAssertFalse(stub.contains(secret), "\(secret) written:\n\(stub)")
        }
        XCTAssertTrue(stub.contains("kept-on-purpose"), stub)
        XCTAssertTrue(stub.contains("WWW-Authenticate"), stub)
        XCTAssertTrue(stub.contains("X-Request-Id"), stub)
        XCTAssertTrue(stub.contains(#""present": true"#), stub)
        XCTAssertTrue(server.stderr.contains("private-token"), server.stderr)
    }

    func testKeepHeaderNeedsAName() throws {
        let run = try runStubServer([
            "record", "--proxy", "http://127.0.0.1:1", "--out", folder([:]).path, "--keep-header", "a b",
        ])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.stderr.contains("--keep-header must be a header name"), run.stderr)
    }
}
