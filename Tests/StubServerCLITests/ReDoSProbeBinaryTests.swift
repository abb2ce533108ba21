import Foundation
import TestSupport
import XCTest

/// The ReDoS probe of docs/reliability.md through the binary users run, with a pattern only the
/// backtracking engine can run loaded: `^(a+)+(?!b)$` is exponential for a backtracking engine
/// against a run of `a`s that ends in `!`. Each request is bounded by the budget (1,000,000
/// steps a match, a few milliseconds in the release build); the bound asserted here is a
/// generous correctness bound that an unbounded engine (2^41 steps) could never meet, and holds
/// for the debug build too. The aborted match must show in the 404, the journal and the
/// near-miss listing. `STUBSERVER_BINARY` picks the binary (CI: the release build).
final class ReDoSProbeBinaryTests: XCTestCase {
    static let pattern = "^(a+)+(?!b)$"
    static let crafted = String(repeating: "a", count: 40) + "!"

    private func port(_ server: StubServerProcess) throws -> Int {
        let base = try XCTUnwrap(server.baseURL(), server.stdout + server.stderr)
        return try XCTUnwrap(Int(base.split(separator: ":").last.map(String.init) ?? ""), base)
    }

    /// Sends the crafted request `count` times on one connection; the time of each.
    private func probe(_ port: Int, path: String, header: String, count: Int) throws -> [Double] {
        let c = try WireConnection(port: port)
        var times: [Double] = []
        for _ in 0..<count {
            let started = DispatchTime.now().uptimeNanoseconds
            c.send("GET \(path) HTTP/1.1\r\nHost: h\r\n\(header): \(Self.crafted)\r\nAccept: application/json\r\n\r\n")
            let response = try c.readResponse(timeoutMilliseconds: 10_000)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
            XCTAssertEqual(response.status, 404)
            let report = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                response.text
            )
            let mismatches = (report["closest"] as? [[String: Any]])?.first?["mismatches"] as? [[String: Any]]
            XCTAssertEqual(mismatches?.first?["condition"] as? String, "header.\(header)", response.text)
            XCTAssertTrue(
                (mismatches?.first?["aborted"] as? String)?.hasPrefix("gave up after 1000000 backtracking steps")
                    ?? false,
                response.text
            )
        }
        return times
    }

    private func assertBounded(_ times: [Double], _ what: String) {
        let sorted = times.sorted()
        print(
            """
            ReDoS probe (\(what)): median \(sorted[sorted.count / 2]) ms, max \(sorted.last!) ms over \
            \(times.count) requests
            """
        )
        // The budget bounds a request to one budget's worth of steps here (the near-miss report
        // reuses the verdict): milliseconds in release, well under a second in a debug build
        // on a loaded machine. 5 s is the generous correctness bound.
        for time in times { XCTAssertLessThan(time, 5_000, what) }
    }

    private func assertJournaled(_ port: Int, stub: String) throws {
        let c = try WireConnection(port: port)
        // The native admin API (a WireMock folder's default dialect is WireMock's, whose shape
        // has no place for it).
        c.send("GET /__admin/requests/unmatched HTTP/1.1\r\nHost: localhost\r\nX-Stubserver-Dialect: native\r\n\r\n")
        let listing = try c.readResponse(timeoutMilliseconds: 10_000)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listing.body)) as? [String: Any], listing.text)
        let entries = try XCTUnwrap(json["requests"] as? [[String: Any]], listing.text)
        XCTAssertFalse(entries.isEmpty)
        for entry in entries {
            let aborted = try XCTUnwrap((entry["regexAborted"] as? [[String: Any]])?.first, "\(entry)")
            XCTAssertEqual(aborted["pattern"] as? String, Self.pattern)
            XCTAssertEqual((aborted["stub"] as? [String: Any])?["name"] as? String, stub)
            XCTAssertTrue((aborted["condition"] as? String)?.hasPrefix("header.") ?? false, "\(aborted)")
        }
    }

    func testTheProbeIsBoundedWithANativeBacktrackingStub() throws {
        let dir = folder([
            "stubs.json": """
            {"name": "guarded", "request": {"path": "/token", "headers": {"X-Token": {"matches": "\(Self.pattern)"}}},
             "response": {"body": "ok"}}
            """
        ])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--log", "quiet"])
        let port = try port(server)
        server.waitFor("the load warning naming the construct") {
            server.stderr.contains(
                "uses a negative look-ahead (?!...) (at character 6), which needs the backtracking engine"
            )
        }
        assertBounded(try probe(port, path: "/token", header: "X-Token", count: 10), "native")
        try assertJournaled(port, stub: "guarded")
    }

    func testTheProbeIsBoundedWithAWireMockBacktrackingMapping() throws {
        let dir = folder([
            "mappings/guarded.json": """
            {"name": "guarded", "request": {"urlPath": "/token", "headers": {"X-Token": {"matches": \
            "\(Self.pattern)"}}},
             "response": {"status": 200, "body": "ok"}}
            """
        ])
        let server = try StubServerProcess(["--wiremock", dir.path, "--port", "0", "--no-watch", "--log", "quiet"])
        let port = try port(server)
        assertBounded(try probe(port, path: "/token", header: "X-Token", count: 10), "wiremock")
        try assertJournaled(port, stub: "guarded")
    }
}
