import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAdmin
import StubEngine
import TestSupport
import XCTest
import RegularExpressions

/// A pattern that needs backtracking runs within a step budget; a match that reaches it counts
/// as no match and is never silent: the journal entry names the stub, the condition, the
/// pattern and why, and so does the near-miss report (the 404 and /__admin/requests/unmatched).
final class RegexAbortTests: XCTestCase {
    private func serve(_ json: String) throws -> HTTP1Server {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("regex-abort-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let result = StubLoader(directory: folder.path).load()
        XCTAssertEqual(result.errors, [])
        var options = Engine.Options()
        options.adminRoutes = NativeAdmin.routeSets()
        let engine = Engine(stubs: result.stubs, options: options)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return server
    }

    private func get(_ server: HTTP1Server, _ target: String, _ headers: String = "") throws -> WireResponse {
        let c = try WireConnection(port: server.port)
        c.send("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\(headers)\r\n")
        return try c.readResponse(timeoutMilliseconds: 5_000)
    }

    private func json(_ server: HTTP1Server, _ target: String) throws -> [String: Any] {
        let response = try get(server, target, "Accept: application/json\r\n")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], response.text)
    }

    static let crafted = String(repeating: "a", count: 40) + "!"

    func testAnAbortedMatchIsNoMatchAndIsReportedWhereItHappened() throws {
        let server = try serve(
            """
            [{"name": "guarded", "request": {"path": "/login", "headers": {"X-Token": {"matches": "^(a+)+(?!b)$"}}},
              "response": {"body": "guarded"}}]
            """
        )
        // A value the pattern decides within the budget still matches.
        XCTAssertEqual(try get(server, "/login", "X-Token: aaaa\r\n").text, "guarded")

        let started = DispatchTime.now().uptimeNanoseconds
        let response = try get(server, "/login", "X-Token: \(Self.crafted)\r\nAccept: application/json\r\n")
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
        XCTAssertEqual(response.status, 404)
        // Bounded by the budget (a few milliseconds in a release build), never the seconds an
        // unbounded backtracking engine takes: a correctness bound, generous for a debug build.
        XCTAssertLessThan(milliseconds, 5_000)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let mismatches = ((report["closest"] as? [[String: Any]])?.first?["mismatches"] as? [[String: Any]]) ?? []
        XCTAssertEqual(mismatches.first?["condition"] as? String, "header.X-Token")
        XCTAssertEqual(
            mismatches.first?["aborted"] as? String,
            "gave up after \(BacktrackingRegex.defaultBudget) backtracking steps on a value of 41 characters"
        )

        let text = try get(server, "/login", "X-Token: \(Self.crafted)\r\n").text
        XCTAssertTrue(
            text.contains(
                "header.X-Token: expected matches /^(a+)+(?!b)$/, got \"\(Self.crafted)\" (aborted: gave up after"
            ),
            text
        )

        let unmatched = try json(server, "/__admin/requests/unmatched")
        let entries = try XCTUnwrap(unmatched["requests"] as? [[String: Any]])
        XCTAssertEqual(entries.count, 2)
        for entry in entries {
            let aborted = try XCTUnwrap(entry["regexAborted"] as? [[String: Any]], "\(entry)")
            XCTAssertEqual(aborted.count, 1, "one abort per request: the near-miss report reuses the verdict")
            XCTAssertEqual((aborted.first?["stub"] as? [String: Any])?["name"] as? String, "guarded")
            XCTAssertEqual(aborted.first?["condition"] as? String, "header.X-Token")
            XCTAssertEqual(aborted.first?["pattern"] as? String, "^(a+)+(?!b)$")
            let nearMiss = (entry["nearMiss"] as? [[String: Any]])?.first?["mismatches"] as? [[String: Any]]
            XCTAssertNotNil(nearMiss?.first?["aborted"], "\(entry)")
        }
    }

    /// Another stub answers; the journal still says that a better-ranked one gave up.
    func testAnAbortBeforeAnotherStubAnswersIsJournaled() throws {
        let server = try serve(
            """
            [{"name": "guarded", "priority": 1, "request": {"path": "/login", "headers": {"X-Token": {"matches": \
            "^(a+)+(?!b)$"}}},
              "response": {"body": "guarded"}},
             {"name": "fallback", "priority": 9, "request": {"path": "/login"}, "response": {"body": "fallback"}}]
            """
        )
        XCTAssertEqual(try get(server, "/login", "X-Token: \(Self.crafted)\r\n").text, "fallback")
        XCTAssertEqual(try get(server, "/login", "X-Token: aa\r\n").text, "guarded")
        let listing = try json(server, "/__admin/requests")
        let entries = try XCTUnwrap(listing["requests"] as? [[String: Any]])
        let crafted = try XCTUnwrap(
            entries.first { ($0["headers"] as? [String: [String]])?["X-Token"]?.first == Self.crafted }
        )
        XCTAssertEqual((crafted["stub"] as? [String: Any])?["name"] as? String, "fallback")
        let aborted = try XCTUnwrap(crafted["regexAborted"] as? [[String: Any]])
        XCTAssertEqual((aborted.first?["stub"] as? [String: Any])?["name"] as? String, "guarded")
        XCTAssertEqual(aborted.first?["pattern"] as? String, "^(a+)+(?!b)$")
        let plain = try XCTUnwrap(entries.first { ($0["headers"] as? [String: [String]])?["X-Token"]?.first == "aa" })
        XCTAssertNil(plain["regexAborted"], "nothing to say when every match was decided")
    }

    /// Many such stubs cannot add up: the request's budget bounds them together, and each
    /// match after it is spent gives up at once, saying why.
    func testTheRequestBudgetBoundsManyBacktrackingStubs() throws {
        let stubs = (0..<8).map { i in
            #"""
            {"name": "s\#(i)", "request": {"path": "/many", "headers": {"X-\#(i)": {"matches": "^(a+)+(?!b)$"}}}, \#
            "response": {}}
            """#
        }
        let server = try serve("[" + stubs.joined(separator: ",") + "]")
        let headers = (0..<8).map { "X-\($0): \(Self.crafted)\r\n" }.joined()
        XCTAssertEqual(try get(server, "/many", headers).status, 404)
        let unmatched = try json(server, "/__admin/requests/unmatched")
        let entry = try XCTUnwrap((unmatched["requests"] as? [[String: Any]])?.first)
        let reasons = ((entry["regexAborted"] as? [[String: Any]]) ?? []).compactMap { $0["reason"] as? String }
        XCTAssertEqual(reasons.count, 8)
        // Four matches' budgets make the request's (the fourth may find a few steps missing).
        let own = reasons.filter { $0.hasPrefix("gave up after \(BacktrackingRegex.defaultBudget) backtracking steps") }
            .count
        let spent = reasons.filter { $0.contains("the request's budget of \(RegexBudgetLog.requestBudget)") }.count
        XCTAssertTrue((3...4).contains(own), "\(reasons)")
        XCTAssertEqual(own + spent, 8, "\(reasons)")
    }
}
