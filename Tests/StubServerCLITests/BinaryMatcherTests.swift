import Foundation
import TestSupport
import XCTest

/// Regular expressions, JSON patterns and pointers, and WireMock's JSONPath and regex
/// matchers, matched by the binary users run (the server's own regex and JSONPath engines,
/// with no Foundation behind them).
final class BinaryMatcherTests: XCTestCase {
    func testNativeRegexAndJSONMatchers() throws {
        let stubs = #"""
            [
              {"name": "order by number", "request": {"method": "GET", "pathPattern": "/v1/orders/[0-9]+",
                "query": {"page": {"matches": "[1-9][0-9]*"}}, "headers": {"X-Id": {"matches": "[a-f0-9]{8}"}}},
               "response": {"body": "order"}},
              {"name": "json pattern", "request": {"method": "POST", "path": "/v1/posts",
                "body": {"json": {"title": {"matches": ".*\\S.*"}, "author": {"id": {"atLeast": 1}},
                                  "draft": {"absent": true}}}},
               "response": {"status": 201}},
              {"name": "pointers", "request": {"method": "POST", "path": "/v1/tags",
                "body": {"jsonPointer": {"/tags/0": {"contains": "swift", "caseInsensitive": true}, "/a~1b": 1}}},
               "response": {"status": 202}},
              {"name": "text", "request": {"method": "POST", "path": "/v1/text", "body": {"matches": "hello [a-z]+"}},
               "response": {"status": 203}}
            ]
            """#
        let server = try BinaryServing(self, files: ["stubs.json": stubs])
        XCTAssertEqual(try server.get("/v1/orders/42?page=3", headers: ["X-Id: 0a1b2c3d"]).text, "order")
        XCTAssertEqual(try server.get("/v1/orders/42?page=0", headers: ["X-Id: 0a1b2c3d"]).status, 404)
        XCTAssertEqual(try server.get("/v1/orders/4x?page=3", headers: ["X-Id: 0a1b2c3d"]).status, 404)
        XCTAssertEqual(try server.get("/v1/orders/42?page=3", headers: ["X-Id: 0A1B2C3D"]).status, 404)
        XCTAssertEqual(
            try server.send("POST", "/v1/posts", json: #"{"title": "Hi", "author": {"id": 7}}"#).status,
            201
        )
        let blank = try server.send("POST", "/v1/posts", json: #"{"title": " ", "author": {"id": 7}}"#)
        XCTAssertEqual(blank.status, 404)
        XCTAssertTrue(blank.text.contains("title"), "the near miss names what differed: \(blank.text)")
        XCTAssertEqual(
            try server.send("POST", "/v1/posts", json: #"{"title": "Hi", "author": {"id": 7}, "draft": true}"#).status,
            404
        )
        XCTAssertEqual(try server.send("POST", "/v1/tags", json: #"{"tags": ["Swift-6"], "a/b": 1.0}"#).status, 202)
        XCTAssertEqual(try server.send("POST", "/v1/tags", json: #"{"tags": ["go"], "a/b": 1}"#).status, 404)
        let text = "POST /v1/text HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world"
        XCTAssertEqual(try server.exchange(text).status, 203)
    }

    func testWireMockJSONPathAndRegexMatchers() throws {
        let mapping = #"""
            {"request": {"method": "POST", "urlPathPattern": "/api/v[12]/orders",
              "headers": {"X-Trace": {"matches": "^t-[0-9]+$"}},
              "bodyPatterns": [{"matchesJsonPath": "$.items[?(@.price > 10)]"},
                               {"matchesJsonPath": {"expression": "$.customer.tier", "equalTo": "gold"}}]},
             "response": {"status": 200, "body": "big order"}}
            """#
        let server = try BinaryServing(self, files: ["mappings/orders.json": mapping])
        let big = #"{"items": [{"price": 5}, {"price": 12.5}], "customer": {"tier": "gold"}}"#
        XCTAssertEqual(
            try server.send("POST", "/api/v2/orders", json: big, headers: ["X-Trace: t-1"]).text,
            "big order"
        )
        XCTAssertEqual(try server.send("POST", "/api/v3/orders", json: big, headers: ["X-Trace: t-1"]).status, 404)
        XCTAssertEqual(try server.send("POST", "/api/v1/orders", json: big, headers: ["X-Trace: x-1"]).status, 404)
        let small = #"{"items": [{"price": 5}], "customer": {"tier": "gold"}}"#
        XCTAssertEqual(try server.send("POST", "/api/v1/orders", json: small, headers: ["X-Trace: t-1"]).status, 404)
        let silver = #"{"items": [{"price": 50}], "customer": {"tier": "silver"}}"#
        XCTAssertEqual(try server.send("POST", "/api/v1/orders", json: silver, headers: ["X-Trace: t-1"]).status, 404)
    }
}
