import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTP1
import StubEngine
import TestSupport
import XCTest

/// Upstreams that are not there, do not answer, or lose their client: the proxy answers 502 or
/// 504 with a JSON body that names the upstream and why, promptly, and keeps serving others.
final class FailureTests: XCTestCase {
    /// A port nothing listens on, held for the test (see `refusedLoopbackPort`).
    private func closedPort() throws -> Int {
        let held = try XCTUnwrap(refusedLoopbackPort())
        addTeardownBlock { close(held.descriptor) }
        return held.port
    }

    /// What the proxy's timers are measured against: an answer at a timeout comes at it or
    /// after (strictly), and within three times it. The slack is for a loaded machine (a loop
    /// thread can wait a second for a core), far below what a timer that never fires, or one
    /// that waits the 30 s default, would take. (Bounds of 100 ms, or 10% over a timeout,
    /// failed under load.)
    static let timeoutSlack = 3

    func testClosedPortGives502Quickly() throws {
        let port = try closedPort()
        let proxy = try ProxyHarness(self, upstream: "http://127.0.0.1:\(port)") { rule in
            rule.timeoutMilliseconds = 30_000
        }
        let start = WireConnection.now()
        let response = try proxy.exchange("GET /x HTTP/1.1\r\nHost: a\r\n\r\n", timeoutMilliseconds: 30_000)
        let elapsed = WireConnection.now() - start
        XCTAssertEqual(response.status, 502)
        // Refused is answered as it happens, not at the 30 s timeout.
        XCTAssertLessThan(elapsed, 5_000)
        let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String]
        XCTAssertEqual(body?["upstream"], "http://127.0.0.1:\(port)")
        XCTAssertTrue(body?["reason"]?.contains("refused") ?? false, "\(body ?? [:])")
        XCTAssertEqual(response.header("X-Stubserver-Proxy"), "error")
    }

    func testSilentUpstreamGives504AtTheTimeout() throws {
        let silent = try ScriptedUpstream { _ in [.hang] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(silent)) { rule in
            rule.timeoutMilliseconds = 1_000
        }
        let waiting = try proxy.connect()
        let start = WireConnection.now()
        waiting.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
        let response = try waiting.readResponse(timeoutMilliseconds: 10_000)
        let elapsed = WireConnection.now() - start
        XCTAssertEqual(response.status, 504)
        XCTAssertGreaterThanOrEqual(elapsed, 1_000)
        XCTAssertLessThan(elapsed, 1_000 * Self.timeoutSlack)
        XCTAssertTrue(response.text.contains("did not answer in time"))
    }

    /// A request waiting on a silent upstream holds up nobody: stubs are answered while it
    /// waits (it can only end at its 30 s timeout, so each answer must come before its 504).
    func testStubsAreAnsweredWhileARequestWaitsOnASilentUpstream() throws {
        let silent = try ScriptedUpstream { _ in [.hang] }
        let proxy = try ProxyHarness(
            self,
            upstream: upstreamURL(silent),
            stubs: #"{"request": {"path": "/alive"}, "response": {"body": "yes"}}"#
        ) { rule in
            rule.timeoutMilliseconds = 30_000
        }
        let waiting = try proxy.connect()
        waiting.send("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertTrue(silent.waitForRequests(1, until: Date().addingTimeInterval(10)).count == 1, "forwarded")
        let other = try proxy.connect()
        for _ in 0..<3 {
            other.send("GET /alive HTTP/1.1\r\nHost: a\r\n\r\n")
            XCTAssertEqual(try other.readResponse().text, "yes")
            XCTAssertTrue(waiting.staysSilent(milliseconds: 0), "still waiting for the upstream")
        }
        waiting.close()
    }

    /// The timeout holds for requests on pooled connections, request after request: once the
    /// first 504 had come, the next request on a pooled connection waited for ever.
    func testTheTimeoutHoldsOnAPooledConnectionAfterA504() throws {
        let upstream = try TimeoutAfterReuse.start()
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream)) { rule in rule.timeoutMilliseconds = 1_000 }
        let answers = try TimeoutAfterReuse.run(proxyPort: proxy.server.port, timeoutMilliseconds: 1_000)
        XCTAssertEqual(answers.map(\.status), [504, 504])
        for answer in answers {
            XCTAssertGreaterThanOrEqual(answer.milliseconds, 1_000)
            XCTAssertLessThan(answer.milliseconds, 1_000 * Self.timeoutSlack, "\(answers)")
        }
    }

    func testUnresolvableNameGives502() throws {
        let proxy = try ProxyHarness(self, upstream: "http://no-such-host.invalid:9")
        let response = try proxy.exchange("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(response.status, 502)
        XCTAssertTrue(response.text.contains("no-such-host.invalid"))
    }

    /// A GET that meets a pooled connection the upstream has closed is sent again on a new
    /// connection, also to an upstream given by name: the retry once had no address to go to
    /// (a reused connection's exchange has none, and a name has no numeric one) and answered
    /// 502 "no address".
    /// (Where localhost resolves to ::1 first, the refused ::1 is passed over for 127.0.0.1.)
    func testARequestOnAStalePooledConnectionIsRetriedForANamedUpstream() throws {
        let upstream = try ScriptedUpstream { request in
            // The second request on the first connection finds it closed, before any answer.
            if request.connection == 0 && request.target == "/second" { return [.close] }
            return [.response(200, body: Array("from \(request.connection)".utf8))]
        }
        let proxy = try ProxyHarness(self, upstream: "http://localhost:\(upstream.port)")
        let c = try proxy.connect()
        c.send("GET /first HTTP/1.1\r\nHost: a\r\n\r\n")
        let one = try c.readResponse()
        XCTAssertEqual(one.status, 200)
        XCTAssertEqual(one.text, "from 0")
        c.send("GET /second HTTP/1.1\r\nHost: a\r\n\r\n")
        let two = try c.readResponse()
        XCTAssertEqual(two.status, 200, two.text)
        XCTAssertEqual(two.text, "from 1", "sent again, on a new connection")
        XCTAssertEqual(
            upstream.requests.map { "\($0.target)@\($0.connection)" },
            ["/first@0", "/second@0", "/second@1"]
        )
    }

    func testGarbageFromUpstreamGives502() throws {
        let upstream = try ScriptedUpstream { _ in [.send(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8)), .close] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(response.status, 502)
    }

    func testClientLeavingMidBodyClosesTheUpstreamConnection() throws {
        let upstream = try ScriptedUpstream { _ in
            [
                .send(
                    Array("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n".utf8)
                        + [UInt8](repeating: 1, count: 1 << 16)
                ), .hang,
            ]
        }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let c = try proxy.connect()
        c.send("GET /big HTTP/1.1\r\nHost: a\r\n\r\n")
        _ = c.readUntil(suffix: "\r\n\r\n")
        c.close()
        // The upstream's hang step returns once the proxy closes its side.
        let deadline = WireConnection.now() + 3_000
        var closed = false
        while WireConnection.now() < deadline {
            if openUpstreamConnections(upstream) == 0 {
                closed = true
                break
            }
            _ = WireConnection.staysSilentFor(milliseconds: 20)
        }
        XCTAssertTrue(closed, "the proxy dropped the upstream request")
    }

    private func openUpstreamConnections(_ upstream: ScriptedUpstream) -> Int { upstream.openConnectionCount }

    func testJournalMarksProxiedRequests() throws {
        let upstream = try ScriptedUpstream { _ in [.response(201, body: Array("made".utf8))] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        _ = try proxy.exchange("POST /orders HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}")
        let journal = try proxy.exchange("GET /__admin/requests HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(journal.body)) as? [String: Any])
        let entries = try XCTUnwrap(object["requests"] as? [[String: Any]])
        let entry = try XCTUnwrap(entries.first { ($0["path"] as? String) == "/orders" })
        let proxied = try XCTUnwrap(entry["proxy"] as? [String: Any], "\(entry)")
        XCTAssertEqual(proxied["upstream"] as? String, upstreamURL(upstream))
        XCTAssertEqual(proxied["status"] as? Int, 201)
        XCTAssertNotNil(proxied["ms"] ?? proxied["milliseconds"])
    }
}
