import Foundation
import TestSupport
import XCTest

/// The limits and the flags that shape serving, through the binary users run: each answered
/// as its flag says, over a raw socket.
final class BinaryLimitsTests: XCTestCase {
    private static let stubs = [
        "stubs.json": #"[{"request": {"path": "/ok"}, "response": {"body": "ok"}}, {"response": {"status": 204}}]"#
    ]

    func testBodyHeaderAndTargetLimitsAreTheirStatuses() throws {
        let server = try BinaryServing(
            self,
            files: Self.stubs,
            ["--max-body", "1K", "--max-header", "1K", "--max-target", "100"]
        )
        let body = String(repeating: "x", count: 2_000)
        let tooLarge = try server.exchange(
            "POST /ok HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
        XCTAssertEqual(tooLarge.status, 413)
        let fits = String(repeating: "x", count: 900)
        XCTAssertEqual(
            try server.exchange("POST /ok HTTP/1.1\r\nHost: a\r\nContent-Length: 900\r\n\r\n\(fits)").status,
            200
        )
        XCTAssertEqual(try server.get("/ok", headers: ["X-Big: " + body]).status, 431)
        XCTAssertEqual(try server.get("/" + String(repeating: "a", count: 200)).status, 414)
        XCTAssertEqual(try server.get("/ok").status, 200)
    }

    func testAHeadThatStopsArrivingGets408AtTheHeaderTimeout() throws {
        let server = try BinaryServing(self, files: Self.stubs, ["--header-timeout", "1"])
        let connection = try WireConnection(port: server.port)
        defer { connection.close() }
        let started = WireConnection.now()
        connection.send("GET /ok HTTP/1.1\r\nHost: a\r\n")
        let response = try connection.readResponse(timeoutMilliseconds: 10_000)
        XCTAssertEqual(response.status, 408)
        XCTAssertGreaterThanOrEqual(WireConnection.now() - started, 900)
    }

    /// At --max-connections, a new client is served and the longest-idle connection makes room.
    func testAtTheConnectionLimitTheLongestIdleMakesRoom() throws {
        let server = try BinaryServing(self, files: Self.stubs, ["--max-connections", "2"])
        let first = try WireConnection(port: server.port)
        let second = try WireConnection(port: server.port)
        defer {
            first.close()
            second.close()
        }
        for connection in [first, second] {
            connection.send("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n")
            XCTAssertEqual(try connection.readResponse().status, 200)
        }
        XCTAssertEqual(try server.get("/ok").status, 200, "the third client is served")
        XCTAssertTrue(
            first.waitForClose(timeoutMilliseconds: 3_000) || second.waitForClose(timeoutMilliseconds: 3_000),
            "one idle connection was closed to make room"
        )
    }

    /// A client that takes nothing of a large answer is closed at --write-timeout.
    func testAClientThatStopsReadingIsClosedAtTheWriteTimeout() throws {
        let large = String(repeating: "y", count: 8 << 20)
        let server = try BinaryServing(
            self,
            files: ["large.json": #"[{"request": {"path": "/large"}, "response": {"body": "\#(large)"}}]"#],
            ["--write-timeout", "1"]
        )
        let connection = try WireConnection(port: server.port, receiveBuffer: 4096)
        defer { connection.close() }
        connection.send("GET /large HTTP/1.1\r\nHost: a\r\n\r\n")
        // Reading nothing while the write timeout passes: that is what is under test.
        _ = WireConnection.staysSilentFor(milliseconds: 2_500)
        let (bytes, closed) = connection.readUntilClose(timeoutMilliseconds: 5_000)
        XCTAssertTrue(closed)
        XCTAssertLessThan(bytes.count, 8 << 20, "the answer was cut off, not delivered")
    }

    func testWithTheJournalOffTheAdminAPISaysSo() throws {
        let server = try BinaryServing(self, files: Self.stubs, ["--journal", "0"])
        XCTAssertEqual(try server.get("/ok").status, 200)
        let listed = try server.get("/__admin/requests")
        XCTAssertEqual(listed.status, 409)
        XCTAssertTrue(listed.text.contains("the journal is off"), listed.text)
    }

    func testAllowedHostsAndAdminOriginsOpenTheAdminAPIToThemOnly() throws {
        let server = try BinaryServing(
            self,
            files: Self.stubs,
            ["--allowed-host", "mac.example.test", "--admin-origin", "http://tool.example.test:3000"]
        )
        func health(_ host: String) throws -> Int {
            try server.exchange("GET /__admin/health HTTP/1.1\r\nHost: \(host)\r\n\r\n").status
        }
        XCTAssertEqual(try health("mac.example.test:8080"), 200)
        XCTAssertEqual(try health("localhost"), 200)
        XCTAssertEqual(try health("other.example.test"), 403)
        func reset(origin: String) throws -> Int {
            try server.send("POST", "/__admin/reset", json: "{}", headers: ["Origin: \(origin)"]).status
        }
        XCTAssertEqual(try reset(origin: "http://tool.example.test:3000"), 200)
        XCTAssertEqual(try reset(origin: "http://evil.example.test"), 403)
        // Stub traffic is not the admin API's: any Host is served.
        XCTAssertEqual(try server.exchange("GET /ok HTTP/1.1\r\nHost: other.example.test\r\n\r\n").status, 200)
    }

    func testVerboseLogsTheBodyOfAnUnmatchedRequest() throws {
        let server = try BinaryServing(
            self,
            files: ["stubs.json": #"[{"request": {"path": "/ok"}, "response": {"body": "ok"}}]"#],
            ["--log", "text", "--verbose"]
        )
        let missed = try server.send("POST", "/nothing-here", json: #"{"marker": "verbose-body"}"#)
        XCTAssertEqual(missed.status, 404)
        server.process.waitFor("the body in the request log") { server.process.stdout.contains("verbose-body") }
    }
}
