import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubEngine
import WireMock
import XCTest

/// WireMock's admin API on stubserver's port, called the way WireMock clients call it, beside
/// stubserver's own admin API.
final class WireMockAdminTests: XCTestCase {
    // The types a WireMock client library decodes (Codable, as Swift's WiremockClient does):
    // a header that came back as an array, or a missing meta.total, fails the decoding.
    struct MappingList: Decodable {
        let mappings: [Mapping]
        let meta: Meta
    }
    struct Meta: Decodable { let total: Int }
    struct Mapping: Decodable {
        let id: String
        let uuid: String
        let request: [String: JSONValue]?
        let response: [String: JSONValue]?
    }
    struct Count: Decodable { let count: Int }
    struct FoundRequests: Decodable { let requests: [LoggedRequest] }
    struct LoggedRequest: Decodable {
        let url: String, absoluteUrl: String, method: String, body: String
        let headers: [String: String]
        let loggedDate: Int, loggedDateString: String
    }
    struct ServeEvents: Decodable {
        let requests: [ServeEvent]
        let meta: Meta
    }
    struct ServeEvent: Decodable {
        let id: String
        let request: LoggedRequest
        let wasMatched: Bool
    }
    struct Scenarios: Decodable { let scenarios: [Scenario] }
    struct Scenario: Decodable {
        let id: String
        let name: String
        let state: String
        let possibleStates: [String]
    }
    /// Any JSON value (the client keeps request and response as they are).
    enum JSONValue: Decodable {
        case value
        init(from decoder: any Decoder) throws { self = .value }
    }

    func call<T: Decodable>(
        _ h: WireMockHarness,
        _ method: String,
        _ path: String,
        _ body: String? = nil,
        as type: T.Type,
        status expected: Int = 200,
        file: StaticString = #filePath,
        line: UInt = #line
    ) async throws -> T {
        var request = URLRequest(url: URL(string: h.baseURL + path)!)
        request.httpMethod = method
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        XCTAssertEqual(
            (response as? HTTPURLResponse)?.statusCode,
            expected,
            "\(method) \(path): \(String(decoding: data, as: UTF8.self))",
            file: file,
            line: line
        )
        return try JSONDecoder().decode(T.self, from: data)
    }

    struct Empty: Decodable { init(from decoder: any Decoder) throws {} }

    func status(_ h: WireMockHarness, _ method: String, _ path: String, _ body: String? = nil) async throws -> Int {
        try await h.json(method, path, body).status
    }

