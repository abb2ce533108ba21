import Foundation
import TestSupport
import XCTest

/// The proxy's upstream connections through the binary users run (issue 38, items 1 and 6).
final class ProxyFramingEndToEndTests: XCTestCase {
    private func serve(proxyingTo upstream: ScriptedUpstream, _ extra: [String] = []) throws -> (StubServerProcess, Int)
    {
        let server = try StubServerProcess(
            [
                "--dir", folder([:]).path, "--port", "0", "--log", "quiet",
                "--proxy", "http://127.0.0.1:\(upstream.port)",
            ] + extra
        )
        addTeardownBlock {
            server.signal(SIGTERM)
            _ = server.exitStatus()
        }
        let base = try XCTUnwrap(server.baseURL(), server.stderr)
        let port = try XCTUnwrap(base.split(separator: ":").last.flatMap { Int($0) }, base)
        return (server, port)
    }

    /// Item 1: bytes an upstream sends beyond a response never answer another request.
    func testEveryRequestGetsItsOwnAnswerWhateverTheUpstreamSendsExtra() throws {
        let upstream = try OverframedUpstream.start()
        defer { upstream.stop() }
        let (_, port) = try serve(proxyingTo: upstream)
        var answered = 0
        for testCase in OverframedUpstream.cases {
            let problems = try OverframedUpstream.check(
                testCase,
                proxyPort: port,
                upstream: upstream,
                answeredBefore: answered
            )
            XCTAssertEqual(problems, [], testCase.name)
            answered += 5
        }
    }

    /// Item 6: `--proxy-timeout 1` answers 504 at one second, request after request, also on a
    /// pooled connection (the second request once waited for ever).
    func testTheTimeoutHoldsOnAPooledConnectionAfterA504() throws {
        let upstream = try TimeoutAfterReuse.start()
        defer { upstream.stop() }
        let (_, port) = try serve(proxyingTo: upstream, ["--proxy-timeout", "1"])
        let answers = try TimeoutAfterReuse.run(proxyPort: port, timeoutMilliseconds: 1_000)
        XCTAssertEqual(answers.map(\.status), [504, 504])
        for answer in answers {
            XCTAssertGreaterThanOrEqual(answer.milliseconds, 1_000)
            // Within three times the timeout: slack for a loaded machine (1.5 s failed under
            // load), far below a timer that never fires.
            XCTAssertLessThan(answer.milliseconds, 3_000, "\(answers)")
        }
    }
}
