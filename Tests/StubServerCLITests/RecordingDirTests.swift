import Foundation
import TestSupport
import XCTest

/// `record --dir`: the stubs already written answer first while recording and are never
/// recorded over (issue 36: `POST /api/orders` reached the backend and its 501 was recorded
/// beside the hand-written stub, which then won only by file order).
final class RecordingDirTests: XCTestCase {
    func testStubsInDirAnswerFirstAndAreNotRecorded() throws {
        let project = FileManager.default.temporaryDirectory.appendingPathComponent("record-dir-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: project) }
        let stubs = project.appendingPathComponent("stubs")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        try Data(#"{"request": {"method": "POST", "path": "/api/orders"}, "response": {"status": 201}}"#.utf8)
            .write(to: stubs.appendingPathComponent("orders.json"))
        let upstream = try ScriptedUpstream { request in
            request.target == "/api/orders"
                ? [.response(501, "Not Implemented", body: [])]
                : [.response(200, headers: [("Content-Type", "application/json")], body: Array(#"{"id":1}"#.utf8))]
        }
        let out = stubs.appendingPathComponent("recorded").path
        let recorder = try StubServerProcess([
            "record", "--dir", stubs.path, "--proxy", "http://127.0.0.1:\(upstream.port)", "--out", out,
            "--port", "0", "--log", "quiet",
        ])
        let base = try XCTUnwrap(recorder.baseURL(), recorder.stderr)
        XCTAssertEqual(try fetch(base + "/api/orders", method: "POST", body: "{}").status, 201, "the stub in --dir")
        XCTAssertEqual(try fetch(base + "/api/items").status, 200, "the upstream")
        recorder.signal(SIGINT)
        XCTAssertEqual(recorder.exitStatus(), 0, recorder.stderr)
        XCTAssertEqual(upstream.requests.map(\.target), ["/api/items"], "the stubbed request never reached it")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["get-api-items.json"])
        let validate = try runStubServer(["validate", "--dir", stubs.path])
        XCTAssertEqual(validate.status, 0, validate.stdout)
        XCTAssertFalse(validate.stdout.contains("warning"), validate.stdout)

        let outside = try runStubServer([
            "record", "--dir", stubs.path, "--proxy", "http://127.0.0.1:1", "--out", "/tmp/x",
        ])
        XCTAssertEqual(outside.status, 2)
        XCTAssertTrue(outside.stderr.contains("--out must be inside --dir"), outside.stderr)
    }
}
