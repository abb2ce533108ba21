import Foundation
import HTTP1
import JSON
import NativeStubs
import StubAdmin
@testable import StubEngine
import XCTest

final class AdminAPITests: XCTestCase {
    private func admin(
        _ e: Engine,
        _ method: String,
        _ target: String,
        body: String = "",
        headers: [(String, String)] = [],
        file: StaticString = #filePath,
        line: UInt = #line
    ) -> (status: Int, json: JSONNode) {
        let outcome = e.handle(makeRequest(method, target, headers: headers, body: body, file: file, line: line))
        XCTAssertTrue(outcome.isAdmin || outcome.refusal != nil, file: file, line: line)
        let response = outcome.answered
        XCTAssertEqual(response.prepared.headers["Content-Type"], "application/json", file: file, line: line)
        let json = (try? JSONParser.parse(response.prepared.body)) ?? .null
        return (response.prepared.status, json)
    }

    func testHealth() {
        let e = adminEngine(loadStubs(#"[{"response": {}}, {"response": {}}]"#), options: .init(version: "9.9"))
        let (status, json) = admin(e, "GET", "/__admin/health")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["status"]?.string, "ok")
        XCTAssertEqual(json["stubs"]?.number?.value, 2)
        XCTAssertEqual(json["version"]?.string, "9.9")
        XCTAssertNotNil(json["uptimeSeconds"]?.number)
    }

    func testRuntimeStubsAddListGetReplaceDelete() {
        let e = adminEngine(#"{"name": "file", "request": {"path": "/x"}, "response": {"body": "file"}}"#)
        let added = admin(
            e,
            "POST",
            "/__admin/stubs",
            body:
                #"""
                [{"name": "rt", "request": {"path": "/x"}, "response": {"body": "runtime"}}, {"request": {"path": \#
                "/y"}, "response": {}}]
                """#
        )
        XCTAssertEqual(added.status, 201)
        let ids = added.json["ids"]?.elements?.compactMap(\.string) ?? []
        XCTAssertEqual(ids.count, 2)
        XCTAssertEqual(
            e.handle(makeRequest("GET", "/x")).answered.bodyText,
            "runtime",
            "runtime before file at equal rank"
        )

        let list = admin(e, "GET", "/__admin/stubs").json["stubs"]?.elements ?? []
        XCTAssertEqual(list.count, 3)
        XCTAssertEqual(list.first?["id"]?.string, ids[0], "match order")
        XCTAssertEqual(list.first?["source"]?.string, "runtime")
        XCTAssertEqual(list.last?["source"]?.string, "file:\(list.last?["id"]?.string?.dropFirst(5) ?? "")")
        XCTAssertEqual(list.first?["request"]?["path"]?.string, "/x")

        XCTAssertEqual(admin(e, "GET", "/__admin/stubs/\(ids[0])").json["name"]?.string, "rt")
        let replaced = admin(
            e,
            "PUT",
            "/__admin/stubs/\(ids[0])",
            body: #"{"name": "rt2", "request": {"path": "/x"}, "response": {"body": "replaced"}}"#
        )
        XCTAssertEqual(replaced.status, 200)
        XCTAssertEqual(replaced.json["id"]?.string, ids[0], "ids are stable across PUT")
        XCTAssertEqual(e.handle(makeRequest("GET", "/x")).answered.bodyText, "replaced")

        XCTAssertEqual(admin(e, "DELETE", "/__admin/stubs/\(ids[0])").status, 200)
        XCTAssertEqual(e.handle(makeRequest("GET", "/x")).answered.bodyText, "file")
        XCTAssertEqual(admin(e, "DELETE", "/__admin/stubs/\(ids[0])").status, 404)
        let fileID = e.catalog.stubs.first { $0.name == "file" }!.id
        XCTAssertEqual(
            admin(e, "DELETE", "/__admin/stubs/\(fileID.replacingOccurrences(of: "#", with: "%23"))").status,
            400
        )
        XCTAssertEqual(admin(e, "DELETE", "/__admin/stubs").status, 200)
        XCTAssertEqual(e.catalog.count, 1)
    }

    func testRuntimeStubsSurviveAFileReload() {
        let e = adminEngine(#"{"request": {"path": "/f"}, "response": {}}"#)
        _ = admin(
            e,
            "POST",
            "/__admin/stubs",
            body: #"{"request": {"path": "/rt"}, "response": {"body": "still here"}}"#
        )
        e.replace(with: loadStubs(#"{"request": {"path": "/g"}, "response": {}}"#))
        XCTAssertEqual(e.handle(makeRequest("GET", "/rt")).answered.bodyText, "still here")
    }

    func testABadRuntimeStubGetsTheSameMessagesAsABadFile() {
        let e = adminEngine()
        let bad = admin(e, "POST", "/__admin/stubs", body: #"{"reqeust": {}, "response": {"status": 700}}"#)
        XCTAssertEqual(bad.status, 400)
        let errors = bad.json["errors"]?.elements?.compactMap(\.string) ?? []
        XCTAssertEqual(errors.count, 2)
        XCTAssertTrue(
            errors[0].contains(
                #"request body:1:2: error: $.reqeust: unknown key "reqeust" in a stub; did you mean "request"?"#
            ),
            errors[0]
        )
        XCTAssertTrue(errors[1].contains("$.response.status: expected an HTTP status from 100 to 599"), errors[1])
        let syntax = admin(e, "POST", "/__admin/stubs", body: "{")
        XCTAssertEqual(syntax.status, 400)
        XCTAssertTrue(syntax.json["error"]?.string?.contains("request body:1:2") ?? false)
        XCTAssertEqual(
            admin(e, "POST", "/__admin/stubs", body: #"{"request": {"path": "/__admin/x"}, "response": {}}"#).status,
            400
        )
    }

    func testJournalListFiltersFindCountAndUnmatched() {
        let e = adminEngine(
            #"{"name": "login", "request": {"method": "POST", "path": "/login"}, "response": {"status": 200}}"#
        )
        _ = e.handle(
            makeRequest(
                "POST",
                "/login?lang=en",
                headers: [("Content-Type", "application/json"), ("X-A", "1"), ("x-a", "2")],
                body: #"{"user":"ann"}"#
            )
        )
        _ = e.handle(makeRequest("GET", "/missing"))
        _ = e.handle(makeRequest("POST", "/login", body: #"{"user":"bob"}"#))
        _ = admin(e, "GET", "/__admin/health")

        let all = admin(e, "GET", "/__admin/requests").json["requests"]?.elements ?? []
        XCTAssertEqual(all.count, 3, "admin requests are not journaled")
        let first = all[0]
        XCTAssertEqual(first["method"]?.string, "POST")
        XCTAssertEqual(first["path"]?.string, "/login")
        XCTAssertEqual(first["query"]?["lang"]?.elements?.first?.string, "en")
        XCTAssertEqual(first["headers"]?["X-A"]?.elements?.count, 1, "names as received")
        XCTAssertEqual(first["body"]?.string, #"{"user":"ann"}"#)
        XCTAssertEqual(first["stub"]?["name"]?.string, "login")
        XCTAssertEqual(first["status"]?.number?.value, 200)
        XCTAssertNotNil(first["durationMs"]?.number)
        XCTAssertNotNil(
            first["receivedAt"]?.string.flatMap { ISO8601DateFormatter.withFractionalSeconds.date(from: $0) }
        )

        XCTAssertEqual(admin(e, "GET", "/__admin/requests?method=GET").json["requests"]?.elements?.count, 1)
        XCTAssertEqual(
            admin(e, "GET", "/__admin/requests?unmatched=true").json["requests"]?.elements?.first?["path"]?.string,
            "/missing"
        )
        let firstID = Int(first["id"]!.number!.value)
        XCTAssertEqual(admin(e, "GET", "/__admin/requests?since=\(firstID)").json["requests"]?.elements?.count, 2)
        XCTAssertEqual(
            admin(e, "GET", "/__admin/requests?limit=1").json["requests"]?.elements?.first?["body"]?.string,
            #"{"user":"bob"}"#
        )

        let found = admin(
            e,
            "POST",
            "/__admin/requests/find",
            body: #"{"method": "POST", "body": {"json": {"user": "ann"}}}"#
        )
        XCTAssertEqual(found.json["requests"]?.elements?.count, 1)
        XCTAssertEqual(
            admin(e, "POST", "/__admin/requests/count", body: #"{"path": "/login"}"#).json["count"]?.number?.value,
            2
        )
        XCTAssertEqual(admin(e, "POST", "/__admin/requests/count", body: #"{"pth": "/login"}"#).status, 400)

        let unmatched = admin(e, "GET", "/__admin/requests/unmatched").json["requests"]?.elements ?? []
        XCTAssertEqual(unmatched.count, 1)
        XCTAssertEqual(unmatched.first?["nearMiss"]?.elements?.first?["name"]?.string, "login")

        XCTAssertEqual(admin(e, "DELETE", "/__admin/requests").status, 200)
        XCTAssertEqual(admin(e, "GET", "/__admin/requests").json["requests"]?.elements?.count, 0)
    }

    func testABodyThatIsNotTextIsJournaledAsBase64() {
        let e = adminEngine(#"{"response": {}}"#)
        var request = makeRequest("POST", "/bin")
        request.body = [0xFF, 0xFE, 0x00]
        _ = e.handle(request)
        let entry = admin(e, "GET", "/__admin/requests").json["requests"]?.elements?.first
        XCTAssertNil(entry?["body"])
        XCTAssertEqual(entry?["bodyBase64"]?.string, "//4A")
    }

    func testJournalIsARingBufferWithTruncatedBodies() {
        let e = adminEngine(loadStubs(#"{"response": {}}"#), options: .init(journalCapacity: 3))
        let big = String(repeating: "x", count: 100_000)
        for i in 0..<10 { _ = e.handle(makeRequest("POST", "/\(i)", body: big)) }
        let entries = e.journal.entries
        XCTAssertEqual(entries.map(\.path), ["/7", "/8", "/9"])
        XCTAssertEqual(entries[0].body.count, Journal.maximumBodyBytes)
        XCTAssertEqual(entries[0].bodySize, 100_000)
        let json = admin(e, "GET", "/__admin/requests").json["requests"]?.elements?.first
        XCTAssertEqual(json?["bodySize"]?.number?.value, 100_000)
        let off = adminEngine(loadStubs(#"{"response": {}}"#), options: .init(journalCapacity: 0))
        _ = off.handle(makeRequest("GET", "/"))
        XCTAssertEqual(off.journal.entries.count, 0)
    }

    /// With `--journal 0` nothing is recorded: listing, finding and counting say so (409)
    /// rather than answer an empty list or 0, which would pass "never called" unchecked.
    func testWithTheJournalOffRequestsCannotBeListedFoundOrCounted() {
        let off = adminEngine(loadStubs(#"{"response": {}}"#), options: .init(journalCapacity: 0))
        _ = off.handle(makeRequest("GET", "/"))
        for (method, target) in [
            ("GET", "/__admin/requests"), ("POST", "/__admin/requests/find"), ("POST", "/__admin/requests/count"),
            ("GET", "/__admin/requests/unmatched"), ("GET", "/__admin/requests/1"),
        ] {
            let response = off.handle(makeRequest(method, target, body: method == "POST" ? "{}" : "")).answered
            XCTAssertEqual(response.prepared.status, 409, target)
            XCTAssertTrue(response.bodyText.contains("the journal is off (--journal 0)"), response.bodyText)
        }
        XCTAssertEqual(
            off.handle(makeRequest("DELETE", "/__admin/requests")).answered.prepared.status,
            200,
            "clearing nothing is harmless"
        )
        XCTAssertThrowsError(try off.journalEntries(matching: Array("{}".utf8))) { error in
            XCTAssertTrue("\(error)".contains("the journal is off"), "\(error)")
        }
    }

    func testScenariosAndReset() {
        let e = adminEngine(
            #"""
            [{"request": {"path": "/pay"}, "scenario": {"name": "checkout", "then": "paid"}, "response": {}}, \#
            {"request": {"path": "/s"}, "responses": [{"body": "1"}, {"body": "2"}]}]
            """#
        )
        XCTAssertEqual(
            admin(e, "GET", "/__admin/scenarios").json["scenarios"]?.elements?.first?["state"]?.string,
            "Started"
        )
        XCTAssertEqual(admin(e, "PUT", "/__admin/scenarios/checkout", body: #"{"state": "paid"}"#).status, 200)
        XCTAssertEqual(e.scenarios.first?.state, "paid")
        XCTAssertEqual(admin(e, "PUT", "/__admin/scenarios/checkout", body: #"{"stat": "x"}"#).status, 400)
        _ = e.handle(makeRequest("GET", "/s"))
        XCTAssertEqual(admin(e, "POST", "/__admin/scenarios/reset").status, 200)
        XCTAssertEqual(e.scenarios.first?.state, "Started")
        XCTAssertEqual(e.handle(makeRequest("GET", "/s")).answered.bodyText, "1")
        _ = admin(e, "POST", "/__admin/stubs", body: #"{"response": {}}"#)
        XCTAssertEqual(admin(e, "POST", "/__admin/reset").status, 200)
        XCTAssertEqual(e.catalog.count, 2, "reset removes runtime stubs")
        XCTAssertEqual(e.journal.entries.count, 0, "and clears the journal")
    }

    func testReloadKeepsTheOldSetOnErrors() {
        let folder = TemporaryFolder()
        folder.write("a.json", #"{"request": {"path": "/a"}, "response": {"body": "one"}}"#)
        let e = adminEngine(folder.load().stubs, options: .init(directory: folder.path))
        folder.write("a.json", #"{"request": {"path": "/a"}, "response": {"body": "two"}}"#)
        XCTAssertEqual(admin(e, "POST", "/__admin/reload").status, 200)
        XCTAssertEqual(e.handle(makeRequest("GET", "/a")).answered.bodyText, "two")
        folder.write("a.json", "{")
        let failed = admin(e, "POST", "/__admin/reload")
        XCTAssertEqual(failed.status, 400)
        XCTAssertEqual(failed.json["errors"]?.elements?.count, 1)
        XCTAssertEqual(e.handle(makeRequest("GET", "/a")).answered.bodyText, "two")
    }

    func testUnknownRoutesAndMethods() {
        let e = adminEngine()
        let unknown = admin(e, "GET", "/__admin/nope")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertTrue(unknown.json["error"]?.string?.contains("no admin route GET /__admin/nope") ?? false)
        XCTAssertEqual(admin(e, "PATCH", "/__admin/health").status, 405)
        XCTAssertEqual(admin(e, "GET", "/__admin").status, 404)
        XCTAssertFalse(e.handle(makeRequest("GET", "/__administrator")).isAdmin, "only the /__admin/ prefix")
    }

    func testAdminToken() {
        let e = adminEngine(
            loadStubs(#"{"request": {"path": "/open"}, "response": {}}"#),
            options: .init(adminToken: "s3cret")
        )
        XCTAssertEqual(admin(e, "GET", "/__admin/stubs").status, 401)
        XCTAssertEqual(admin(e, "GET", "/__admin/stubs", headers: [("Authorization", "Bearer wrong")]).status, 401)
        XCTAssertEqual(admin(e, "GET", "/__admin/stubs", headers: [("Authorization", "Bearer s3cret")]).status, 200)
        XCTAssertEqual(admin(e, "GET", "/__admin/health").status, 200, "health probes need no token")
        XCTAssertEqual(e.handle(makeRequest("GET", "/open")).answered.prepared.status, 200, "stub routes never need it")
    }

    /// The engine has no admin routes of its own: without the native API registered, everything
    /// under `/__admin` gets the 404 that lists no routes, and the engine's access policy still
    /// comes first (health is public only where the native API says so).
    func testAnEngineWithoutRegisteredRoutesAnswersOnlyTheNotFound() {
        let e = Engine(stubs: loadStubs(#"{"request": {"path": "/x"}, "response": {}}"#))
        for (method, target) in [("GET", "/__admin/stubs"), ("GET", "/__admin/health"), ("POST", "/__admin/reset")] {
            let answer = admin(e, method, target)
            XCTAssertEqual(answer.status, 404, target)
            XCTAssertEqual(answer.json["routes"]?.elements?.count, 0, target)
        }
        let guarded = Engine(stubs: [], options: .init(adminToken: "s3cret"))
        XCTAssertEqual(admin(guarded, "GET", "/__admin/health").status, 401)
        var registered = Engine.Options(adminToken: "s3cret")
        registered.adminRoutes = NativeAdmin.routeSets()
        XCTAssertEqual(admin(Engine(stubs: [], options: registered), "GET", "/__admin/health").status, 200)
    }
}

extension ISO8601DateFormatter {
    static var withFractionalSeconds: ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }
}
