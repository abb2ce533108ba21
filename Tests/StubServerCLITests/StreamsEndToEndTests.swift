import Foundation
import TestSupport
import XCTest

/// Streams through the shipped binary (`STUBSERVER_BINARY` picks another build), on the bundled
/// examples: events on time with raw sockets, a WebSocket chat with raw frames, and the Python
/// clients (`websockets`, `openai`) when they are installed. Readiness is the ready line.
final class StreamsEndToEndTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func serveBundledStubs() throws -> (StubServerProcess, Int) {
        let server = try StubServerProcess(
            ["--dir", "stubs", "--port", "0", "--no-watch", "--log", "quiet"],
            workingDirectory: Self.root
        )
        let base = try XCTUnwrap(server.baseURL())
        let port = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""))
        return (server, port)
    }

    func testTrackingEventsArriveWhenDue() throws {
        let (server, port) = try serveBundledStubs()
        // The process stops when its object goes: keep it for the whole test.
        defer { withExtendedLifetime(server) {} }
        let sentAt = WireConnection.now()
        let reader = try EventStreamReader(port: port, target: "/v1/orders/42/tracking")
        XCTAssertTrue(reader.wait { $0.events.count >= 1 })
        let first = WireConnection.now() - sentAt
        XCTAssertLessThan(first, 250, "the first event comes at once (margin for a loaded machine)")
        XCTAssertTrue(reader.wait { $0.events.count >= 2 })
        let second = WireConnection.now() - sentAt
        XCTAssertGreaterThanOrEqual(second, 390, "the second is due 400 ms in, never early")
        XCTAssertLessThan(second - first, 400 + 150)
        XCTAssertTrue(reader.wait { $0.ended })
        XCTAssertEqual(reader.events.first?.data, #"{"order":"42","state":"confirmed"}"#)
        XCTAssertEqual(reader.events.last?.data, "delivered 42\nenjoy your meal")
        XCTAssertEqual(reader.named("status").count, 4)
    }

    func testTheChatOverRawFrames() throws {
        let (server, port) = try serveBundledStubs()
        // The process stops when its object goes: keep it for the whole test.
        defer { withExtendedLifetime(server) {} }
        let client = try WebSocketWire(port: port)
        let head = try client.open("/v1/chat")
        XCTAssertEqual(head.status, 101)
        XCTAssertEqual(head.header("Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(client.readText(), #"{"type":"hello","room":"general"}"#)
        client.sendText(#"{"type":"say","text":"hi"}"#)
        XCTAssertEqual(client.readText(), #"{"type":"said","user":"you","text":"hi"}"#)
        client.send(WebSocketWire.frame(9, Array("beat".utf8)))
        var pong: WebSocketWire.Frame?
        while let frame = client.readFrame(), pong == nil {
            if frame.opcode == 0xA { pong = frame }
        }
        XCTAssertEqual(pong?.payload, Array("beat".utf8))
        client.sendText("bye")
        var close: WebSocketWire.Frame?
        while let frame = client.readFrame(), close == nil {
            if frame.opcode == 8 { close = frame }
        }
        XCTAssertEqual(close?.closeCode, 1000)
    }

    func testThePythonClientsConsumeTheExamples() throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import websockets, openai"]
        probe.standardError = FileHandle.nullDevice
        do {
            try probe.run()
            probe.waitUntilExit()
        } catch {
            throw XCTSkip("python3 is not installed")
        }
        guard probe.terminationStatus == 0 else {
            throw XCTSkip("the websockets and openai packages are not installed (pip install websockets openai)")
        }
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        script.arguments = [
            "python3", "Tests/clients/streams_client_test.py", "--binary", StubServerProcess.executable.path,
        ]
        script.currentDirectoryURL = Self.root
        let out = Pipe()
        script.standardOutput = out
        try script.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        XCTAssertEqual(script.terminationStatus, 0, text)
        XCTAssertTrue(text.contains(" passed, 0 failed"), text)
    }

    func testTheProxyPassesEventsThroughOneByOne() throws {
        let (upstream, upstreamPort) = try serveBundledStubs()
        defer { withExtendedLifetime(upstream) {} }
        let proxy = try StubServerProcess(
            [
                "--dir", folder([:]).path, "--port", "0", "--no-watch", "--log", "quiet",
                "--proxy", "http://127.0.0.1:\(upstreamPort)",
            ]
        )
        let base = try XCTUnwrap(proxy.baseURL())
        let port = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""))
        let sentAt = WireConnection.now()
        let reader = try EventStreamReader(port: port, target: "/v1/orders/7/tracking")
        XCTAssertTrue(reader.wait { $0.events.count >= 1 })
        let first = WireConnection.now() - sentAt
        XCTAssertTrue(reader.wait { $0.events.count >= 2 })
        let second = WireConnection.now() - sentAt
        XCTAssertGreaterThanOrEqual(
            second - first,
            250,
            "the second event came when the upstream sent it, not with the first"
        )
        XCTAssertTrue(reader.wait { $0.ended })
        XCTAssertEqual(reader.named("status").count, 4)
        XCTAssertEqual(reader.events.first?.data, #"{"order":"7","state":"confirmed"}"#)
        withExtendedLifetime(proxy) {}
    }
}
