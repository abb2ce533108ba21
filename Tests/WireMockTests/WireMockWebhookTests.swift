import Foundation
import HTTP1
import StubEngine
import TestSupport
import XCTest

/// WireMock webhooks served in process: `serveEventListeners` (WireMock 3) and both forms of
/// `postServeActions` (WireMock 2), templated over `originalRequest`, with WireMock's delays,
/// sent after the answer through the server's client. Every wait has a deadline.
final class WireMockWebhookTests: XCTestCase {
    func testServeEventListenerWebhookArrivesTemplatedAfterAUniformDelay() throws {
        let listener = try ScriptedUpstream { _ in [.response(200, body: Array("thanks".utf8))] }
        defer { listener.stop() }
        // The webhook's body as a JSON string's contents.
        let hookBody =
            #"{\"id\": \"{{jsonPath originalRequest.body '$.id'}}\", \"status\": \"{{parameters.outcome}}\"}"#
        let mapping = """
            {"request": {"urlPath": "/payments", "method": "POST"},
             "response": {"status": 201, "jsonBody": {"accepted": true}},
             "serveEventListeners": [{"name": "webhook", "parameters": {
               "method": "{{jsonPath originalRequest.body '$.callbackMethod'}}",
               "url": "http://127.0.0.1:\(listener.port)/callback/{{jsonPath originalRequest.body '$.id'}}",
               "headers": {"Content-Type": "application/json", "X-Source": "{{originalRequest.headers.X-Source}}"},
               "body": "\(hookBody)",
               "outcome": "SUCCESS",
               "delay": {"type": "uniform", "lower": 300, "upper": 400}}}]}
            """
        let harness = try WireMockHarness(self, mappings: ["payment.json": mapping])
        XCTAssertEqual(harness.load.warnings, [])
        let sent = Date()
        let answer = try harness.send(
            "POST",
            "/payments",
            headers: [("X-Source", "app")],
            body: #"{"id": "p-7", "callbackMethod": "PUT"}"#
        )
        XCTAssertEqual(answer.status, 201)
        let early = listener.waitForRequests(1, until: sent.addingTimeInterval(0.25))
        XCTAssertEqual(early.count, 0, "not before the delay")
        let arrived = listener.waitForRequests(1, until: Date().addingTimeInterval(10))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(sent), 0.3, "after the delay")
        let call = try XCTUnwrap(arrived.first)
        XCTAssertEqual(call.method, "PUT")
        XCTAssertEqual(call.target, "/callback/p-7")
        XCTAssertEqual(call.header("X-Source"), "app")
        XCTAssertEqual(call.header(Webhook.depthHeader), "1")
        XCTAssertEqual(String(decoding: call.body, as: UTF8.self), #"{"id": "p-7", "status": "SUCCESS"}"#)
    }

    func testPostServeActionsInBothFormsAreSentAndBodiesGoOnlyWithMethodsThatCarryThem() throws {
        let listener = try ScriptedUpstream { _ in [.response(202)] }
        defer { listener.stop() }
        let url = "http://127.0.0.1:\(listener.port)"
        let harness = try WireMockHarness(
            self,
            mappings: [
                // WireMock 2's array form, base64 body.
                "array.json": """
                {"request": {"url": "/array"}, "response": {"status": 200},
                 "postServeActions": [{"name": "webhook", "parameters": {"method": "POST", "url": "\(url)/array",
                                       "base64Body": "aGVsbG8="}}]}
                """,
                // The older object form; GET sends no body, as in WireMock.
                "object.json": """
                {"request": {"url": "/object"}, "response": {"status": 200},
                 "postServeActions": {"webhook": {"url": "\(url)/object?path={{originalRequest.path}}", "body": \
                "dropped",
                                                  "delay": {"type": "fixed", "milliseconds": 10}}}}
                """,
            ]
        )
        XCTAssertEqual(harness.load.warnings, [])
        XCTAssertEqual(try harness.send("GET", "/array").status, 200)
        XCTAssertEqual(try harness.send("GET", "/object").status, 200)
        let calls = listener.waitForRequests(2, until: Date().addingTimeInterval(10))
        XCTAssertEqual(calls.count, 2)
        let array = try XCTUnwrap(calls.first { $0.target == "/array" })
        XCTAssertEqual(array.method, "POST")
        XCTAssertEqual(array.body, Array("hello".utf8))
        let object = try XCTUnwrap(calls.first { $0.target.hasPrefix("/object") })
        XCTAssertEqual(object.method, "GET", "WireMock's default method")
        XCTAssertEqual(object.target, "/object?path=/object")
        XCTAssertEqual(object.body, [])
    }

    func testAMappingWithABrokenWebhookStillServes() throws {
        let harness = try WireMockHarness(
            self,
            mappings: [
                "m.json": """
                {"request": {"url": "/a"}, "response": {"body": "served"},
                 "serveEventListeners": [{"name": "webhook", "parameters": {"url": "{{#if}}"}}, {"name": "audit-log"}]}
                """
            ]
        )
        XCTAssertTrue(harness.load.isServable)
        let warnings = harness.load.warnings.map(\.description)
        let template = "$.serveEventListeners[0].parameters.url: template:"
        XCTAssertTrue(warnings.contains { $0.contains(template) && $0.contains("not sent") }, "\(warnings)")
        let listener = #"$.serveEventListeners[1].name: "audit-log" is a Java extension"#
        XCTAssertTrue(warnings.contains { $0.contains(listener) }, "\(warnings)")
        let answer = try harness.send("GET", "/a")
        XCTAssertEqual(String(decoding: answer.body, as: UTF8.self), "served")
        XCTAssertEqual(harness.engine.webhookLog.all.count, 0)
    }
}
