import Foundation
import TestSupport
import XCTest

/// An upstream that sends more than the response it owes must never have those bytes read as
/// the next request's answer: the connection they arrived on is closed, not pooled. Before,
/// after `GET /extra` the next request got the smuggled answer and the one after got the
/// previous one's. Each case on a fresh proxy and upstream, over real sockets.
final class ResponseFramingTests: XCTestCase {
    func testEveryRequestGetsItsOwnAnswerWhateverTheUpstreamSendsExtra() throws {
        for testCase in OverframedUpstream.cases {
            let upstream = try OverframedUpstream.start()
            defer { upstream.stop() }
            let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
            let problems = try OverframedUpstream.check(testCase, proxyPort: proxy.server.port, upstream: upstream)
            XCTAssertEqual(problems, [], testCase.name)
        }
    }

    /// A connection whose response left bytes unread is closed at once, so the upstream sees
    /// its side close: the proxy holds no poisoned connection, even briefly in the pool.
    func testTheConnectionWithExtraBytesIsClosed() throws {
        let upstream = try OverframedUpstream.start()
        defer { upstream.stop() }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        let response = try proxy.exchange("GET /extra HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(response.text, "ok")
        let deadline = WireConnection.now() + 5_000
        while upstream.openConnectionCount > 0 && WireConnection.now() < deadline {
            WireConnection.staysSilentFor(milliseconds: 10)
        }
        XCTAssertEqual(upstream.openConnectionCount, 0)
    }
}
