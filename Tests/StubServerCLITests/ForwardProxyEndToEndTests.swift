import Foundation
import TestSupport
import XCTest

/// `--forward-proxy` and `--intercept` through the binary, with curl as the proxy client
/// (`curl -x`): stubbed and forwarded http hosts, intercepted https hosts (exact and wildcard)
/// verified against the local CA, a blind tunnel whose upstream's own certificate verifies, and
/// what the journal says of each. No internet: every host is a stub, or a local upstream.
final class ForwardProxyEndToEndTests: XCTestCase {
    struct Proxy {
        let process: StubServerProcess
        let port: Int
        let ca: String
        var url: String { "http://127.0.0.1:\(port)" }
    }

    static let stubs = [
        "me.json":
            #"{"request": {"method": "GET", "path": "/v1/me", "host": "api.example.com"}, "response": {"body": "me"}}"#,
        "wild.json": #"{"request": {"path": "/w", "host": "deep.x.example.org"}, "response": {"body": "wildcard"}}"#,
    ]

    override func setUpWithError() throws {
        for tool in ["curl", "openssl", "python3"] where !TLSTools.available(tool) {
            throw XCTSkip("\(tool) is not installed")
        }
    }

    func proxy(_ extra: [String] = [], stubs: [String: String] = stubs, directory: URL? = nil) throws -> Proxy {
        let home = folder([:])
        let process = try StubServerProcess(
            ["--dir", (directory ?? folder(stubs)).path, "--port", "0", "--forward-proxy"] + extra,
            environment: ["STUBSERVER_HOME": home.path]
        )
        addTeardownBlock {
            process.signal(SIGTERM)
            _ = process.exitStatus()
        }
        _ = try XCTUnwrap(process.readyLine())
        let base = try XCTUnwrap(process.baseURL())
        let port = try XCTUnwrap(Int(base.split(separator: ":").last!))
        return Proxy(process: process, port: port, ca: home.appendingPathComponent("ca.pem").path)
    }

    /// curl through the proxy; `ca` verifies the server the client reaches (through the tunnel).
    func curl(_ proxy: Proxy, _ url: String, ca: String? = nil, _ extra: [String] = []) -> TLSTools.Run {
        TLSTools.run(
            "curl",
            ["-sS", "--max-time", "20", "-x", proxy.url] + (ca.map { ["--cacert", $0] } ?? []) + extra + [url]
        )
    }

    func journal(_ proxy: Proxy) throws -> [[String: Any]] {
        let answer = try fetch("\(proxy.url)/__admin/requests")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        return try XCTUnwrap(object["requests"] as? [[String: Any]], answer.body)
    }

