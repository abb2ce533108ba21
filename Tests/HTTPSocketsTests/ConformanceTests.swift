import TestSupport
import Foundation
import Testing
import HTTP1
@testable import HTTPSockets

/// The shared corpora of request vectors from other servers' test suites (see
/// `../shared/corpora/http/README.md`), read in place. A fresh clone has no `../shared`: then
/// the replay is skipped, with the reason shown.
private let corpusDirectory = Corpus.directory(testFile: #filePath)

/// Replays every vector of each suite against a real server over a real socket and compares our
/// status (or a close without response) with the suite's expectation. Fails on a hang, on a
/// server that no longer serves afterwards, on a disagreement missing from
/// `DeliberateDivergences`, and on an entry there that no longer disagrees. docs/http.md has
/// the figures and the reasons.
@Suite struct ConformanceTests {
    @Test(
        "Replay an HTTP/1.1 conformance corpus",
        .enabled(
            if: corpusDirectory != nil,
            """
            HTTP corpus folder not found (../shared/corpora/http next to the package, or \
            $STUBSERVER_HTTP_CORPUS): conformance replay skipped
            """
        ),
        arguments: ConformanceSuite.allCases
    )
    func replay(_ suite: ConformanceSuite) async throws {
        let directory = try #require(corpusDirectory)
        let entries = try Corpus.load(suite, from: directory)
        let vectors = entries.compactMap { entry -> ConformanceVector? in
            if case .replay(let v) = entry { return v }
            return nil
        }
        let skipped = entries.count - vectors.count
        #expect(!entries.isEmpty, "\(suite): no vectors loaded")
        #expect(Set(vectors.map(\.id)).count == vectors.count, "\(suite): vector ids are not unique")

        // A short header timeout, so vectors that stop mid-request get their 408 quickly.
        try await withServer({
            $0.headerTimeoutMilliseconds = 500
            $0.idleTimeoutMilliseconds = 500
        }) { server in
            let port = server.port
            let started = WireConnection.now()
            let outcomes = await runOnThreads(count: vectors.count, width: 16) { i in
                Replay.exchange(vectors[i], port: port)
            }
            let elapsed = WireConnection.now() - started

            // The server must still serve a fresh request after the whole suite.
            let after = try WireConnection(port: port)
            after.send("GET /after-\(suite) HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let response = try after.readResponse()
            #expect(
                response.status == 200 && response.text == "GET /after-\(suite) 0",
                "\(suite): server no longer serves after the replay"
            )

            let allowed = DeliberateDivergences.bySuite[suite] ?? [:]
            var agree = 0
            var divergences: [String] = []
            for (vector, outcome) in zip(vectors, outcomes) {
                let detail =
                    """
                    \(suite) \(vector.id): expected \(vector.expectation), got \(outcome); request \
                    \"\(vector.escaped)\"
                    """
                switch outcome {
                case .silent, .connectFailed:
                    Issue.record("hang or failure: \(detail)")
                    continue
                default:
                    break
                }
                if vector.expectation.accepts(outcome) {
                    agree += 1
                    if allowed[vector.id] != nil {
                        Issue.record("stale allow-list entry (now agrees): \(detail)")
                    }
                } else if let reason = allowed[vector.id] {
                    divergences.append("  \(vector.id): expected \(vector.expectation), got \(outcome) (\(reason))")
                } else {
                    Issue.record("undocumented disagreement: \(detail)")
                }
            }
            let ids = Set(vectors.map(\.id))
            for id in allowed.keys where !ids.contains(id) {
                Issue.record("\(suite): allow-list entry \(id) matches no replayed vector")
            }
            print(
                "conformance \(suite): \(entries.count) vectors, \(vectors.count) replayed, \(agree) agree, "
                    + "\(divergences.count) deliberate divergences, \(skipped) not replayable (\(elapsed) ms)"
            )
            // STUBSERVER_CONFORMANCE_VERBOSE=1 lists the divergences and skips; =2 every outcome.
            if let verbose = ProcessInfo.processInfo.environment["STUBSERVER_CONFORMANCE_VERBOSE"] {
                divergences.forEach { print($0) }
                for case .skip(let id, let reason) in entries { print("  skipped \(id): \(reason)") }
                if verbose == "2" {
                    for (vector, outcome) in zip(vectors, outcomes) { print("  \(suite) \(vector.id): \(outcome)") }
                }
            }
        }
    }
}

/// Known, deliberate divergences: vector id → why we answer differently. Each is also listed,
/// with the same reason, in docs/http.md ("Conformance").
enum DeliberateDivergences {
    static let method =
        "methods are open-ended tokens (RFC 9110 §9.1); a mock server dispatches any method to its stubs"
    static let connect = "CONNECT asks for a tunnel, which we do not implement: 501 (RFC 9110 §9.1 SHOULD)"
    static let regName = "a valid RFC 3986 reg-name; Apache refuses look-alike IPv4 numbers as policy"
    static let malformedVersion =
        "not HTTP-version syntax (RFC 9112 §2.3: DIGIT \".\" DIGIT), so 400; "
        + "505 is for a well-formed unsupported major"
    static let fragment = "a request-target has no fragment (RFC 9112 §3.2); stricter than llhttp, as Cowboy is"
    static let notURIChar = "not a URI character (RFC 3986 §2); must be percent-encoded; stricter than llhttp"
    static let notHTTP = "RTSP and ICE are other protocols; we serve HTTP/1.x only"

    static let bySuite: [ConformanceSuite: [String: String]] = [
        .apache: [
            "#2": method,
            "#13": "HTTP/2.0 is a major version we do not serve: 505 (RFC 9110 §15.6.6); Apache answers it as 1.1",
            "#43": regName,
            "#44": regName,
            "#46": regName,
            "#47": "a valid RFC 3986 reg-name (pct-encoded); Apache refuses encoded host names as policy",
        ],
        .cowboy: [
            "#69 reject_invalid_version_http100": malformedVersion,
            "#70 reject_invalid_version_http111": malformedVersion,
            "#71 reject_invalid_version_http12":
                "a higher 1.x minor is served as 1.1 (RFC 9110 §6.2 SHOULD); 505 is Cowboy policy",
            "#72 reject_invalid_version_http2": malformedVersion,
            "#73 reject_empty_version": malformedVersion,
            "#116 reject_unknown_transfer_encoding": "an unknown transfer coding gets 501 (RFC 9112 §6.1 SHOULD)",
            "#117 reject_unknown_transfer_encoding": "an unknown transfer coding gets 501 (RFC 9112 §6.1 SHOULD)",
            "#153 reject_absolute_form_different_host":
                "absolute-form overrides Host, which MUST be ignored (RFC 9112 §3.2.2)",
            "#155 reject_non_authoritative_host": "a mock server answers for any host; stubs can match on it",
        ],
        .go: [
            "#7 TestServerValidatesHostHeader":
                """
            an unbracketed IPv6 address is not uri-host syntax: an invalid Host MUST get 400 (RFC 9112 \
            §3.2); Apache agrees
            """,
            "#19 TestServerValidatesHostHeader": "no HTTP/2 prior knowledge: the h2 preface is a 2.0 request line, 505",
            "#20 TestServerValidatesHostHeader": connect,
        ],
        .http11probe: [
            "COMP-HOST-EMPTY-VALUE":
                """
            an empty Host is valid (uri-host may be empty; RFC 9110 §7.2 even requires it when the URI has \
            no authority); Go and Cowboy agree
            """,
            "COMP-UNKNOWN-METHOD": method,
            "MAL-POST-CL-HUGE-NO-BODY": "an announced body over the 32 MiB limit gets 413 at once (RFC 9110 §15.5.14)",
            "NORM-UNDERSCORE-CL":
                "Content_Length is a distinct, valid field name (RFC 9110 §5.1): kept as sent, never used for framing",
            "NORM-UNDERSCORE-TE":
                """
            Transfer_Encoding is a distinct, valid field name (RFC 9110 §5.1): kept as sent, never used for \
            framing
            """,
        ],
        .llhttp: [
            "invalid.md:69": method,
            "invalid.md:359": method,
            "method.md:30": connect,
            "method.md:65": connect,
            "method.md:99": connect,
            "uri.md:191": connect,
            "method.md:138":
                "asterisk-form is only for OPTIONS (RFC 9112 §3.2.4); SSDP's M-SEARCH * is HTTPU, not HTTP",
            "method.md:375": notHTTP,
            "method.md:405": notHTTP,
            "method.md:433": notHTTP,
            "sample.md:317": "HTTP/0.9 simple requests are not served: the request line needs a version (RFC 9112 §3)",
            "transfer-encoding.md:754": fragment,
            "transfer-encoding.md:796": fragment,
            "uri.md:168": fragment,
            "uri.md:7": notURIChar,
            "uri.md:105": notURIChar,
            "uri.md:225": "userinfo in an http URI is an error (RFC 9110 §4.2.4 SHOULD)",
        ],
    ]
}
