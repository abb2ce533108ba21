import Foundation
import TestSupport
import XCTest

/// Issue 38, item 3: a 30 MB body of `[{},{},...]` to `POST /__admin/stubs` made a 1.2 GB error
/// answer (5.5 GB of memory, 78 s). Problems reported per request are capped, and so is the
/// size of each.
final class AdminErrorBoundTests: XCTestCase {
    /// `[{},{},...]` of about `megabytes` MB.
    private func emptyObjects(megabytes: Int, wrapped: String? = nil) -> String {
        let count = megabytes * 1_000_000 / 3
        let list = "[" + String(repeating: "{},", count: count - 1) + "{}]"
        return wrapped.map { #"{"\#($0)": "# + list + "}" } ?? list
    }

    func testThirtyMegabytesOfEmptyStubsGetAShortAnswerQuickly() throws {
        let dir = folder([:])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL())
        let started = Date()
        let answer = try fetch(base + "/__admin/stubs", method: "POST", body: emptyObjects(megabytes: 30))
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(answer.status, 400)
        XCTAssertLessThan(answer.body.utf8.count, 64 << 10, "a bounded answer")
        XCTAssertLessThan(seconds, 15, "answered in \(seconds) s")
        let errors = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])?["errors"] as? [String]
        )
        XCTAssertLessThanOrEqual(errors.count, 102)
        XCTAssertTrue(
            errors.contains { $0.contains("stopped reading after 99 errors, before stub 100; fix these first") },
            "\(errors.suffix(3))"
        )
        XCTAssertEqual(try fetch(base + "/__admin/health").status, 200)
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    func testAHugeKeyIsEchoedCut() throws {
        let dir = folder([:])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL())
        let key = String(repeating: "k", count: 1 << 20)
        let answer = try fetch(base + "/__admin/stubs", method: "POST", body: #"{"response": {}, "\#(key)": 1}"#)
        XCTAssertEqual(answer.status, 400)
        XCTAssertLessThan(answer.body.utf8.count, 8 << 10, "a bounded answer")
        XCTAssertTrue(answer.body.contains("bytes in all)"), String(answer.body.prefix(300)))
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    func testWireMockMappingsAreBoundedToo() throws {
        let dir = folder(["mappings/keep.json": #"{"request": {"url": "/k"}, "response": {"status": 200}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL())
        let answer = try fetch(
            base + "/__admin/mappings",
            method: "POST",
            body: emptyObjects(megabytes: 10, wrapped: "mappings")
        )
        XCTAssertEqual(answer.status, 422, String(answer.body.prefix(300)))
        XCTAssertLessThan(answer.body.utf8.count, 128 << 10, "a bounded answer")
        XCTAssertTrue(answer.body.contains("stopped reading after 99 errors"), String(answer.body.suffix(300)))
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }
}
