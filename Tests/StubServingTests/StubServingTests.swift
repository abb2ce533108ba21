import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubEngine
import TestSupport
import XCTest

/// The stub engine behind the real HTTP server, in process, checked on the wire with a raw
/// socket: what each realistic-network feature actually sends.
final class StubServingTests: XCTestCase {
    private func serve(
        _ json: String,
        cors: Bool = false,
        _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) throws -> (HTTP1Server, Engine) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stubserving-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let result = StubLoader(directory: folder.path).load()
        XCTAssertEqual(result.errors, [])
        let engine = Engine(stubs: result.stubs, cors: cors ? CORSPolicy() : nil)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        engine.fallbackBaseURL.value = server.baseURL
        addTeardownBlock { server.stopAndWait() }
        return (server, engine)
    }

    private func get(_ path: String, _ extraHeaders: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: stubs.test\r\n\(extraHeaders)\r\n"
    }

    func testResetSendsNothingAndResets() throws {
        let (server, _) = try serve(#"{"request": {"path": "/r"}, "response": {"fault": "reset", "body": "never"}}"#)
        let c = try WireConnection(port: server.port)
        c.send(get("/r"))
        let (bytes, closed) = c.readUntilClose()
        XCTAssertEqual(bytes, [])
        XCTAssertTrue(closed)
        XCTAssertTrue(c.sawReset, "a reset, not a clean close")
    }

    func testEmptyClosesCleanlyWithoutAByte() throws {
        let (server, _) = try serve(#"{"request": {"path": "/e"}, "response": {"fault": "empty"}}"#)
        let c = try WireConnection(port: server.port)
        c.send(get("/e"))
        let (bytes, closed) = c.readUntilClose()
        XCTAssertEqual(bytes, [])
        XCTAssertTrue(closed)
        XCTAssertFalse(c.sawReset)
    }

    func testGarbageSendsNonHTTPBytesThenCloses() throws {
        let (server, _) = try serve(#"{"request": {"path": "/g"}, "response": {"fault": "garbage"}}"#)
        let c = try WireConnection(port: server.port)
        c.send(get("/g"))
        let (bytes, closed) = c.readUntilClose()
        XCTAssertTrue(closed)
        XCTAssertGreaterThanOrEqual(bytes.count, 16)
        XCTAssertFalse(bytes.starts(with: Array("HTTP/".utf8)))
    }

    func testHangHoldsTheConnectionOthersStillServed() throws {
        let (server, _) = try serve(
            #"""
            [{"request": {"path": "/h"}, "response": {"fault": "hang"}}, {"request": {"path": "/ok"}, "response": \#
            {"body": "ok"}}]
            """#
        )
        let hung = try WireConnection(port: server.port)
        hung.send(get("/h"))
        XCTAssertTrue(hung.staysSilent(milliseconds: 300))
        let other = try WireConnection(port: server.port)
        other.send(get("/ok"))
        XCTAssertEqual(try other.readResponse().text, "ok")
        let started = Date()
        server.stopAndWait()
        XCTAssertTrue(hung.waitForClose(timeoutMilliseconds: 2_000), "shutdown releases a hung connection")
        XCTAssertLessThan(Date().timeIntervalSince(started), 3, "without waiting out the grace period")
    }

    func testDribbleKeepsFramingAndTakesItsTime() throws {
        let (server, _) = try serve(
            #"""
            {"request": {"path": "/d"}, "response": {"body": "0123456789", "dribble": {"chunks": 5, "durationMs": \#
            400}}}
            """#
        )
        let c = try WireConnection(port: server.port)
        let started = Date()
        c.send(get("/d") + get("/d").replacingOccurrences(of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n"))
        let first = try c.readResponse()
        XCTAssertEqual(first.header("Content-Length"), "10")
        XCTAssertEqual(first.text, "0123456789")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3, "spread over the duration")
        XCTAssertEqual(try c.readResponse().text, "0123456789", "the next pipelined response follows intact")
    }

    func testAThousandDelayedRequestsOccupyNoThreads() throws {
        let (server, _) = try serve(
            #"""
            [{"request": {"path": "/slow"}, "response": {"delay": 1500, "body": "late"}}, {"request": {"path": \#
            "/fast"}, "response": {"body": "fast"}}]
            """#
        )
        let threadsBefore = Self.threadCount()
        var connections: [WireConnection] = []
        for _ in 0..<1000 {
            let c = try WireConnection(port: server.port)
            c.send(get("/slow"))
            connections.append(c)
        }
        let probe = try WireConnection(port: server.port)
        let started = Date()
        probe.send(get("/fast"))
        XCTAssertEqual(try probe.readResponse().text, "fast")
        XCTAssertLessThan(
            Date().timeIntervalSince(started),
            1.0,
            "a fast request is not held up by a thousand delayed ones"
        )
        XCTAssertLessThanOrEqual(Self.threadCount(), threadsBefore + 2, "delays are timers, not threads")
        for c in connections { XCTAssertEqual(try c.readResponse(timeoutMilliseconds: 10_000).text, "late") }
    }

    func testTemplatedResponseOverTheWireUsesTheAddressTheClientUsed() throws {
        let (server, _) = try serve(
            #"""
            {"request": {"path": "/orders/{id}"}, "response": {"template": true, "status": 201, "headers": \#
            {"Location": "{{request.baseUrl}}/orders/{{request.path.id}}"}, "body": {"id": "{{request.path.id}}"}}}
            """#
        )
        let c = try WireConnection(port: server.port)
        c.send("POST /orders/7 HTTP/1.1\r\nHost: 10.0.2.2:8080\r\nContent-Length: 0\r\n\r\n")
        let response = try c.readResponse()
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.header("Location"), "http://10.0.2.2:8080/orders/7")
        XCTAssertEqual(response.text, #"{"id":"7"}"#)
        XCTAssertEqual(response.header("Content-Length"), "10")
    }

    /// One connection, keep-alive: each answer's named UUID agrees between `Location` and the
    /// body, the next answer has its own, and a request's number comes back as a number.
    func testNamedValuesAndJSONOverTheWire() throws {
        let (server, _) = try serve(
            #"""
            {"request": {"path": "/orders"}, "response": {"template": true, "status": 201, "headers": \#
            {"Location": "/orders/{{uuid 'order'}}"}, "body": {"id": "{{uuid 'order'}}", \#
            "qty": "{{json request.json./qty}}"}}}
            """#
        )
        let c = try WireConnection(port: server.port)
        var ids: [String] = []
        for qty in [2, 3] {
            let body = #"{"qty": \#(qty)}"#
            c.send("POST /orders HTTP/1.1\r\nHost: stubs.test\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try c.readResponse()
            XCTAssertEqual(response.status, 201)
            let id = String(response.header("Location")?.dropFirst("/orders/".count) ?? "")
            XCTAssertEqual(id.count, 36)
            XCTAssertEqual(response.text, #"{"id":"\#(id)","qty":\#(qty)}"#)
            ids.append(id)
        }
        XCTAssertNotEqual(ids[0], ids[1])
    }

    func testNearMissOverTheWire() throws {
        let (server, _) = try serve(#"{"name": "Profile", "request": {"path": "/v1/users/{id}"}, "response": {}}"#)
        let c = try WireConnection(port: server.port)
        c.send(get("/v1/user/1", "Accept: application/json\r\n"))
        let response = try c.readResponse()
        XCTAssertEqual(response.status, 404)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertTrue(response.text.contains(#""name":"Profile""#))
    }

    static func threadCount() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") })
        else { return 0 }
        return Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
    }
}
