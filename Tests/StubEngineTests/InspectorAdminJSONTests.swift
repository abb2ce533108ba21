import Foundation
import HTTP1
import JSON
import NativeStubs
@testable import StubAdmin
@testable import StubEngine
import XCTest

/// What the admin API added for the inspector (docs/admin-api.md): one journal entry by id with
/// its response, a stub's file and line, scenarios with their states, sequences with the
/// response they give next, and the near-miss report's stub ids.
final class InspectorAdminJSONTests: XCTestCase {
    private func admin(
        _ e: Engine,
        _ method: String,
        _ target: String,
        body: String = ""
    ) -> (status: Int, json: JSONNode) {
        let response = e.handle(makeRequest(method, target, body: body)).answered
        return (response.prepared.status, (try? JSONParser.parse(response.prepared.body)) ?? .null)
    }

    func testOneEntryByIDWithWhatWasAnswered() {
        let e = adminEngine(
            #"""
            [{"name": "Token", "request": {"method": "POST", "path": "/token"},
              "response": {"status": 201, "headers": {"X-Trace": "t1"}, "body": {"ok": true}, "delay": 5}},
             {"name": "Broken", "request": {"path": "/broken"}, "response": {"fault": "reset"}},
             {"name": "Binary", "request": {"path": "/bin"}, "response": {"bodyBase64": "AP8A"}}]
            """#
        )
        _ = e.handle(makeRequest("POST", "/token?x=1", body: #"{"user":"a"}"#))
        _ = e.handle(makeRequest("POST", "/tokn"))
        _ = e.handle(makeRequest("GET", "/broken"))
        _ = e.handle(makeRequest("GET", "/bin"))

        let matched = admin(e, "GET", "/__admin/requests/1").json
        XCTAssertEqual(matched["target"]?.string, "/token?x=1")
        XCTAssertEqual(matched["delayMs"]?.number?.value, 5)
        XCTAssertEqual(matched["response"]?["status"]?.number?.value, 201)
        XCTAssertEqual(matched["response"]?["headers"]?["X-Trace"]?.elements?.first?.string, "t1")
        XCTAssertEqual(matched["response"]?["body"]?.string, #"{"ok":true}"#)

        let unmatched = admin(e, "GET", "/__admin/requests/2").json
        XCTAssertEqual(unmatched["response"]?["status"]?.number?.value, 404)
        let closest = unmatched["nearMiss"]?.elements?.first
        XCTAssertEqual(closest?["name"]?.string, "Token")
        XCTAssertEqual(
            closest?["id"]?.string,
            e.catalog.stubs.first { $0.name == "Token" }?.id,
            "the stub to fetch when making a new one"
        )
        XCTAssertEqual(closest?["mismatches"]?.elements?.first?["condition"]?.string, "path")

        let fault = admin(e, "GET", "/__admin/requests/3").json
        XCTAssertEqual(fault["fault"]?.string, "reset")
        XCTAssertNotNil(fault["status"]?.value, "present")
        if case .null? = fault["status"]?.value {
        } else {
            XCTFail("a fault sends no status line: \(fault["status"].map(JSONSerializer.string) ?? "absent")")
        }
        XCTAssertEqual(fault["response"]?["status"]?.number?.value, 200, "what the stub would have answered")
        XCTAssertNil(e.journal.entries[2].status)
        XCTAssertEqual(admin(e, "GET", "/__admin/requests/4").json["response"]?["bodyBase64"]?.string, "AP8A")
        XCTAssertEqual(admin(e, "GET", "/__admin/requests/99").status, 404)
        XCTAssertEqual(admin(e, "DELETE", "/__admin/requests/1").status, 405)
    }

    func testAnEntryTheRingOverwroteIsGone() {
        let e = adminEngine([], options: Engine.Options(journalCapacity: 2))
        for i in 1...5 { _ = e.handle(makeRequest("GET", "/r\(i)")) }
        XCTAssertEqual(admin(e, "GET", "/__admin/requests/3").status, 404)
        XCTAssertEqual(admin(e, "GET", "/__admin/requests/4").json["path"]?.string, "/r4")
        XCTAssertEqual(admin(e, "GET", "/__admin/requests/5").json["path"]?.string, "/r5")
        e.journal.clear()
        XCTAssertEqual(admin(e, "GET", "/__admin/requests/5").status, 404)
        _ = e.handle(makeRequest("GET", "/r6"))
        XCTAssertEqual(admin(e, "GET", "/__admin/requests/6").json["path"]?.string, "/r6", "ids go on after a clear")
    }

    func testFileStubsSayWhereTheyAre() throws {
        let folder = TemporaryFolder()
        folder.write(
            "api.json",
            """
            [\n  {\"request\": {\"path\": \"/a\"}, \"response\": {}},\n\n  {\"request\": {\"path\": \"/b\"}, \
            \"response\": {}}\n]\n
            """
        )
        let e = adminEngine(folder.load().stubs, options: .init())
        let stubs = admin(e, "GET", "/__admin/stubs").json["stubs"]?.elements ?? []
        let locations = stubs.compactMap { $0["location"]?.string }.sorted()
        XCTAssertEqual(locations.count, 2)
        XCTAssertTrue(locations[0].hasSuffix("api.json:2"), "\(locations)")
        XCTAssertTrue(locations[1].hasSuffix("api.json:4"), "\(locations)")
    }

    func testScenariosListTheirStatesAndSequencesTheirNextResponse() {
        let e = adminEngine(
            #"""
            [{"name": "Cart", "request": {"path": "/cart"}, "scenario": {"name": "checkout", "when": "Started", \#
            "then": "paid"}, "response": {}},
             {"name": "Paid", "request": {"path": "/cart"}, "scenario": {"name": "checkout", "when": "paid", "then": \#
            "shipped"}, "response": {}},
             {"name": "Retry", "request": {"path": "/retry"}, "responses": [{"status": 503}, {"status": 200}]}]
            """#
        )
        var json = admin(e, "GET", "/__admin/scenarios").json
        let checkout = json["scenarios"]?.elements?.first
        XCTAssertEqual(checkout?["state"]?.string, "Started")
        XCTAssertEqual(checkout?["states"]?.elements?.compactMap(\.string), ["Started", "paid", "shipped"])
        XCTAssertEqual(json["sequences"]?.elements?.first?["name"]?.string, "Retry")
        XCTAssertEqual(json["sequences"]?.elements?.first?["next"]?.number?.value, 0)
        XCTAssertEqual(json["sequences"]?.elements?.first?["responses"]?.number?.value, 2)
        _ = e.handle(makeRequest("GET", "/retry"))
        _ = e.handle(makeRequest("GET", "/cart"))
        json = admin(e, "GET", "/__admin/scenarios").json
        XCTAssertEqual(json["scenarios"]?.elements?.first?["state"]?.string, "paid")
        XCTAssertEqual(json["sequences"]?.elements?.first?["next"]?.number?.value, 1)
        _ = e.handle(makeRequest("GET", "/retry"))
        XCTAssertEqual(
            admin(e, "GET", "/__admin/scenarios").json["sequences"]?.elements?.first?["next"]?.number?.value,
            1,
            "repeats the last"
        )
    }

    /// An event is the entry's summary: the same keys, the same values as the full entry.
    func testTheEventSummaryAgreesWithTheFullEntry() throws {
        let e = adminEngine(
            #"[{"name": "Slow \"one\"", "request": {"path": "/s"}, "response": {"delay": 7, "fault": "empty"}}]"#
        )
        _ = e.handle(makeRequest("GET", "/s?q=%C3%A9&x=1"))
        _ = e.handle(makeRequest("POST", "/none/%07%22"))
        var encoder = EventEncoder()
        for entry in e.journal.entries {
            var bytes: [UInt8] = []
            encoder.append(entry, to: &bytes)
            let text = String(decoding: bytes, as: UTF8.self)
            XCTAssertTrue(text.hasPrefix("id: \(entry.id)\ndata: {"), text)
            XCTAssertTrue(text.hasSuffix("}\n\n"), text)
            let summary = try JSONParser.parse(Array(text.dropFirst("id: \(entry.id)\ndata: ".count).dropLast(2).utf8))
            let full = AdminJSON.entry(entry)
            for key in ["id", "receivedAt", "method", "path", "target", "status", "durationMs", "delayMs", "fault"] {
                XCTAssertEqual(summary[key].map(JSONSerializer.string), full[key].map(JSONSerializer.string), key)
            }
            XCTAssertTrue(summary["stub"]!.equals(full["stub"]!))
        }
        for (value, text) in [
            (0.0, "0"), (0.1204, "0.12"), (2.5, "2.5"), (3.0, "3"), (0.0049, "0.005"), (1234.5678, "1234.568"),
        ] {
            var out: [UInt8] = []
            EventEncoder.appendMilliseconds(value, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), text)
            XCTAssertEqual(JSONSerializer.string(.number(value, decimals: 3)), text, "the journal's own formatting")
        }
    }
}
