import Foundation
import TestSupport
import XCTest

/// Issue 38, item 3: a 30 MB body of `[{},{},...]` to `POST /__admin/stubs` made a 1.2 GB error
/// answer (5.5 GB of memory, 78 s). Problems reported per request are capped, and so is the
/// size of each.
final class AdminErrorBoundTests: XCTestCase {
    /// How long a test waits for the answer to a body of megabytes: a deadline for a server
    /// that never answers, not a measure. Under load the WireMock answer (all 10 MB parsed,
    /// about 4 s of CPU in a debug build) took over 30 s, past `fetch`'s 20 s.
    static let bigBodySeconds: Double = 180

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
        let cpuBefore = server.cpuMilliseconds
        let answer = try fetch(
            base + "/__admin/stubs",
            method: "POST",
            body: emptyObjects(megabytes: 30),
            timeoutSeconds: Self.bigBodySeconds
        )
        XCTAssertEqual(answer.status, 400)
        XCTAssertLessThan(answer.body.utf8.count, 64 << 10, "a bounded answer")
        // Quickly in the server's CPU time, which a loaded machine does not stretch (a wall-clock
        // bound of 15 s failed under load): tens of milliseconds, where the unbounded answer took
        // over a minute.
        if let before = cpuBefore, let after = server.cpuMilliseconds {
            XCTAssertLessThan(after - before, 5_000, "the server's CPU time for the request")
        }
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
            body: emptyObjects(megabytes: 10, wrapped: "mappings"),
            timeoutSeconds: Self.bigBodySeconds
        )
        XCTAssertEqual(answer.status, 422, String(answer.body.prefix(300)))
        XCTAssertLessThan(answer.body.utf8.count, 128 << 10, "a bounded answer")
        XCTAssertTrue(answer.body.contains("stopped reading after 99 errors"), String(answer.body.suffix(300)))
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }
}
