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

    /// Issue 32's timing: the first event within 50 ms of the request, each later one within
    /// 50 ms of its due time, through the binary. The target is 50 ms; the assertion allows
    /// 50 + 150 ms, because this runs on a shared CI machine (2 cores, a load of 15 seen while
    /// other suites build) where the server's timer thread and this reader wait their turn for
    /// a core: the streams benchmark measured a worst lateness of 34 ms there, with a debug build,
    /// so 200 ms is six times the worst seen, and still far below a buffered stream's (which
    /// would arrive 600 ms late, at the end). Never early: due times count from the request's
    /// arrival, after this clock started. Five streams, so one lucky run proves nothing alone.
    func testEachEventArrivesWithin50MillisecondsOfItsDueTime() throws {
        let stubs = #"""
            {"request": {"path": "/timed"}, "response": {"events": [
              {"data": "0"}, {"data": "100", "delay": 100}, {"data": "300", "delay": 200}, {"data": "600", "delay": 300}
            ]}}
            """#
        let server = try BinaryServing(self, files: ["timed.json": stubs], ["--no-watch"])
        let target = 50
        let margin = 150
        var lateness: [Int] = []
        for _ in 0..<5 {
            let sentAt = WireConnection.now()
            let reader = try EventStreamReader(port: server.port, target: "/timed")
            var seen = 0
            while seen < 4, reader.wait(timeoutMilliseconds: 5_000, until: { $0.events.count > seen }) {
                let now = WireConnection.now() - sentAt
                for event in reader.events[seen...] {
                    let due = Int(event.data) ?? -1
                    XCTAssertGreaterThanOrEqual(now, due, "event \(event.data) came early")
                    lateness.append(now - due)
                }
                seen = reader.events.count
            }
            XCTAssertEqual(seen, 4, "four events")
            reader.close()
        }
        XCTAssertEqual(lateness.count, 20)
        XCTAssertLessThanOrEqual(lateness.max() ?? .max, target + margin, "lateness in ms: \(lateness)")
        // The median with no margin to speak of: most events are on time even here.
        XCTAssertLessThanOrEqual(lateness.sorted()[lateness.count / 2], target, "lateness in ms: \(lateness)")
    }

    /// A second binary with `--proxy` in front of `upstreamBase`; its port.
    private func proxy(to upstreamBase: String, _ extra: [String] = []) throws -> (StubServerProcess, Int) {
        let proxy = try StubServerProcess(
            ["--dir", folder([:]).path, "--port", "0", "--no-watch", "--log", "quiet", "--proxy", upstreamBase] + extra
        )
        let base = try XCTUnwrap(proxy.baseURL())
        return (proxy, try XCTUnwrap(Int(base.split(separator: ":").last ?? "")))
    }

    /// The chat over raw frames through the proxy: hello, a reply, the upstream's close code.
    private func chatThroughProxy(port: Int) throws {
        let client = try WebSocketWire(port: port)
        let head = try client.open("/v1/chat")
        XCTAssertEqual(head.status, 101)
        XCTAssertEqual(head.header("Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(client.readText(), #"{"type":"hello","room":"general"}"#)
        client.sendText(#"{"type":"say","text":"via proxy"}"#)
        XCTAssertEqual(client.readText(), #"{"type":"said","user":"you","text":"via proxy"}"#)
        client.sendText("bye")
        var close: WebSocketWire.Frame?
        while close == nil, let frame = client.readFrame() {
            if frame.opcode == 8 { close = frame }
        }
        XCTAssertEqual(close?.closeCode, 1000)
    }

    func testTheProxyPassesAWebSocketThroughAndJournalsItsMessages() throws {
        let (upstream, upstreamPort) = try serveBundledStubs()
        defer { withExtendedLifetime(upstream) {} }
        let (proxy, port) = try proxy(to: "http://127.0.0.1:\(upstreamPort)")
        defer { withExtendedLifetime(proxy) {} }
        try chatThroughProxy(port: port)
        let journal = try WireConnection(port: port)
        journal.send("GET /__admin/requests HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let text = try journal.readResponse().text
        XCTAssertTrue(text.contains(#""kind":"websocket""#), text)
        XCTAssertTrue(text.contains(#"{"direction":"received","text":"bye""#) || text.contains(#""text":"bye""#), text)
        XCTAssertTrue(text.contains(#"\"text\":\"via proxy\""#), text)
    }

    func testTheProxyPassesAWebSocketToAnHTTPSUpstream() throws {
        let home = folder([:])
        let chat = try String(contentsOf: Self.root.appendingPathComponent("stubs/chat.json"), encoding: .utf8)
        let upstream = try StubServerProcess(
            ["--dir", folder(["chat.json": chat]).path, "--port", "0", "--no-watch", "--log", "quiet", "--https"],
            environment: ["STUBSERVER_HOME": home.path]
        )
        defer { withExtendedLifetime(upstream) {} }
        let base = try XCTUnwrap(upstream.baseURL())
        let upstreamPort = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""))
        let (proxy, port) = try proxy(
            to: "https://127.0.0.1:\(upstreamPort)",
            ["--proxy-ca", home.appendingPathComponent("ca.pem").path]
        )
        defer { withExtendedLifetime(proxy) {} }
        try chatThroughProxy(port: port)
    }

    func testAWebSocketUpgradeToAnUnreachableUpstreamIsA502() throws {
        let refused = try XCTUnwrap(refusedLoopbackPort())
        defer { close(refused.descriptor) }
        let (proxy, port) = try proxy(to: "http://127.0.0.1:\(refused.port)")
        defer { withExtendedLifetime(proxy) {} }
        let client = try WebSocketWire(port: port)
        XCTAssertEqual(try client.open("/v1/chat").status, 502)
    }

    func testRecordWritesAnEventStreamAndAWebSocketThatReplay() throws {
        let (upstream, upstreamPort) = try serveBundledStubs()
        defer { withExtendedLifetime(upstream) {} }
        let out = folder([:]).appendingPathComponent("recorded")
        let recorder = try StubServerProcess([
            "record", "--proxy", "http://127.0.0.1:\(upstreamPort)", "--out", out.path, "--port", "0", "--log", "quiet",
        ])
        let base = try XCTUnwrap(recorder.baseURL())
        let port = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""))
        let reader = try EventStreamReader(port: port, target: "/v1/orders/42/tracking")
        XCTAssertTrue(reader.wait { $0.ended })
        try chatThroughProxy(port: port)
        recorder.signal(SIGINT)
        XCTAssertEqual(recorder.exitStatus(), 0, recorder.stderr)
        XCTAssertTrue(recorder.stdout.contains("get-v1-chat.json"), recorder.stdout)

        let trackingFile = out.appendingPathComponent("get-v1-orders-42-tracking.json")
        let tracking = try String(contentsOf: trackingFile, encoding: .utf8)
        XCTAssertTrue(tracking.contains(#""events""#) && tracking.contains(#""delay""#), tracking)
        let chat = try String(contentsOf: out.appendingPathComponent("get-v1-chat.json"), encoding: .utf8)
        XCTAssertTrue(chat.contains(#""websocket""#) && chat.contains(#""jsonEquals""#), chat)
        let validate = try runStubServer(["validate", "--dir", out.path])
        XCTAssertEqual(validate.status, 0, validate.stdout + validate.stderr)

        let replay = try StubServerProcess(["--dir", out.path, "--port", "0", "--no-watch", "--log", "quiet"])
        defer { withExtendedLifetime(replay) {} }
        let replayBase = try XCTUnwrap(replay.baseURL())
        let replayPort = try XCTUnwrap(Int(replayBase.split(separator: ":").last ?? ""))
        let replayed = try EventStreamReader(port: replayPort, target: "/v1/orders/42/tracking")
        XCTAssertTrue(replayed.wait { $0.ended })
        XCTAssertEqual(replayed.events.map(\.data), reader.events.map(\.data))
        try chatThroughProxy(port: replayPort)
    }
}
