import Foundation
import TestSupport
import XCTest

/// Named values and `{{json ...}}` through the shipped binary (`STUBSERVER_BINARY` picks another
/// build), which links FoundationEssentials only: one UUID per answer for a name in the
/// `Location` header, the body and the stub's webhook; a request number echoed as a number.
final class BinaryTemplateAnswerTests: XCTestCase {
    func testNamedValuesAndJSONThroughTheBinary() throws {
        let listener = try ScriptedUpstream { _ in [.response(204, "No Content")] }
        defer { listener.stop() }
        let dir = folder([
            "stubs.json": """
            {"request": {"method": "POST", "path": "/orders"},
             "response": {"status": 201, "template": true,
               "headers": {"Location": "{{request.baseUrl}}/orders/{{uuid 'order'}}"},
               "body": {"id": "{{uuid 'order'}}", "qty": "{{json request.json./qty}}",
                        "gift": "{{json request.json./gift}}", "note": "{{json request.json./note}}",
                        "missing": "{{json request.json./nope}}", "line": "{{uuid}}", "at": "{{now}}",
                        "until": "{{now +1d}}"}},
             "webhooks": [{"url": "http://127.0.0.1:\(listener.port)/hooks", "template": true,
                           "body": {"order": "{{uuid 'order'}}", "qty": "{{json request.json./qty}}"}}]}
            """
        ])
        let run = try runStubServer(["validate", "--dir", dir.path])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--log", "quiet"])
        defer { server.signal(SIGTERM) }
        let base = try XCTUnwrap(server.baseURL(), server.stdout + server.stderr)
        var ids: [String] = []
        for _ in 0..<2 {
            let answer = try fetch(
                base + "/orders",
                method: "POST",
                headers: ["Content-Type": "application/json"],
                body: #"{"qty": 2, "gift": true, "note": "say \"hi\""}"#
            )
            XCTAssertEqual(answer.status, 201, answer.body)
            let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
            let id = try XCTUnwrap(body["id"] as? String, answer.body)
            XCTAssertNotNil(UUID(uuidString: id), id)
            XCTAssertEqual(answer.headers["location"], base + "/orders/" + id)
            XCTAssertTrue(answer.body.contains(#""qty":2,"gift":true,"note":"say \"hi\"","missing":null"#), answer.body)
            XCTAssertNotEqual(body["line"] as? String, id)
            let at = try XCTUnwrap(ISO8601DateFormatter().date(from: body["at"] as? String ?? ""), answer.body)
            let until = try XCTUnwrap(ISO8601DateFormatter().date(from: body["until"] as? String ?? ""), answer.body)
            XCTAssertEqual(until.timeIntervalSince(at), 86_400, "one clock reading per answer")
            ids.append(id)
        }
        XCTAssertNotEqual(ids[0], ids[1], "each answer has its own")
        let calls = listener.waitForRequests(2, until: Date().addingTimeInterval(10))
        XCTAssertEqual(calls.count, 2)
        let hooked = calls.compactMap { call in
            (try? JSONSerialization.jsonObject(with: Data(call.body))) as? [String: Any]
        }
        XCTAssertEqual(Set(hooked.compactMap { $0["order"] as? String }), Set(ids), "the webhook shares the answer's")
        XCTAssertEqual(hooked.compactMap { $0["qty"] as? Int }, [2, 2])
    }
}
