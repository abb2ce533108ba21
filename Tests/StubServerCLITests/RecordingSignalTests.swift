import Foundation
import TestSupport
import XCTest

/// Issue 38, item 5: a recording was lost on SIGHUP (exit 129, the folder empty) and on a
/// second Ctrl-C while a request was in flight (exit 130, nothing written).
final class RecordingSignalTests: XCTestCase {
    private func upstream() throws -> ScriptedUpstream {
        try ScriptedUpstream { request in
            if request.target == "/slow" { return [.hang] }
            return [
                .response(
                    200,
                    headers: [("Content-Type", "application/json")],
                    body: Array(#"{"at":"\#(request.target)"}"#.utf8)
                )
            ]
        }
    }

    private func stubFiles(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
    }

    func testSIGHUPWritesTheRecording() throws {
        let upstream = try upstream()
        defer { upstream.stop() }
        let out = folder([:])
        let server = try StubServerProcess([
            "record", "--proxy", "http://127.0.0.1:\(upstream.port)", "--out", out.path,
            "--port", "0", "--log", "quiet",
        ])
        let base = try XCTUnwrap(server.baseURL())
        for path in ["/a", "/b", "/c"] { XCTAssertEqual(try fetch(base + path).status, 200) }
        server.signal(SIGHUP)
        XCTAssertEqual(server.exitStatus(), 0, server.stderr)
        XCTAssertEqual(
            try stubFiles(in: out),
            ["get-a.json", "get-b.json", "get-c.json"],
            server.stdout + server.stderr
        )
    }

    func testASecondCtrlCWritesWhatIsCompleteAndAbandonsWhatIsInFlight() throws {
        let upstream = try upstream()
        defer { upstream.stop() }
        let out = folder([:])
        let server = try StubServerProcess([
            "record", "--proxy", "http://127.0.0.1:\(upstream.port)", "--out", out.path,
            "--port", "0", "--log", "quiet",
        ])
        let base = try XCTUnwrap(server.baseURL())
        let port = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""))
        for path in ["/a", "/b"] { XCTAssertEqual(try fetch(base + path).status, 200) }
        let slow = try WireConnection(port: port)
        slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        server.waitFor("the slow request to reach the upstream") { upstream.requests.contains { $0.target == "/slow" } }

        server.signal(SIGINT)
        server.waitFor("the stopping message") { server.stderr.contains("press Ctrl-C again") }
        XCTAssertTrue(
            server.stderr.contains(
                "press Ctrl-C again to write what is recorded now and abandon the requests still in flight"
            ),
            server.stderr
        )
        XCTAssertTrue(try stubFiles(in: out).isEmpty, "written before the second Ctrl-C")
        server.signal(SIGINT)
        XCTAssertEqual(server.exitStatus(), 130, server.stderr)
        XCTAssertEqual(try stubFiles(in: out), ["get-a.json", "get-b.json"], server.stdout + server.stderr)
        XCTAssertTrue(server.stderr.contains("1 exchange(s) still in flight"), server.stderr)
        XCTAssertTrue(server.stdout.contains("recorded 2 exchanges"), server.stdout)
    }
}
