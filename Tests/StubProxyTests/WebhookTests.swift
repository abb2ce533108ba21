import Foundation
import HTTP1
import HTTPSockets
import StubEngine
import StubProxy
import TestSupport
import XCTest

/// A stub's `"webhooks"` served in process over real sockets: the call reaches a loopback
/// listener after its delay with its templated parts, a call to the server itself stops at the
/// depth limit, and a refused port is recorded as a failure. Every wait has a deadline.
final class WebhookTests: XCTestCase {
    /// The webhook calls the event stream reports, latest state of each, by id.
    static func calls(_ events: EventStreamReader) -> [Int: [String: Any]] {
        var calls: [Int: [String: Any]] = [:]
        for event in events.named("webhook") {
            guard let call = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any],
                let id = call["id"] as? Int
            else { continue }
            calls[id] = call
        }
        return calls
    }

    /// Reads the stream until `count` calls are in `state` (or ten seconds pass).
    static func waitFor(_ state: String, count: Int = 1, in events: EventStreamReader) -> Bool {
        events.wait(timeoutMilliseconds: 10_000) { reader in
            calls(reader).values.filter { $0["state"] as? String == state }.count >= count
        }
    }

    func testTemplatedWebhookArrivesAfterItsDelayWithTheRequestInIt() throws {
        let listener = try ScriptedUpstream { _ in [.response(204, "No Content")] }
        defer { listener.stop() }
        let stubs = """
            [{"name": "order", "request": {"method": "POST", "path": "/orders/{id}"}, "response": {"status": 202},
              "webhooks": [{"url": \
            "http://127.0.0.1:\(listener.port)/hooks/{{request.path.id}}?from={{request.method}}",
                            "template": true, "delay": 400,
                            "headers": {"X-Customer": "{{request.json./customer}}"},
                            "body": {"order": "{{request.path.id}}", "customer": "{{request.json./customer}}",
                                     "fixed": 1}}]}]
            """
        let harness = try ProxyHarness(self, upstream: nil, stubs: stubs)
        let events = try EventStreamReader(port: harness.server.port, target: "/__admin/events")
        defer { events.close() }
        let body = #"{"customer": "Ada \"L\""}"#
        let sent = Date()
        let head = "POST /orders/42 HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        let answer = try harness.exchange(head + body)
        XCTAssertEqual(answer.status, 202)
        // The answer came first; the call waits for its 400 ms.
        let early = listener.waitForRequests(1, until: sent.addingTimeInterval(0.3))
        XCTAssertEqual(early.count, 0, "not before the delay")
        let arrived = listener.waitForRequests(1, until: Date().addingTimeInterval(10))
        let elapsed = Date().timeIntervalSince(sent)
        XCTAssertEqual(arrived.count, 1)
        XCTAssertGreaterThanOrEqual(elapsed, 0.4, "after the delay")
        let call = try XCTUnwrap(arrived.first)
        XCTAssertEqual(call.method, "POST")
        XCTAssertEqual(call.target, "/hooks/42?from=POST")
        XCTAssertEqual(call.header("X-Customer"), #"Ada "L""#)
        XCTAssertEqual(call.header("Content-Type"), "application/json")
        XCTAssertEqual(call.header(Webhook.depthHeader), "1")
        XCTAssertEqual(call.header("Host"), "127.0.0.1:\(listener.port)")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(call.body)) as? [String: Any])
        XCTAssertEqual(json["order"] as? String, "42")
        XCTAssertEqual(json["customer"] as? String, #"Ada "L""#, "a JSON body's values are escaped")
        XCTAssertEqual(json["fixed"] as? Int, 1)

        // Journaled with its outcome, in the event stream and the admin API.
        XCTAssertTrue(Self.waitFor("sent", in: events), "the stream reports the call's end")
        let listed = try harness.admin("GET", "/__admin/webhooks")
        let record = try XCTUnwrap((listed.json["webhooks"] as? [[String: Any]])?.first)
        XCTAssertEqual(record["status"] as? Int, 204)
        XCTAssertEqual(record["url"] as? String, "http://127.0.0.1:\(listener.port)/hooks/42?from=POST")
        XCTAssertEqual(record["delayMs"] as? Int, 400)
        XCTAssertEqual(record["trigger"] as? String, "POST /orders/42")
        XCTAssertNotNil(record["durationMs"] as? Int)
        XCTAssertEqual((record["stub"] as? [String: Any])?["name"] as? String, "order")
    }

    func testAWebhookThatCallsTheServerItselfStopsAtTheDepthLimit() throws {
        let listener = try ScriptedUpstream { _ in [.response(200)] }
        defer { listener.stop() }
        // Each call to /loop calls /loop again (on this server) and tells the listener.
        let stubs = """
            [{"request": {"path": "/loop"}, "response": {"status": 200},
              "webhooks": [{"url": "{{request.baseUrl}}/loop", "method": "GET", "template": true},
                           {"url": "http://127.0.0.1:\(listener.port)/seen", "method": "GET"}]}]
            """
        let harness = try ProxyHarness(self, upstream: nil, stubs: stubs)
        let events = try EventStreamReader(port: harness.server.port, target: "/__admin/events")
        defer { events.close() }
        let first = try harness.exchange("GET /loop HTTP/1.1\r\nHost: 127.0.0.1:\(harness.server.port)\r\n\r\n")
        XCTAssertEqual(first.status, 200)
        let limit = Webhook.depthLimit
        let seen = listener.waitForRequests(limit, until: Date().addingTimeInterval(20))
        // One call per depth (rounds overlap, so they may arrive out of order).
        let depths = seen.compactMap { $0.header(Webhook.depthHeader).flatMap { Int($0) } }
        XCTAssertEqual(depths.sorted(), Array(1...limit))
        // The request at the limit makes no call: both of its webhooks are recorded as skipped.
        XCTAssertTrue(Self.waitFor("skipped", count: 2, in: events))
        let after = listener.waitForRequests(limit + 1, until: Date().addingTimeInterval(0.5))
        XCTAssertEqual(after.count, limit, "no call past the limit")
        let skipped = Self.calls(events).values.filter { $0["state"] as? String == "skipped" }
        XCTAssertEqual(skipped.count, 2)
        let reasons = skipped.compactMap { $0["error"] as? String }
        XCTAssertTrue(reasons.allSatisfy { $0.contains("the limit is \(limit)") }, "\(reasons)")
        let served = harness.engine.journal.entries.filter { $0.path == "/loop" }
        XCTAssertEqual(served.count, limit + 1, "the client's request and \(limit) calls")
    }

    func testARefusedCallIsRecordedAsAFailure() throws {
        let refused = try XCTUnwrap(refusedLoopbackPort())
        defer { close(refused.descriptor) }
        let stubs = """
            {"request": {"path": "/notify"}, "response": {"body": "ok"},
             "webhooks": [{"url": "http://127.0.0.1:\(refused.port)/hook", "body": "x"}]}
            """
        let harness = try ProxyHarness(self, upstream: nil, stubs: stubs)
        let events = try EventStreamReader(port: harness.server.port, target: "/__admin/events")
        defer { events.close() }
        XCTAssertEqual(try harness.exchange("GET /notify HTTP/1.1\r\nHost: a\r\n\r\n").status, 200)
        XCTAssertTrue(Self.waitFor("failed", in: events))
        let call = try XCTUnwrap(Self.calls(events).values.first)
        XCTAssertTrue((call["error"] as? String)?.contains("cannot connect") == true, "\(call)")
        XCTAssertTrue(call["status"] is NSNull)
        XCTAssertEqual(call["method"] as? String, "POST", "a native webhook is a POST unless it says otherwise")
        XCTAssertEqual(call["body"] as? String, "x")
    }

    func testAForwardingStubsWebhookWaitsForTheUpstreamsAnswer() throws {
        let upstream = try ScriptedUpstream { request in
            request.target == "/hook" ? [.response(200)] : [.pause(milliseconds: 300), .response(201)]
        }
        defer { upstream.stop() }
        let harness = try ProxyHarness(
            self,
            upstream: nil,
            stubs: """
                {"request": {"path": "/create"}, "response": {"proxy": {"to": "http://127.0.0.1:\(upstream.port)"}},
                 "webhooks": [{"url": "http://127.0.0.1:\(upstream.port)/hook", "method": "GET"}]}
                """
        )
        let sent = Date()
        XCTAssertEqual(try harness.exchange("GET /create HTTP/1.1\r\nHost: a\r\n\r\n").status, 201)
        let both = upstream.waitForRequests(2, until: Date().addingTimeInterval(10))
        XCTAssertEqual(both.map(\.target), ["/create", "/hook"], "the call follows the forwarded answer")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(sent), 0.3)
    }

    func testAResetClearsTheCalls() throws {
        let listener = try ScriptedUpstream { _ in [.response(200)] }
        defer { listener.stop() }
        let harness = try ProxyHarness(
            self,
            upstream: nil,
            stubs: """
                {"request": {"path": "/a"}, "response": {}, "webhooks": [{"url": "http://127.0.0.1:\(listener.port)/"}]}
                """
        )
        XCTAssertEqual(try harness.exchange("GET /a HTTP/1.1\r\nHost: a\r\n\r\n").status, 200)
        XCTAssertEqual(listener.waitForRequests(1, until: Date().addingTimeInterval(10)).count, 1)
        XCTAssertEqual(harness.engine.webhookLog.all.count, 1)
        XCTAssertEqual(try harness.admin("POST", "/__admin/reset").status, 200)
        XCTAssertEqual((try harness.admin("GET", "/__admin/webhooks").json["webhooks"] as? [Any])?.count, 0)
    }
}
