import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubEngine
import TestSupport
import XCTest

/// Rows 4 and 5 of the adversarial probe (issue 10), over real sockets: a regex that made the
/// old backtracking engine spend seconds per request now costs a linear pass, for the request
/// crafted against it, for unmatched requests (whose near-miss report runs every matcher), and
/// with a stateful stub loaded; and a match the old engine abandoned is found.
final class RegexHardeningTests: XCTestCase {
    private func serve(_ json: String) throws -> HTTP1Server {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("regex-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let result = StubLoader(directory: folder.path).load()
        XCTAssertEqual(result.errors, [])
        let engine = Engine(stubs: result.stubs, options: .init())
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return server
    }

    /// The probe's stubs: the nested quantifier on a header, and a scenario stub (matching a
    /// stateful stub once happened under the engine's lock, stalling both loops).
    static let stubs = """
        [{"request": {"path": "/token", "headers": {"X-Token": {"matches": "^(a+)+$"}}}, "response": {"body": "ok"}},
         {"request": {"path": "/either", "headers": {"X-Value": {"matches": "(a+)+c|a*b"}}}, "response": {"body": \
        "matched"}},
         {"scenario": {"name": "cart", "then": "full"}, "request": {"path": "/cart"}, "response": {"body": "cart"}}]
        """

    // Row 4: 40 a's and a b held a loop thread 1.5 to 1.8 s per request. Twenty crafted requests
    // and twenty unmatched ones (each scored against the regex for its near-miss report) on one
    // connection now finish well inside a deadline the old engine could not meet for three.
    func testTheCraftedValueCostsALinearPass() throws {
        let server = try serve(Self.stubs)
        let crafted = String(repeating: "a", count: 40) + "b"
        let c = try WireConnection(port: server.port)
        var pipelined = ""
        for _ in 0..<20 {
            pipelined += "GET /token HTTP/1.1\r\nHost: h\r\nX-Token: \(crafted)\r\n\r\n"
            pipelined += "GET /nothing-here HTTP/1.1\r\nHost: h\r\nX-Token: \(crafted)\r\n\r\n"
        }
        c.send(pipelined)
        let deadline = WireConnection.now() + 4_000
        for _ in 0..<40 {
            let response = try c.readResponse(timeoutMilliseconds: max(1, deadline - WireConnection.now()))
            XCTAssertEqual(response.status, 404)
        }
        // Meanwhile and after, the stateful stub answers.
        let other = try WireConnection(port: server.port)
        other.send("GET /cart HTTP/1.1\r\nHost: h\r\n\r\n")
        XCTAssertEqual(try other.readResponse().text, "cart")
    }

    // Row 5: the old engine gave up on this after 2.1 s and answered 404 as if it did not match.
    func testAMatchIsFoundNotAbandoned() throws {
        let server = try serve(Self.stubs)
        let c = try WireConnection(port: server.port)
        c.send("GET /either HTTP/1.1\r\nHost: h\r\nX-Value: \(String(repeating: "a", count: 26))b\r\n\r\n")
        let response = try c.readResponse(timeoutMilliseconds: 2_000)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "matched")
    }

    // A construct that needs backtracking loads in a native stub, with a warning naming it (the
    // budget bounds its cost; the warning says a match may give up). Bad syntax stays an error.
    func testBacktrackingConstructsLoadWithAWarning() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("regex-warned-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try Data(
            #"""
            [{"request": {"pathPattern": "/(a+)\\1"}, "response": {}}, {"request": {"pathPattern": "/(a\\2"}, \#
            "response": {}}]
            """#
            .utf8
        )
        .write(to: folder.appendingPathComponent("s.json"))
        let result = StubLoader(directory: folder.path).load()
        XCTAssertEqual(result.stubs.count, 1)
        XCTAssertEqual(result.errors.count, 1)
        XCTAssertTrue(
            result.errors.first?.description.contains("invalid regular expression") ?? false,
            "\(result.errors)"
        )
        let warnings = result.problems.filter { $0.severity == .warning }.map(\.description)
        XCTAssertEqual(warnings.count, 1, "\(warnings)")
        XCTAssertTrue(
            warnings.first?.contains(#"uses a back-reference \1 (at character 5), which needs the backtracking engine"#)
                ?? false,
            "\(warnings)"
        )
    }
}
