import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// How tunnels end, through the binary: a side that has hung up altogether while bytes still wait
/// for the other side, and the reasons an intercepted tunnel's record gives.
extension ForwardProxyEndToEndTests {
    /// The upstream sent its end after the client had sent its own: the server's socket to it is
    /// shut both ways (a hang-up, which epoll reports whatever it is asked to watch) while bytes
    /// from it still wait in the relay for a client that reads nothing. Watching that socket on
    /// would wake the loop at once, again and again, until the client reads: the server must stay
    /// idle, then deliver every byte and the end.
    func testAnUpstreamThatHungUpWhileItsBytesWaitForTheClientIdlesTheServer() throws {
        try hangUpWhileBytesWait(fromUpstream: true)
    }

    /// The same with the sides swapped: the client hangs up, the upstream reads nothing.
    func testAClientThatHungUpWhileItsBytesWaitForTheUpstreamIdlesTheServer() throws {
        try hangUpWhileBytesWait(fromUpstream: false)
    }

    private func hangUpWhileBytesWait(fromUpstream: Bool) throws {
        #if os(Linux)
        let upstream = try LoopbackListener()
        let server = try proxy()
        let (client, far) = try tunnel(server, to: upstream, receiveBuffer: 16 * 1024)
        var small: Int32 = 16 * 1024
        setsockopt(far.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let (sender, reader) = fromUpstream ? (far, client) : (client, far)
        reader.send("x")
        reader.shutdownWrite()
        let (asked, senderSawEnd) = sender.readUntilClose()
        XCTAssertEqual(String(decoding: asked, as: UTF8.self), "x")
        XCTAssertTrue(senderSawEnd, "the server passed the reader's end on")
        let total = 8 << 20
        let sending = BackgroundSend(patternBytes(total, seed: 21), on: sender, thenShutDown: true)
        // The reader takes a little at a time until the server has taken everything the sender
        // sent and its end (the sender's socket waits for nothing more): the relay then still
        // holds far more than the reader's small buffer.
        var received: [UInt8] = []
        let deadline = WireConnection.now() + 30_000
        while !sender.endAcknowledged && WireConnection.now() < deadline {
            received += reader.readSome(max: 4096)
        }
        XCTAssertTrue(sender.endAcknowledged, "the server took the sender's end")
        XCTAssertLessThan(received.count, total - (1 << 20), "bytes still wait in the relay")
        // The observation window, not a wait for readiness: an idle loop spends next to nothing.
        let pid = server.process.process.processIdentifier
        let before = try XCTUnwrap(Self.cpuMilliseconds(pid))
        WireConnection.staysSilentFor(milliseconds: 500)
        let spent = try XCTUnwrap(Self.cpuMilliseconds(pid)) - before
        XCTAssertLessThan(spent, 100, "the server spent \(spent) ms of CPU in 500 ms with nothing to do")
        received += reader.readBytes(count: total - received.count)
        XCTAssertTrue(received == patternBytes(total, seed: 21), "every byte, in order")
        XCTAssertTrue(reader.readUntilClose().closed)
        XCTAssertTrue(sending.wait())
        let authority = "127.0.0.1:\(upstream.port)"
        server.process.waitFor("the tunnel's end in the log") { server.process.stdout.contains("\(authority) ended") }
        XCTAssertTrue(server.process.stdout.contains(", closed by both sides"), server.process.stdout)
        #else
        throw XCTSkip("a hang-up reported whatever the interest is epoll's (and poll's)")
        #endif
    }

    #if os(Linux)
    /// User and system CPU time of a process, all its threads (/proc/PID/stat, in clock ticks).
    static func cpuMilliseconds(_ pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Fields 14 and 15 of the line; the first two (pid, name) are before the ")".
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        let ticks = Int(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) * 1000 / max(ticks, 1)
    }
    #endif
}

extension ForwardProxyEndToEndTests {
    /// An intercepted tunnel ends with its connection; its record says why as a blind tunnel's
    /// does: a client that spoke no TLS, one that never began the handshake (the header clock
    /// times it, as a stalled request head) and one quiet after a request (idle). The journal's
    /// `error` and the log's end line both.
    func testAnInterceptedTunnelsRecordSaysWhyItEnded() throws {
        let server = try proxy(["--intercept", "api.example.com", "--idle-timeout", "1", "--header-timeout", "1"])
        let connect = "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n"
        let plain = try WireConnection(port: server.port)
        plain.send(connect)
        XCTAssertTrue(String(decoding: plain.readUntil(suffix: "\r\n\r\n"), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        plain.send("GET /v1/me HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        XCTAssertTrue(plain.readUntilClose().closed)
        let silent = try WireConnection(port: server.port)
        silent.send(connect)
        XCTAssertTrue(String(decoding: silent.readUntil(suffix: "\r\n\r\n"), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        XCTAssertTrue(silent.waitForClose(timeoutMilliseconds: 10_000))
        // A TLS client that asks once, keeps the connection and says nothing more.
        let script = """
            import socket, ssl, sys
            s = socket.create_connection(("127.0.0.1", \(server.port)))
            s.sendall(b"\(connect.replacingOccurrences(of: "\r\n", with: "\\r\\n"))")
            head = b""
            while not head.endswith(b"\\r\\n\\r\\n"):
                head += s.recv(1)
            t = ssl.create_default_context(cafile=sys.argv[1]).wrap_socket(s, server_hostname="api.example.com")
            t.sendall(b"GET /v1/me HTTP/1.1\\r\\nHost: api.example.com\\r\\n\\r\\n")
            answer = b""
            while not answer.endswith(b"me"):
                answer += t.recv(4096)
            try:
                while t.recv(4096):
                    pass
            except (ssl.SSLError, OSError):
                pass
            print("closed")
            """
        let idle = TLSTools.run("python3", ["-c", script, server.ca])
        XCTAssertEqual(idle.stdout, "closed\n", idle.all)
        server.process.waitFor("the three tunnels' ends in the log") {
            server.process.stdout.components(separatedBy: " ended INTERCEPT open ").count == 4
        }
        let errors = try journal(server).compactMap { $0["tunnel"] as? [String: Any] }.map { $0["error"] as? String }
        XCTAssertEqual(
            errors,
            [
                // The silent client is cut off by the header clock, which times the handshake.
                "the client did not start TLS", "no TLS handshake within 1 s (the header timeout)",
                "idle for 1 s (the idle timeout)",
            ]
        )
        let log = server.process.stdout
        for error in errors.compactMap({ $0 }) {
            XCTAssertTrue(log.contains(": \(error)"), "the log's end line says \(error):\n\(log)")
        }
    }
}