    func testAStubbedHTTPHostAndAForwardedOne() throws {
        let upstream = try StubServerProcess(
            [
                "--dir",
                folder(["up.json": #"{"request": {"path": "/up"}, "response": {"body": "from upstream"}}"#]).path,
                "--port", "0",
            ]
        )
        addTeardownBlock {
            upstream.signal(SIGTERM)
            _ = upstream.exitStatus()
        }
        _ = try XCTUnwrap(upstream.readyLine())
        let upstreamBase = try XCTUnwrap(upstream.baseURL())
        let server = try proxy()
        let stubbed = curl(server, "http://api.example.com/v1/me")
        XCTAssertEqual(stubbed.stdout, "me", stubbed.all)
        let forwarded = curl(server, "\(upstreamBase)/up")
        XCTAssertEqual(forwarded.stdout, "from upstream", forwarded.all)
        let entries = try journal(server)
        XCTAssertEqual(entries.map { $0["host"] as? String }, ["api.example.com", String(upstreamBase.dropFirst(7))])
        XCTAssertEqual((entries[1]["proxy"] as? [String: Any])?["upstream"] as? String, upstreamBase)
    }

    func testInterceptedHostsExactAndWildcardAreAnsweredByStubsOverTheLocalCA() throws {
        let server = try proxy(["--intercept", "api.example.com,*.example.org"])
        let exact = curl(server, "https://api.example.com/v1/me", ca: server.ca)
        XCTAssertEqual(exact.status, 0, exact.all)
        XCTAssertEqual(exact.stdout, "me")
        let wildcard = curl(server, "https://deep.x.example.org/w", ca: server.ca)
        XCTAssertEqual(wildcard.status, 0, wildcard.all)
        XCTAssertEqual(wildcard.stdout, "wildcard")
        // The leaf names the host, and nothing verifies without the CA.
        let untrusted = curl(server, "https://api.example.com/v1/me")
        XCTAssertNotEqual(untrusted.status, 0, untrusted.all)
        let entries = try journal(server)
        let inside = entries.filter { ($0["method"] as? String) == "GET" }
        XCTAssertEqual(inside.map { $0["host"] as? String }, ["api.example.com", "deep.x.example.org"])
        XCTAssertEqual(inside.compactMap { $0["via"] as? String }.first, "https://api.example.com:443")
        let tunnels = entries.compactMap { $0["tunnel"] as? [String: Any] }
        XCTAssertEqual(tunnels.map { $0["mode"] as? String }, ["intercept", "intercept", "intercept"])
        XCTAssertEqual(
            tunnels.map { $0["host"] as? String },
            ["api.example.com", "deep.x.example.org", "api.example.com"]
        )
        // Each has an opening line and an ending one, which claims nothing of who closed it.
        server.process.waitFor("the intercepted tunnels' ends in the log") {
            server.process.stdout.components(separatedBy: " ended INTERCEPT open ").count == 4
        }
        let log = server.process.stdout
        XCTAssertEqual(log.components(separatedBy: " 200 INTERCEPT TLS ended here").count, 4, log)
        XCTAssertFalse(log.contains("closed by both sides"), log)
    }

    func testANonInterceptedHostIsABlindTunnelItsOwnCertificateVerifies() throws {
        let upstream = try TLSUpstream()
        let server = try proxy(["--intercept", "api.example.com"])
        let run = curl(server, "https://127.0.0.1:\(upstream.port)/through", ca: upstream.caFile, ["--compressed"])
        XCTAssertEqual(run.status, 0, run.all)
        XCTAssertEqual(run.stdout, #"{"secure": true}"#)
        // The proxy's own CA cannot verify it: the upstream's certificate came through untouched.
        let wrongCA = curl(server, "https://127.0.0.1:\(upstream.port)/through", ca: server.ca)
        XCTAssertNotEqual(wrongCA.status, 0, wrongCA.all)
        let entries = try journal(server)
        XCTAssertEqual(entries.count, 2, "a blind tunnel is one entry: nothing inside it is seen")
        let tunnel = try XCTUnwrap(entries[0]["tunnel"] as? [String: Any])
        XCTAssertEqual(entries[0]["method"] as? String, "CONNECT")
        XCTAssertEqual(entries[0]["status"] as? Int, 200)
        XCTAssertEqual(tunnel["mode"] as? String, "relay")
        XCTAssertEqual(tunnel["state"] as? String, "closed")
        XCTAssertGreaterThan(tunnel["bytesFromClient"] as? Int ?? 0, 100)
        XCTAssertGreaterThan(tunnel["bytesToClient"] as? Int ?? 0, 500, "the upstream's certificate came back")
        XCTAssertNotNil(tunnel["durationMs"] as? Int)
    }

    func testAnInterceptedRequestNoStubAnswersGoesToTheRealHostOverTLS() throws {
        let upstream = try TLSUpstream()
        let server = try proxy(["--intercept", "localhost", "--proxy-ca", upstream.caFile])
        let run = curl(server, "https://localhost:\(upstream.port)/real?q=1", ca: server.ca, ["--compressed", "-i"])
        XCTAssertEqual(run.status, 0, run.all)
        XCTAssertTrue(run.stdout.contains(#"{"secure": true}"#), run.all)
        XCTAssertTrue(run.stdout.lowercased().contains("x-seen-host: localhost:\(upstream.port)"), run.all)
        XCTAssertTrue(run.stdout.lowercased().contains("x-seen-path: /real?q=1"), run.all)
        let inside = try journal(server).first { ($0["method"] as? String) == "GET" }
        XCTAssertEqual(
            (inside?["proxy"] as? [String: Any])?["upstream"] as? String,
            "https://localhost:\(upstream.port)"
        )
    }

    func testConnectToAnUnreachableHostIsA502WithTheReason() throws {
        let server = try proxy()
        let refused = try XCTUnwrap(refusedLoopbackPort())
        defer { close(refused.descriptor) }
        let wire = try WireConnection(port: server.port)
        defer { wire.close() }
        wire.send("CONNECT 127.0.0.1:\(refused.port) HTTP/1.1\r\nHost: 127.0.0.1:\(refused.port)\r\n\r\n")
        let response = try wire.readResponse()
        XCTAssertEqual(response.status, 502)
        XCTAssertTrue(response.text.contains("cannot connect to 127.0.0.1:\(refused.port)"), response.text)
        XCTAssertTrue(response.text.lowercased().contains("refused"), response.text)
        let entry = try XCTUnwrap(try journal(server).first)
        XCTAssertEqual(entry["status"] as? Int, 502)
        XCTAssertEqual((entry["tunnel"] as? [String: Any])?["state"] as? String, "failed")
    }

    func testMalformedConnectAndAbsoluteTargetsGet400() throws {
        let server = try proxy()
        for line in [
            "CONNECT api.example.com HTTP/1.1", "CONNECT api.example.com:0 HTTP/1.1", "CONNECT :443 HTTP/1.1",
            "GET http:///x HTTP/1.1", "GET http://user@api.example.com/ HTTP/1.1",
            "GET ftp://api.example.com/ HTTP/1.1",
        ] {
            let wire = try WireConnection(port: server.port)
            defer { wire.close() }
            wire.send("\(line)\r\nHost: api.example.com\r\n\r\n")
            XCTAssertEqual(try wire.readResponse().status, 400, line)
        }
    }

    func testAClientThatDoesNotSpeakTLSInsideAnInterceptedTunnelIsClosedAlone() throws {
        let server = try proxy(["--intercept", "api.example.com"])
        let wire = try WireConnection(port: server.port)
        defer { wire.close() }
        wire.send("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n")
        let established = String(decoding: wire.readUntil(suffix: "\r\n\r\n"), as: UTF8.self)
        XCTAssertTrue(established.hasPrefix("HTTP/1.1 200 Connection Established"), established)
        // Another client, meanwhile, is served.
        let other = curl(server, "https://api.example.com/v1/me", ca: server.ca)
        XCTAssertEqual(other.stdout, "me", other.all)
        wire.send("GET /v1/me HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        let (bytes, closed) = wire.readUntilClose()
        XCTAssertTrue(closed)
        XCTAssertTrue(bytes.isEmpty, String(decoding: bytes, as: UTF8.self))
        let again = curl(server, "https://api.example.com/v1/me", ca: server.ca)
        XCTAssertEqual(again.stdout, "me", again.all)
    }

    func testAnIdleTunnelIsClosedAtTheIdleTimeout() throws {
        let upstream = try TLSUpstream()
        let server = try proxy(["--idle-timeout", "1"])
        let wire = try WireConnection(port: server.port)
        defer { wire.close() }
        wire.send("CONNECT 127.0.0.1:\(upstream.port) HTTP/1.1\r\nHost: 127.0.0.1:\(upstream.port)\r\n\r\n")
        let established = String(decoding: wire.readUntil(suffix: "\r\n\r\n"), as: UTF8.self)
        XCTAssertTrue(established.hasPrefix("HTTP/1.1 200"), established)
        let started = WireConnection.now()
        XCTAssertTrue(wire.waitForClose(timeoutMilliseconds: 10_000))
        XCTAssertGreaterThanOrEqual(WireConnection.now() - started, 900)
        let tunnel = try XCTUnwrap(try journal(server).first?["tunnel"] as? [String: Any])
        XCTAssertEqual(tunnel["state"] as? String, "closed")
        XCTAssertEqual(tunnel["error"] as? String, "idle for 1 s (the idle timeout)")
        let authority = "127.0.0.1:\(upstream.port)"
        server.process.waitFor("the tunnel's end in the log") { server.process.stdout.contains("\(authority) ended") }
        XCTAssertTrue(
            server.process.stdout.contains(": idle for 1 s (the idle timeout)"),
            "the log says why the tunnel ended:\n\(server.process.stdout)"
        )
    }

    /// A blind tunnel to a local listener: the client's end (past the `200`) and the upstream's.
    func tunnel(
        _ proxy: Proxy,
        to upstream: LoopbackListener,
        receiveBuffer: Int32? = nil
    ) throws -> (client: WireConnection, far: WireConnection) {
        let client = try WireConnection(port: proxy.port, receiveBuffer: receiveBuffer)
        client.send("CONNECT 127.0.0.1:\(upstream.port) HTTP/1.1\r\nHost: 127.0.0.1:\(upstream.port)\r\n\r\n")
        let far = try upstream.accept()
        let head = String(decoding: client.readUntil(suffix: "\r\n\r\n"), as: UTF8.self)
        XCTAssertEqual(head, "HTTP/1.1 200 Connection Established\r\n\r\n")
        return (client, far)
    }

    func testATunnelCarriesEveryByteBothWaysAndItsEndIsLoggedAndJournaled() throws {
        let upstream = try LoopbackListener()
        let server = try proxy()
        let (client, far) = try tunnel(server, to: upstream)
        let toUpstream = patternBytes(4 << 20, seed: 11)
        let toClient = patternBytes(4 << 20, seed: 12)
        let up = BackgroundSend(toUpstream, on: client, thenShutDown: true)
        let down = BackgroundSend(toClient, on: far, thenShutDown: true)
        XCTAssertTrue(client.readBytes(count: toClient.count) == toClient, "the client got all, as sent")
        XCTAssertTrue(far.readBytes(count: toUpstream.count) == toUpstream, "the upstream got all, as sent")
        XCTAssertTrue(up.wait() && down.wait())
        XCTAssertTrue(client.readUntilClose().closed)
        XCTAssertTrue(far.readUntilClose().closed)
        let authority = "127.0.0.1:\(upstream.port)"
        server.process.waitFor("the tunnel's end in the log") { server.process.stdout.contains("\(authority) ended") }
        let log = server.process.stdout
        XCTAssertTrue(log.contains("CONNECT \(authority) 200 TUNNEL blind, to \(authority)"), log)
        XCTAssertTrue(log.contains("CONNECT \(authority) ended TUNNEL 4.2 MB up, 4.2 MB down, open "), log)
        XCTAssertTrue(log.contains(", closed by both sides"), log)
        let tunnel = try XCTUnwrap(try journal(server).first?["tunnel"] as? [String: Any])
        XCTAssertEqual(tunnel["state"] as? String, "closed")
        XCTAssertEqual(tunnel["bytesFromClient"] as? Int, toUpstream.count)
        XCTAssertEqual(tunnel["bytesToClient"] as? Int, toClient.count)
        XCTAssertNil(tunnel["error"], "both sides closed")
    }

    func testHalfClosesPassThroughTheTunnelEachWay() throws {
        let upstream = try LoopbackListener()
        let server = try proxy()
        // The client ends first; the upstream still answers.
        let (client, far) = try tunnel(server, to: upstream)
        client.send("question")
        client.shutdownWrite()
        let (asked, upstreamSawEnd) = far.readUntilClose()
        XCTAssertEqual(String(decoding: asked, as: UTF8.self), "question")
        XCTAssertTrue(upstreamSawEnd)
        far.send("answer")
        far.shutdownWrite()
        let (answer, clientSawEnd) = client.readUntilClose()
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "answer")
        XCTAssertTrue(clientSawEnd)
        // The upstream ends first; the client still sends.
        let (client2, far2) = try tunnel(server, to: upstream)
        far2.send("greeting")
        far2.shutdownWrite()
        let (greeting, client2SawEnd) = client2.readUntilClose()
        XCTAssertEqual(String(decoding: greeting, as: UTF8.self), "greeting")
        XCTAssertTrue(client2SawEnd)
        client2.send("reply")
        client2.shutdownWrite()
        let (reply, far2SawEnd) = far2.readUntilClose()
        XCTAssertEqual(String(decoding: reply, as: UTF8.self), "reply")
        XCTAssertTrue(far2SawEnd)
        server.process.waitFor("both tunnels' ends in the log") {
            server.process.stdout.components(separatedBy: "closed by both sides").count == 3
        }
    }

    func testAnUpstreamResetMidTransferIsLoggedAndJournaledAsOne() throws {
        let upstream = try LoopbackListener()
        let server = try proxy()
        let (client, far) = try tunnel(server, to: upstream)
        far.send(patternBytes(1 << 20, seed: 13))
        far.reset()
        XCTAssertTrue(client.readUntilClose(timeoutMilliseconds: 10_000).closed)
        XCTAssertTrue(client.sawReset, "the client is reset in turn: a cut-off stream must not look complete")
        let authority = "127.0.0.1:\(upstream.port)"
        server.process.waitFor("the tunnel's end in the log") { server.process.stdout.contains("\(authority) ended") }
        XCTAssertTrue(server.process.stdout.contains(": the upstream reset the connection"), server.process.stdout)
        let tunnel = try XCTUnwrap(try journal(server).first?["tunnel"] as? [String: Any])
        XCTAssertEqual(tunnel["state"] as? String, "closed")
        XCTAssertEqual(tunnel["error"] as? String, "the upstream reset the connection")
    }

    func testASlowReaderHoldsTheUpstreamBackNotTheServersMemory() throws {
        #if os(Linux)
        let upstream = try LoopbackListener()
        let server = try proxy()
        let (client, far) = try tunnel(server, to: upstream, receiveBuffer: 16 * 1024)
        let pid = server.process.process.processIdentifier
        let before = try XCTUnwrap(Self.residentKilobytes(pid))
        let total = 128 << 20
        let down = BackgroundSend([UInt8](repeating: 7, count: total), on: far)
        var stalledAt = -1
        var unchangedSamples = 0
        let deadline = WireConnection.now() + 20_000
        while unchangedSamples < 5 && WireConnection.now() < deadline {
            WireConnection.staysSilentFor(milliseconds: 100)
            unchangedSamples = down.sent == stalledAt ? unchangedSamples + 1 : 0
            stalledAt = down.sent
        }
        XCTAssertLessThan(stalledAt, total / 2, "with nobody reading, the upstream is held back")
        let grown = try XCTUnwrap(Self.residentKilobytes(pid)) - before
        XCTAssertLessThan(grown, 16 * 1024, "the server's memory grew \(grown) kB while the client read nothing")
        var received = 0
        while received < total {
            let piece = client.readBytes(count: 1 << 20)
            if piece.isEmpty { break }
            received += piece.count
        }
        XCTAssertEqual(received, total)
        XCTAssertTrue(down.wait())
        #else
        throw XCTSkip("reads the server's memory from /proc")
        #endif
    }

    /// A process's resident memory (VmRSS in /proc/PID/status), in kB.
    static func residentKilobytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    func testATunnelHoldsAConnectionSlot() throws {
        let upstream = try TLSUpstream()
        let server = try proxy(["--max-connections", "1"])
        let tunnel = try WireConnection(port: server.port)
        tunnel.send("CONNECT 127.0.0.1:\(upstream.port) HTTP/1.1\r\nHost: 127.0.0.1:\(upstream.port)\r\n\r\n")
        let established = String(decoding: tunnel.readUntil(suffix: "\r\n\r\n"), as: UTF8.self)
        XCTAssertTrue(established.hasPrefix("HTTP/1.1 200"), established)
        // The open tunnel is not idle in the server's eyes: a second client waits for its slot.
        let waiting = try WireConnection(port: server.port)
        defer { waiting.close() }
        waiting.send("GET /v1/me HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        XCTAssertTrue(waiting.staysSilent(milliseconds: 500))
        tunnel.close()
        XCTAssertEqual(try waiting.readResponse(timeoutMilliseconds: 10_000).text, "me")
    }

    func testBeyondLoopbackTheProxyNeedsTheAdminToken() throws {
        guard let address = Self.nonLoopbackAddress() else {
            throw XCTSkip("this machine has no address but loopback to reach the proxy from")
        }
        let server = try proxy(["--host", "0.0.0.0", "--admin-token", "T0ken"])
        let remote = Proxy(process: server.process, port: server.port, ca: server.ca)
        let url = "http://\(address):\(server.port)"
        let refused = TLSTools.run(
            "curl",
            ["-sS", "-i", "--max-time", "20", "-x", url, "http://api.example.com/v1/me"]
        )
        XCTAssertTrue(refused.stdout.hasPrefix("HTTP/1.1 407"), refused.all)
        XCTAssertTrue(refused.stdout.contains("Proxy-Authenticate: Basic"), refused.all)
        let allowed = TLSTools.run(
            "curl",
            ["-sS", "--max-time", "20", "-x", url, "--proxy-user", "phone:T0ken", "http://api.example.com/v1/me"]
        )
        XCTAssertEqual(allowed.stdout, "me", allowed.all)
        // Loopback clients need no token.
        XCTAssertEqual(curl(remote, "http://api.example.com/v1/me").stdout, "me")
    }

    func testRecordingThroughTheProxyWritesStubsWithHostConditions() throws {
        let upstream = try TLSUpstream()
        let plain = try StubServerProcess(
            [
                "--dir", folder(["up.json": #"{"request": {"path": "/plain"}, "response": {"body": "plain"}}"#]).path,
                "--port", "0",
            ]
        )
        addTeardownBlock {
            plain.signal(SIGTERM)
            _ = plain.exitStatus()
        }
        _ = try XCTUnwrap(plain.readyLine())
        let plainBase = try XCTUnwrap(plain.baseURL())
        let out = folder([:]).appendingPathComponent("recorded")
        let home = folder([:])
        let recorder = try StubServerProcess(
            [
                "record", "--forward-proxy", "--intercept", "localhost", "--proxy-ca", upstream.caFile,
                "--out", out.path, "--port", "0",
            ],
            environment: ["STUBSERVER_HOME": home.path]
        )
        let ready = try XCTUnwrap(recorder.readyLine())
        XCTAssertTrue(ready.contains("recording what the hosts proxy clients call answers"), ready)
        let base = try XCTUnwrap(recorder.baseURL())
        let server = Proxy(
            process: recorder,
            port: try XCTUnwrap(Int(base.split(separator: ":").last!)),
            ca: home.appendingPathComponent("ca.pem").path
        )
        let secure = curl(server, "https://localhost:\(upstream.port)/secure", ca: server.ca, ["--compressed"])
        XCTAssertEqual(secure.stdout, #"{"secure": true}"#, secure.all)
        XCTAssertEqual(curl(server, "\(plainBase)/plain").stdout, "plain")
        recorder.signal(SIGTERM)
        XCTAssertEqual(recorder.exitStatus(), 0, recorder.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".json") }
        let texts = try files.map { try String(contentsOf: out.appendingPathComponent($0), encoding: .utf8) }
        let all = texts.joined(separator: "\n")
        XCTAssertEqual(files.count, 2, all)
        XCTAssertTrue(all.contains(#""host": "localhost""#), all)
        XCTAssertTrue(all.contains(#""host": "127.0.0.1""#), all)
        // Served again, the recording answers through the proxy with no upstream running.
        let replay = try proxy(directory: out)
        XCTAssertEqual(curl(replay, "\(plainBase)/plain").stdout, "plain")
    }

    /// An IPv4 address of this machine other than loopback, if it has one.
    static func nonLoopbackAddress() -> String? {
        let run = TLSTools.run("python3", ["-c", Self.addressScript])
        let address = run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return run.status == 0 && !address.isEmpty && !address.hasPrefix("127.") ? address : nil
    }

    static let addressScript = """
        import socket
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.connect(("192.0.2.1", 9))
            print(s.getsockname()[0])
        except OSError:
            pass
        """
}