    /// Create, list by meta.total, edit with another uuid in the body (the path's id wins),
    /// verify a count, find requests and read their headers as single strings, move and reset
    /// scenarios, reset everything.
    func testScriptedClientSession() async throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "flow.json": #"""
                {"mappings": [
                  {"scenarioName": "login", "requiredScenarioState": "Started", "newScenarioState": "in",
                   "request": {"method": "POST", "url": "/login"}, "response": {"status": 204}},
                  {"scenarioName": "login", "requiredScenarioState": "in",
                   "request": {"method": "GET", "url": "/me"}, "response": {"body": "ann"}}
                ]}
                """#
            ]
        )
        let before = try await call(h, "GET", "/__admin/mappings", as: MappingList.self)
        XCTAssertEqual(before.meta.total, 2)

        let created = try await call(
            h,
            "POST",
            "/__admin/mappings",
            #"""
            {"request": {"method": "GET", "urlPath": "/items", "headers": {"Accept": {"contains": "json"}}},
             "response": {"status": 200, "jsonBody": [1, 2], "headers": {"Content-Type": "application/json"}}}
            """#,
            as: Mapping.self,
            status: 201
        )
        XCTAssertEqual(created.id, created.uuid)
        XCTAssertNotNil(UUID(uuidString: created.id))
        let after = try await call(h, "GET", "/__admin/mappings", as: MappingList.self)
        XCTAssertEqual(after.meta.total, 3)
        XCTAssertEqual(after.mappings.first?.id, created.id, "the newest first among equals")

        let otherUUID = UUID().uuidString.lowercased()
        let edited = try await call(
            h,
            "PUT",
            "/__admin/mappings/\(created.id)",
            #"""
            {"uuid": "\#(otherUUID)", "request": {"method": "GET", "urlPath": "/items"}, "response": {"status": 200, \#
            "body": "edited"}}
            """#,
            as: Mapping.self
        )
        XCTAssertEqual(edited.id, created.id, "the id in the path wins over the body's uuid")
        let stillThree = try await call(h, "GET", "/__admin/mappings", as: MappingList.self)
        XCTAssertEqual(stillThree.meta.total, 3)
        do {
            let value = try await status(h, "GET", "/__admin/mappings/\(otherUUID)")
            XCTAssertEqual(value, 404)
        }

        for _ in 0..<2 {
            XCTAssertEqual(
                try h.send(
                    "GET",
                    "/items",
                    headers: [("Accept", "application/json"), ("X-Twice", "a"), ("X-Twice", "b")]
                ).text,
                "edited"
            )
        }
        let count = try await call(
            h,
            "POST",
            "/__admin/requests/count",
            #"{"method": "GET", "urlPath": "/items"}"#,
            as: Count.self
        )
        XCTAssertEqual(count.count, 2)
        let found = try await call(
            h,
            "POST",
            "/__admin/requests/find",
            #"{"method": "GET", "url": "/items"}"#,
            as: FoundRequests.self
        )
        XCTAssertEqual(found.requests.count, 2)
        XCTAssertEqual(found.requests.first?.headers["X-Twice"], "a, b", "a repeated header is one string")
        XCTAssertEqual(found.requests.first?.headers["Accept"], "application/json")
        XCTAssertTrue(found.requests.first?.absoluteUrl.hasSuffix("/items") == true)
        let events = try await call(h, "GET", "/__admin/requests", as: ServeEvents.self)
        XCTAssertEqual(events.meta.total, 2)
        XCTAssertTrue(events.requests.allSatisfy(\.wasMatched))

        XCTAssertEqual(try h.send("POST", "/login").status, 204)
        XCTAssertEqual(try h.send("GET", "/me").text, "ann")
        let scenarios = try await call(h, "GET", "/__admin/scenarios", as: Scenarios.self)
        XCTAssertEqual(scenarios.scenarios.first?.state, "in")
        XCTAssertEqual(scenarios.scenarios.first?.possibleStates, ["Started", "in"])
        do {
            let value = try await status(h, "POST", "/__admin/scenarios/reset")
            XCTAssertEqual(value, 200)
        }
        XCTAssertEqual(try h.send("GET", "/me").status, 404, "back in Started")
        do {
            let value = try await status(h, "PUT", "/__admin/scenarios/login/state", #"{"state": "in"}"#)
            XCTAssertEqual(value, 200)
        }
        XCTAssertEqual(try h.send("GET", "/me").text, "ann")

        do {
            let value = try await status(h, "POST", "/__admin/reset")
            XCTAssertEqual(value, 200)
        }
        let reset = try await call(h, "GET", "/__admin/mappings", as: MappingList.self)
        XCTAssertEqual(reset.meta.total, 2, "the mappings from files remain")
        do {
            let value = try await call(h, "GET", "/__admin/requests", as: ServeEvents.self).meta.total
            XCTAssertEqual(value, 0)
        }
    }

    /// Both admin APIs on one port, and how a request picks one (docs/admin-api.md).
    func testTheTwoDialectsOnOnePort() async throws {
        let h = try WireMockHarness(
            self,
            mappings: ["a.json": #"{"request": {"urlPath": "/a"}, "response": {"body": "a"}}"#]
        ) {
            $0.adminDialect = .native
        }
        _ = try h.send("GET", "/a?x=1", headers: [("X-Twice", "1"), ("X-Twice", "2")])
        // Routes only one has.
        let stubs = try await h.json("GET", "/__admin/stubs")
        XCTAssertEqual(((stubs.json as? [String: Any])?["stubs"] as? [Any])?.count, 1)
        do {
            let value = try await call(h, "GET", "/__admin/mappings", as: MappingList.self).meta.total
            XCTAssertEqual(value, 1)
        }
        // Shared routes: the server's default (native here), or the header.
        let native = try await h.json("GET", "/__admin/requests")
        let nativeEntry = ((native.json as? [String: Any])?["requests"] as? [[String: Any]])?.first
        XCTAssertEqual(nativeEntry?["id"] as? Int, 1)
        XCTAssertEqual((nativeEntry?["headers"] as? [String: [String]])?["X-Twice"], ["1", "2"])
        let wiremock = try await h.json("GET", "/__admin/requests", headers: ["X-Stubserver-Dialect": "wiremock"])
        let event = ((wiremock.json as? [String: Any])?["requests"] as? [[String: Any]])?.first
        let eventID = try XCTUnwrap(event?["id"] as? String)
        XCTAssertNotNil(UUID(uuidString: eventID))
        // The id says which: a number is native, a UUID WireMock's; both name the same request.
        let byUUID = try await h.json("GET", "/__admin/requests/\(eventID)")
        XCTAssertEqual(((byUUID.json as? [String: Any])?["request"] as? [String: Any])?["url"] as? String, "/a?x=1")
        let byNumber = try await h.json("GET", "/__admin/requests/1")
        XCTAssertEqual((byNumber.json as? [String: Any])?["target"] as? String, "/a?x=1")
        // A pattern's words say which.
        let wiremockFind = try await h.json("POST", "/__admin/requests/find", #"{"urlPath": "/a"}"#)
        XCTAssertNotNil(((wiremockFind.json as? [String: Any])?["requests"] as? [[String: Any]])?.first?["absoluteUrl"])
        let nativeFind = try await h.json("POST", "/__admin/requests/find", #"{"path": "/a"}"#)
        XCTAssertNotNil(((nativeFind.json as? [String: Any])?["requests"] as? [[String: Any]])?.first?["receivedAt"])
        // Health: the default's shape, or WireMock's when asked.
        do {
            let value = (try await h.json("GET", "/__admin/health").json as? [String: Any])?["status"] as? String
            XCTAssertEqual(value, "ok")
        }
        do {
            let value =
                (try await h.json("GET", "/__admin/health", headers: ["X-Stubserver-Dialect": "wiremock"]).json
                as? [String: Any])?["status"] as? String
            XCTAssertEqual(value, "healthy")
        }
    }

    func testFileMappingsCanBeRemovedAndEditedUntilAReset() async throws {
        let id = "76ada7b0-49ae-4229-91c4-396a36f18e09"
        let h = try WireMockHarness(
            self,
            mappings: [
                "a.json": #"{"id": "\#(id)", "request": {"urlPath": "/a"}, "response": {"body": "from the file"}}"#
            ]
        )
        do {
            let value = try await status(
                h,
                "PUT",
                "/__admin/mappings/\(id)",
                #"{"request": {"urlPath": "/a"}, "response": {"body": "edited"}}"#
            )
            XCTAssertEqual(value, 200)
        }
        XCTAssertEqual(try h.send("GET", "/a").text, "edited")
        do {
            let value = try await call(h, "GET", "/__admin/mappings", as: MappingList.self).meta.total
            XCTAssertEqual(value, 1)
        }
        do {
            let value = try await status(h, "DELETE", "/__admin/mappings/\(id)")
            XCTAssertEqual(value, 200)
        }
        XCTAssertEqual(try h.send("GET", "/a").status, 404)
        do {
            let value = try await status(h, "DELETE", "/__admin/mappings/\(id)")
            XCTAssertEqual(value, 404)
        }
        do {
            let value = try await status(h, "POST", "/__admin/mappings/reset")
            XCTAssertEqual(value, 200)
        }
        XCTAssertEqual(try h.send("GET", "/a").text, "from the file")
        do {
            let value = try await status(h, "DELETE", "/__admin/mappings")
            XCTAssertEqual(value, 200)
        }
        do {
            let value = try await call(h, "GET", "/__admin/mappings", as: MappingList.self).meta.total
            XCTAssertEqual(value, 0)
        }
    }

    func testImportSaveMetadataAndValidationErrors() async throws {
        let h = try WireMockHarness(self, mappings: [:])
        let id = UUID().uuidString.lowercased()
        let body =
            #"""
            {"mappings": [{"id": "\#(id)", "metadata": {"tag": "x"}, "request": {"urlPath": "/imported"}, \#
            "response": {"body": "1"}}], "importOptions": {"duplicatePolicy": "IGNORE"}}
            """#
        do {
            let value = try await status(h, "POST", "/__admin/mappings/import", body)
            XCTAssertEqual(value, 200)
        }
        do {
            let value = try await status(
                h,
                "POST",
                "/__admin/mappings/import",
                body.replacingOccurrences(of: #""body": "1""#, with: #""body": "2""#)
            )
            XCTAssertEqual(value, 200)
        }
        XCTAssertEqual(try h.send("GET", "/imported").text, "1", "IGNORE keeps the mapping there")
        let tagged = try await call(
            h,
            "POST",
            "/__admin/mappings/find-by-metadata",
            #"{"matchesJsonPath": {"expression": "$.tag", "equalTo": "x"}}"#,
            as: MappingList.self
        )
        XCTAssertEqual(tagged.mappings.map(\.id), [id])
        do {
            let value = try await status(h, "POST", "/__admin/mappings/save")
            XCTAssertEqual(value, 200)
        }
        let saved = try FileManager.default.contentsOfDirectory(
            atPath: h.folder.appendingPathComponent("mappings").path
        )
        XCTAssertEqual(saved.count, 1)
        do {
            let value = try await call(h, "GET", "/__admin/mappings", as: MappingList.self).meta.total
            XCTAssertEqual(value, 1, "saved: served from its file now")
        }
        do {
            let value = try await status(h, "POST", "/__admin/mappings/reset")
            XCTAssertEqual(value, 200)
        }
        XCTAssertEqual(try h.send("GET", "/imported").text, "1", "a reset keeps what was saved")
        do {
            let value = try await status(
                h,
                "POST",
                "/__admin/mappings/remove-by-metadata",
                #"{"matchesJsonPath": "$.tag"}"#
            )
            XCTAssertEqual(value, 200)
        }
        XCTAssertEqual(try h.send("GET", "/imported").status, 404)
        let invalid = try await h.json(
            "POST",
            "/__admin/mappings",
            #"{"request": {"urlPattern": "(a)\\2"}, "response": {}}"#
        )
        XCTAssertEqual(invalid.status, 422)
        let errors = (invalid.json as? [String: Any])?["errors"] as? [[String: Any]]
        XCTAssertEqual((errors?.first?["source"] as? [String: Any])?["pointer"] as? String, "/request/urlPattern")
    }

    func testNearMissesSettingsAndRemovingRequests() async throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "a.json":
                    #"""
                {"request": {"method": "GET", "urlPath": "/orders", "queryParameters": {"page": {"equalTo": \#
                "1"}}}, "response": {"body": "o"}}
                """#
            ]
        )
        _ = try h.send("GET", "/orders?page=2")
        _ = try h.send("GET", "/orders?page=1")
        let unmatched = try await call(h, "GET", "/__admin/requests/unmatched", as: FoundRequests.self)
        XCTAssertEqual(unmatched.requests.map(\.url), ["/orders?page=2"])
        let near = try await h.json(
            "POST",
            "/__admin/near-misses/request",
            #"{"url": "/orders?page=3", "method": "GET"}"#
        )
        let first = ((near.json as? [String: Any])?["nearMisses"] as? [[String: Any]])?.first
        XCTAssertEqual(
            ((first?["stubMapping"] as? [String: Any])?["request"] as? [String: Any])?["urlPath"] as? String,
            "/orders"
        )
        XCTAssertNotNil((first?["matchResult"] as? [String: Any])?["distance"] as? Double)
        let byPattern = try await h.json(
            "POST",
            "/__admin/near-misses/request-pattern",
            #"{"urlPath": "/orders", "queryParameters": {"page": {"equalTo": "9"}}}"#
        )
        XCTAssertEqual(((byPattern.json as? [String: Any])?["nearMisses"] as? [Any])?.count, 2)

        do {
            let value = try await status(h, "POST", "/__admin/settings", #"{"fixedDelay": 150}"#)
            XCTAssertEqual(value, 200)
        }
        let started = Date()
        _ = try h.send("GET", "/orders?page=1")
        XCTAssertGreaterThanOrEqual(
            Date().timeIntervalSince(started),
            0.14,
            "timers may fire a hair early by the wall clock"
        )
        do {
            let value = try await status(h, "POST", "/__admin/settings", #"{"fixedDelay": 0}"#)
            XCTAssertEqual(value, 200)
        }

        do {
            let value = try await status(
                h,
                "POST",
                "/__admin/requests/remove",
                #"{"queryParameters": {"page": {"equalTo": "2"}}}"#
            )
            XCTAssertEqual(value, 200)
        }
        let left = try await call(h, "GET", "/__admin/requests", as: ServeEvents.self)
        XCTAssertEqual(left.requests.map(\.request.url), ["/orders?page=1", "/orders?page=1"])
        do {
            let value = try await status(h, "DELETE", "/__admin/requests/\(left.requests[0].id)")
            XCTAssertEqual(value, 200)
        }
        do {
            let value = try await call(h, "GET", "/__admin/requests", as: ServeEvents.self).requests.count
            XCTAssertEqual(value, 1)
        }
    }

    func testShutdownOnlyBehindTheFlag() async throws {
        let refused = try WireMockHarness(self, mappings: [:])
        do {
            let value = try await status(refused, "POST", "/__admin/shutdown")
            XCTAssertEqual(value, 403)
        }
        let allowed = try WireMockHarness(self, mappings: [:]) { $0.allowShutdown = true }
        let stopped = expectation(description: "stopped")
        allowed.dialect.shutdown.value = { stopped.fulfill() }
        do {
            let value = try await status(allowed, "POST", "/__admin/shutdown")
            XCTAssertEqual(value, 200)
        }
        await fulfillment(of: [stopped], timeout: 5)
    }

    /// `since` is read by the package's one ISO 8601 reader: with or without fractions and a
    /// zone, a date alone; anything else is a 400 that shows the form.
    func testRequestsSinceADate() async throws {
        let h = try WireMockHarness(self, mappings: ["a.json": #"{"request": {"urlPath": "/a"}, "response": {}}"#])
        _ = try h.send("GET", "/a")
        for since in ["2000-01-01T00:00:00Z", "2000-01-01T00:00:00.5+02:00", "2000-01-01", "2000-01-01T00:00:00"] {
            let events = try await call(h, "GET", "/__admin/requests?since=\(since)", as: ServeEvents.self)
            XCTAssertEqual(events.requests.count, 1, since)
        }
        let future = try await call(h, "GET", "/__admin/requests?since=2999-01-01T00:00:00Z", as: ServeEvents.self)
        XCTAssertEqual(future.requests.count, 0)
        for since in ["yesterday", "2000-13-01T00:00:00Z", "2000-01-01T25:00:00Z"] {
            let value = try await status(h, "GET", "/__admin/requests?since=\(since)")
            XCTAssertEqual(value, 400, since)
        }
    }
}
