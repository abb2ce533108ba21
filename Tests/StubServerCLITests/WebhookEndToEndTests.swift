import Foundation
import TestSupport
import XCTest

/// Webhooks through the shipped binary (`STUBSERVER_BINARY` picks another build): a stub file's
/// and a WireMock folder's webhook reach a loopback listener after their delay with the request
/// templated in; a mapping that calls the server itself stops at the depth limit; a refused
/// port is recorded as a failure. Every wait has a deadline; readiness is the ready line.
final class WebhookEndToEndTests: XCTestCase {
    static let depthHeader = "X-Stubserver-Webhook-Depth"
    static let depthLimit = 5

    /// The calls the event stream reported, the latest state of each, by id.
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

    static func waitFor(_ state: String, count: Int = 1, in events: EventStreamReader) -> Bool {
        events.wait(timeoutMilliseconds: 10_000) { reader in
            calls(reader).values.filter { $0["state"] as? String == state }.count >= count
        }
    }

    static func port(_ base: String) -> Int { Int(base.split(separator: ":").last ?? "") ?? 0 }

    func testAStubFilesWebhookArrivesTemplatedAfterItsDelay() throws {
        let listener = try ScriptedUpstream { _ in [.response(204, "No Content")] }
        defer { listener.stop() }
        let refused = try XCTUnwrap(refusedLoopbackPort())
        defer { close(refused.descriptor) }
        let dir = folder([
            "stubs.json": """
            [{"name": "order", "request": {"method": "POST", "path": "/orders/{id}"}, "response": {"status": 202},
              "webhooks": [{"url": "http://127.0.0.1:\(listener.port)/hooks/{{request.path.id}}", "template": true,
                            "delay": 300, "body": {"order": "{{request.path.id}}", "note": "{{request.json./note}}"}},
                           {"url": "http://127.0.0.1:\(refused.port)/nobody", "method": "PUT"}]}]
            """
        ])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--log", "quiet"])
        defer { server.signal(SIGTERM) }
        let base = try XCTUnwrap(server.baseURL())
        let events = try EventStreamReader(port: Self.port(base), target: "/__admin/events")
        defer { events.close() }
        let sent = Date()
        let answer = try fetch(
            base + "/orders/7",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"note": "ring \"twice\""}"#
        )
        XCTAssertEqual(answer.status, 202)
        let early = listener.waitForRequests(1, until: sent.addingTimeInterval(0.2))
        XCTAssertEqual(early.count, 0, "not before the delay")
        let call = try XCTUnwrap(listener.waitForRequests(1, until: Date().addingTimeInterval(10)).first)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(sent), 0.3, "after the delay")
        XCTAssertEqual(call.method, "POST")
        XCTAssertEqual(call.target, "/hooks/7")
        XCTAssertEqual(call.header(Self.depthHeader), "1")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(call.body)) as? [String: String])
        XCTAssertEqual(json, ["order": "7", "note": #"ring "twice""#])
        // Both calls are journaled with how they ended.
        XCTAssertTrue(Self.waitFor("sent", in: events) && Self.waitFor("failed", in: events), "\(Self.calls(events))")
        let failed = try XCTUnwrap(Self.calls(events).values.first { $0["state"] as? String == "failed" })
        XCTAssertTrue((failed["error"] as? String)?.contains("cannot connect") == true, "\(failed)")
        let listed = try fetch(base + "/__admin/webhooks")
        let list = try JSONSerialization.jsonObject(with: Data(listed.body.utf8)) as? [String: Any]
        let webhooks = try XCTUnwrap(list?["webhooks"] as? [[String: Any]])
        XCTAssertEqual(webhooks.compactMap { $0["status"] as? Int }, [204])
    }

    func testAWireMockFoldersWebhooksRunAndASelfCallStopsAtTheLimit() throws {
        let listener = try ScriptedUpstream { _ in [.response(200)] }
        defer { listener.stop() }
        let hookBody = #"{\"id\": \"{{jsonPath originalRequest.body '$.id'}}\"}"#
        let dir = folder([
            "mappings/pay.json": """
            {"request": {"urlPath": "/payments", "method": "POST"}, "response": {"status": 201},
             "serveEventListeners": [{"name": "webhook", "parameters": {
               "method": "POST", "url": "http://127.0.0.1:\(listener.port)/paid",
               "headers": {"Content-Type": "application/json"}, "body": "\(hookBody)",
               "delay": {"type": "uniform", "lower": 300, "upper": 350}}}]}
            """,
            "mappings/loop.json": """
            {"request": {"url": "/loop"}, "response": {"status": 200},
             "postServeActions": [{"name": "webhook", "parameters": {"url": "{{originalRequest.baseUrl}}/loop"}},
                                  {"name": "webhook", "parameters": {"url": "http://127.0.0.1:\(listener.port)/seen"}}]}
            """,
        ])
        let server = try StubServerProcess(["--wiremock", dir.path, "--port", "0", "--log", "quiet"])
        defer { server.signal(SIGTERM) }
        let base = try XCTUnwrap(server.baseURL())
        let events = try EventStreamReader(port: Self.port(base), target: "/__admin/events")
        defer { events.close() }

        let sent = Date()
        XCTAssertEqual(try fetch(base + "/payments", method: "POST", body: #"{"id": "p-9"}"#).status, 201)
        let early = listener.waitForRequests(1, until: sent.addingTimeInterval(0.25))
        XCTAssertEqual(early.count, 0, "not before the delay")
        let paid = try XCTUnwrap(listener.waitForRequests(1, until: Date().addingTimeInterval(10)).first)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(sent), 0.3, "after the delay")
        XCTAssertEqual(paid.target, "/paid")
        XCTAssertEqual(String(decoding: paid.body, as: UTF8.self), #"{"id": "p-9"}"#)

        XCTAssertEqual(try fetch(base + "/loop").status, 200)
        let all = listener.waitForRequests(1 + Self.depthLimit, until: Date().addingTimeInterval(20))
        let seen = all.filter { $0.target == "/seen" }
        // One call per depth (rounds overlap, so they may arrive out of order).
        let depths = seen.compactMap { $0.header(Self.depthHeader).flatMap { Int($0) } }
        XCTAssertEqual(depths.sorted(), Array(1...Self.depthLimit))
        XCTAssertTrue(Self.waitFor("skipped", count: 2, in: events), "\(Self.calls(events))")
        let after = listener.waitForRequests(2 + Self.depthLimit, until: Date().addingTimeInterval(0.5))
        XCTAssertEqual(after.count, 1 + Self.depthLimit, "no call past the limit")
    }
}
