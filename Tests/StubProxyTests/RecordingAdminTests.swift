import Foundation
import HTTP1
import TestSupport
import XCTest

/// Recording through the admin API on a running server: start (with an upstream of its own, or
/// the server's `--proxy`), status, stop with what was written; the mistakes answered 4xx.
final class RecordingAdminTests: XCTestCase {
    func testStartRecordStopWritesIntoTheStubFolder() throws {
        let upstream = try ScriptedUpstream { request in
            [
                .response(
                    200,
                    headers: [("Content-Type", "application/json")],
                    body: Array(#"{"path":"\#(request.target)"}"#.utf8)
                )
            ]
        }
        let proxy = try ProxyHarness(self, upstream: nil)
        XCTAssertEqual(try proxy.admin("POST", "/__admin/recordings/start").status, 400, "no upstream anywhere")
        let started = try proxy.admin(
            "POST",
            "/__admin/recordings/start",
            #"{"to": "\#(upstreamURL(upstream))", "out": "recorded", "exclude": ["/skip/**"]}"#
        )
        XCTAssertEqual(started.status, 200, "\(started.json)")
        XCTAssertEqual(started.json["recording"] as? Bool, true)
        XCTAssertEqual(
            try proxy.admin("POST", "/__admin/recordings/start", #"{"to": "\#(upstreamURL(upstream))"}"#).status,
            409
        )

        XCTAssertEqual(try proxy.exchange("GET /v1/a HTTP/1.1\r\nHost: a\r\n\r\n").text, #"{"path":"/v1/a"}"#)
        XCTAssertEqual(
            try proxy.exchange("GET /skip/me HTTP/1.1\r\nHost: a\r\n\r\n").status,
            200,
            "forwarded, not recorded"
        )
        XCTAssertEqual(try proxy.admin("GET", "/__admin/recordings/status").json["captured"] as? Int, 1)

        let stopped = try proxy.admin("POST", "/__admin/recordings/stop")
        XCTAssertEqual(stopped.status, 200)
        XCTAssertEqual(stopped.json["written"] as? [String], ["get-v1-a.json"])
        let file = proxy.folder.appendingPathComponent("recorded/get-v1-a.json")
        XCTAssertTrue(try String(contentsOf: file, encoding: .utf8).contains(#""path": "/v1/a""#))
        XCTAssertEqual(try proxy.admin("POST", "/__admin/recordings/stop").status, 409)
        XCTAssertEqual(
            try proxy.exchange("GET /v1/a HTTP/1.1\r\nHost: a\r\n\r\n").status,
            404,
            "the upstream was the recording's only"
        )
    }

    func testTheServersOwnProxyIsUsedAndRestored() throws {
        let upstream = try ScriptedUpstream { _ in [.response(200, body: Array("up".utf8))] }
        let proxy = try ProxyHarness(self, upstream: upstreamURL(upstream))
        XCTAssertEqual(try proxy.admin("POST", "/__admin/recordings/start", #"{"out": "r"}"#).status, 200)
        XCTAssertEqual(try proxy.exchange("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").text, "up")
        XCTAssertEqual(try proxy.admin("POST", "/__admin/recordings/stop").status, 200)
        XCTAssertEqual(
            try proxy.exchange("GET /x HTTP/1.1\r\nHost: a\r\n\r\n").text,
            "up",
            "still proxying after the recording"
        )
    }

    func testBadStartsAreRefused() throws {
        let proxy = try ProxyHarness(self, upstream: "http://127.0.0.1:9")
        for body in [
            #"{"out": "../elsewhere"}"#, #"{"out": "/tmp/abs"}"#, #"{"to": "ftp://x"}"#, #"{"include": ["api/**"]}"#,
            #"{"keepSecrets": "yes"}"#, #"{"unknown": 1}"#, "not json",
        ] {
            XCTAssertEqual(try proxy.admin("POST", "/__admin/recordings/start", body).status, 400, body)
        }
        XCTAssertEqual(try proxy.admin("GET", "/__admin/recordings/status").json["recording"] as? Bool, false)
    }
}
