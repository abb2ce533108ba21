import Foundation
import TestSupport
import XCTest

/// A WireMock folder served by the binary users run: mappings added, served with Handlebars
/// templates, counted and removed through WireMock's admin API; `--admin-dialect` and
/// `--allow-shutdown`.
final class BinaryWireMockAdminTests: XCTestCase {
    private static let folder = [
        "mappings/hello.json": #"{"request": {"urlPath": "/hello"}, "response": {"body": "hello"}}"#,
        "__files/greeting.txt": "Hi {{request.query.name}}, it is {{now format='yyyy'}}",
    ]

    private func json(_ response: WireResponse) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], response.text)
    }

    func testMappingsAddedThroughTheAdminAPIServeTemplatesAndAreCounted() throws {
        let server = try BinaryServing(self, files: Self.folder)
        XCTAssertEqual(try server.get("/hello").text, "hello")
        let mapping = #"""
            {"request": {"method": "GET", "urlPathTemplate": "/users/{id}"},
             "response": {"status": 200, "bodyFileName": "greeting.txt", "transformers": ["response-template"],
                          "headers": {"X-User": "{{request.path.id}}", "X-Body": "{{jsonPath request.body '$.a'}}"}}}
            """#
        let created = try server.send("POST", "/__admin/mappings", json: mapping)
        XCTAssertEqual(created.status, 201, created.text)
        let id = try XCTUnwrap(try json(created)["id"] as? String)

        let answer = try server.get("/users/42?name=Ann")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.header("X-User"), "42")
        let year = Calendar(identifier: .gregorian).component(.year, from: Date())
        XCTAssertTrue(answer.text == "Hi Ann, it is \(year)" || answer.text == "Hi Ann, it is \(year + 1)", answer.text)

        let listed = try json(try server.get("/__admin/mappings"))
        XCTAssertEqual((listed["meta"] as? [String: Any])?["total"] as? Int, 2)
        let count = try server.send("POST", "/__admin/requests/count", json: #"{"urlPathPattern": "/users/.*"}"#)
        XCTAssertEqual(try json(count)["count"] as? Int, 1)
        let requests = try json(try server.get("/__admin/requests"))
        XCTAssertEqual((requests["meta"] as? [String: Any])?["total"] as? Int, 2, "WireMock's own shape")

        let removed = try server.exchange("DELETE /__admin/mappings/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        XCTAssertEqual(removed.status, 200)
        XCTAssertEqual(try server.get("/users/42").status, 404)
        XCTAssertEqual(try server.send("POST", "/__admin/mappings/reset", json: "{}").status, 200)
        XCTAssertEqual(try server.get("/hello").text, "hello", "reset goes back to the folder's mappings")
    }

    func testTheNativeAdminDialectAnswersTheSharedRoutes() throws {
        let server = try BinaryServing(self, files: Self.folder, ["--admin-dialect", "native"])
        XCTAssertEqual(try server.get("/hello").status, 200)
        let requests = try json(try server.get("/__admin/requests"))
        XCTAssertNil(requests["meta"], "the native list has no WireMock meta")
        let first = try XCTUnwrap((requests["requests"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["path"] as? String, "/hello")
        XCTAssertNotNil(first["receivedAt"] as? String)
    }

    func testShutdownStopsTheServerOnlyWithTheFlag() throws {
        let refused = try BinaryServing(self, files: Self.folder)
        XCTAssertEqual(try refused.send("POST", "/__admin/shutdown", json: "{}").status, 403)
        XCTAssertTrue(refused.process.process.isRunning)

        let allowed = try BinaryServing(self, files: Self.folder, ["--allow-shutdown"])
        XCTAssertEqual(try allowed.send("POST", "/__admin/shutdown", json: "{}").status, 200)
        XCTAssertEqual(allowed.process.exitStatus(), 0)
    }
}
