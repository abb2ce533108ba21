import Foundation
import StubEngine
import TestSupport
import XCTest

/// WireMock's request matching as its documentation describes it, one mapping per rule, each
/// probed with requests that must and must not match, over real sockets. A mapping answers
/// its own name, so the table says which mapping answered (or 404).
final class WireMockMatchingTests: XCTestCase {
    /// name → request pattern (JSON). Each answers `body: name`.
    static let patterns: [(String, String)] = [
        ("url", #"{"url": "/exact?a=1&b=2"}"#),
        ("urlPattern", #"{"urlPattern": "/pattern/[0-9]+\\?x=.*"}"#),
        ("urlPath", #"{"urlPath": "/path/only"}"#),
        ("urlPathPattern", #"{"urlPathPattern": "/users/[a-z]+/orders"}"#),
        (
            "template",
            #"""
            {"urlPathTemplate": "/contacts/{contactId}/addresses/{addressId}", "pathParameters": {"contactId": \#
            {"equalTo": "12"}, "addressId": {"matches": "[0-9]+"}}}
            """#
        ),
        (
            "query",
            #"""
            {"urlPath": "/q", "queryParameters": {"search": {"equalTo": "Swift", "caseInsensitive": true}, \#
            "page": {"matches": "[0-9]+"}, "debug": {"absent": true}}}
            """#
        ),
        (
            "queryExact",
            #"{"urlPath": "/q-exact", "queryParameters": {"id": {"hasExactly": [{"equalTo": "1"}, {"equalTo": "2"}]}}}"#
        ),
        ("queryIncludes", #"{"urlPath": "/q-includes", "queryParameters": {"id": {"includes": [{"equalTo": "3"}]}}}"#),
        (
            "headers",
            #"""
            {"urlPath": "/h", "headers": {"x-api-key": {"equalTo": "k1"}, "Accept": {"contains": "json"}, \#
            "X-Trace": {"doesNotContain": "debug"}}}
            """#
        ),
        ("cookies", #"{"urlPath": "/c", "cookies": {"session": {"matches": "s-[0-9]+"}}}"#),
        ("basicAuth", #"{"urlPath": "/auth", "basicAuthCredentials": {"username": "ann", "password": "s3cret"}}"#),
        ("bodyEqual", #"{"urlPath": "/b/equal", "bodyPatterns": [{"equalTo": "hello", "caseInsensitive": true}]}"#),
        (
            "bodyJson",
            #"{"urlPath": "/b/json", "bodyPatterns": [{"equalToJson": {"name": "ann", "tags": ["a", "b"]}}]}"#
        ),
        (
            "bodyJsonLoose",
            #"""
            {"urlPath": "/b/json-loose", "bodyPatterns": [{"equalToJson": "{\"tags\": [\"b\", \"a\"]}", \#
            "ignoreArrayOrder": true, "ignoreExtraElements": true}]}
            """#
        ),
        (
            "bodyJsonUnit",
            #"""
            {"urlPath": "/b/json-unit", "bodyPatterns": [{"equalToJson": {"id": "${json-unit.any-number}", \#
            "name": "${json-unit.any-string}", "code": "${json-unit.regex}[A-Z]{3}", "at": "${json-unit.ignore}"}}]}
            """#
        ),
        ("jsonPath", #"{"urlPath": "/b/path", "bodyPatterns": [{"matchesJsonPath": "$.items[?(@.price > 10)]"}]}"#),
        (
            "jsonPathNested",
            #"""
            {"urlPath": "/b/path-nested", "bodyPatterns": [{"matchesJsonPath": {"expression": "$.user.name", \#
            "equalTo": "ann"}}, {"matchesJsonPath": {"expression": "$.user", "equalToJson": {"name": "ann", \#
            "age": 3}}}]}
            """#
        ),
        ("binary", #"{"urlPath": "/b/binary", "bodyPatterns": [{"binaryEqualTo": "AAEC/w=="}]}"#),
        (
            "logic",
            #"""
            {"urlPath": "/b/logic", "bodyPatterns": [{"and": [{"contains": "a"}, {"or": [{"contains": "x"}, \#
            {"contains": "y"}]}, {"not": {"contains": "z"}}]}]}
            """#
        ),
        ("doesNotMatch", #"{"urlPath": "/b/not-match", "bodyPatterns": [{"doesNotMatch": ".*secret.*"}]}"#),
        ("numbers", #"{"urlPath": "/n", "queryParameters": {"age": {"greaterThanEqualNumber": 18}}}"#),
        ("oneOf", #"{"urlPath": "/methods", "method": {"oneOf": ["PUT", "PATCH"]}}"#),
        ("noneOf", #"{"urlPath": "/methods-none", "method": {"noneOf": ["DELETE"]}}"#),
        ("any", #"{"urlPath": "/any", "method": "ANY"}"#),
        ("form", #"{"urlPath": "/form", "method": "POST", "formParameters": {"user": {"equalTo": "ann b"}}}"#),
    ]

    func harness() throws -> WireMockHarness {
        let mappings = Self.patterns.map { name, request in
            #"{"name": "\#(name)", "request": \#(request), "response": {"body": "\#(name)"}}"#
        }
        return try WireMockHarness(
            self,
            mappings: ["all.json": #"{"mappings": ["# + mappings.joined(separator: ",") + "]}"]
        )
    }

    /// (method, target, headers, body, expected mapping or nil for 404)
    typealias Probe = (String, String, [(String, String)], String, String?)

    static let probes: [Probe] = [
        ("GET", "/exact?a=1&b=2", [], "", "url"),
        ("GET", "/exact?b=2&a=1", [], "", nil),
        ("GET", "/exact", [], "", nil),
        ("GET", "/pattern/42?x=y", [], "", "urlPattern"),
        ("GET", "/pattern/42", [], "", nil),
        ("GET", "/path/only?anything=1", [], "", "urlPath"),
        ("GET", "/users/ann/orders", [], "", "urlPathPattern"),
        ("GET", "/users/4nn/orders", [], "", nil),
        ("GET", "/contacts/12/addresses/7", [], "", "template"),
        ("GET", "/contacts/13/addresses/7", [], "", nil),
        ("GET", "/contacts/12/addresses/x", [], "", nil),
        ("GET", "/q?search=SWIFT&page=2", [], "", "query"),
        ("GET", "/q?search=swift&page=2&debug=1", [], "", nil),
        ("GET", "/q?search=swift", [], "", nil),
        ("GET", "/q-exact?id=2&id=1", [], "", "queryExact"),
        ("GET", "/q-exact?id=1&id=2&id=3", [], "", nil),
        ("GET", "/q-includes?id=1&id=3", [], "", "queryIncludes"),
        ("GET", "/h", [("X-API-KEY", "k1"), ("Accept", "application/json"), ("X-Trace", "info")], "", "headers"),
        // As in WireMock, a matcher other than absent needs the header there, even doesNotContain.
        ("GET", "/h", [("X-API-KEY", "k1"), ("Accept", "application/json")], "", nil),
        ("GET", "/h", [("X-API-KEY", "k1"), ("Accept", "application/json"), ("X-Trace", "debug=1")], "", nil),
        ("GET", "/h", [("X-API-KEY", "k2"), ("Accept", "application/json")], "", nil),
        ("GET", "/c", [("Cookie", "theme=dark; session=s-42")], "", "cookies"),
        ("GET", "/c", [("Cookie", "session=t-42")], "", nil),
        ("GET", "/auth", [("Authorization", "Basic YW5uOnMzY3JldA==")], "", "basicAuth"),
        ("GET", "/auth", [("Authorization", "Basic YW5uOndyb25n")], "", nil),
        ("POST", "/b/equal", [], "HELLO", "bodyEqual"),
        ("POST", "/b/json", [], #"{"tags": ["a", "b"], "name": "ann"}"#, "bodyJson"),
        ("POST", "/b/json", [], #"{"tags": ["b", "a"], "name": "ann"}"#, nil),
        ("POST", "/b/json", [], #"{"tags": ["a", "b"], "name": "ann", "extra": 1}"#, nil),
        ("POST", "/b/json-loose", [], #"{"tags": ["a", "c", "b"], "name": "ann"}"#, "bodyJsonLoose"),
        ("POST", "/b/json-unit", [], #"{"id": 7, "name": "x", "code": "ABC", "at": [1]}"#, "bodyJsonUnit"),
        ("POST", "/b/json-unit", [], #"{"id": "7", "name": "x", "code": "ABC", "at": 1}"#, nil),
        ("POST", "/b/json-unit", [], #"{"id": 7, "name": "x", "code": "abc", "at": 1}"#, nil),
        ("POST", "/b/path", [], #"{"items": [{"price": 5}, {"price": 12}]}"#, "jsonPath"),
        ("POST", "/b/path", [], #"{"items": [{"price": 5}]}"#, nil),
        ("POST", "/b/path-nested", [], #"{"user": {"age": 3, "name": "ann"}}"#, "jsonPathNested"),
        ("POST", "/b/path-nested", [], #"{"user": {"age": 4, "name": "ann"}}"#, nil),
        ("POST", "/b/logic", [], "a and y", "logic"),
        ("POST", "/b/logic", [], "a and y and z", nil),
        ("POST", "/b/not-match", [], "public", "doesNotMatch"),
        ("POST", "/b/not-match", [], "top secret", nil),
        ("GET", "/n?age=18", [], "", "numbers"),
        ("GET", "/n?age=17.5", [], "", nil),
        ("PATCH", "/methods", [], "", "oneOf"),
        ("GET", "/methods", [], "", nil),
        ("OPTIONS", "/methods-none", [], "", "noneOf"),
        ("DELETE", "/methods-none", [], "", nil),
        ("BREW", "/any", [], "", "any"),
        ("POST", "/form", [("Content-Type", "application/x-www-form-urlencoded")], "user=ann+b&x=1", "form"),
    ]

    func testEachRuleMatchesWhatItShouldAndNothingElse() throws {
        let h = try harness()
        for (method, target, headers, body, expected) in Self.probes {
            let response = try h.send(method, target, headers: headers, body: body)
            if let expected {
                XCTAssertEqual(response.status, 200, "\(method) \(target) \(body)")
                XCTAssertEqual(response.text, expected, "\(method) \(target) \(body)")
            } else {
                XCTAssertEqual(response.status, 404, "\(method) \(target) \(body) matched \(response.text)")
            }
        }
        // A binary body, sent as bytes.
        let c = try WireConnection(port: h.server.port)
        c.send(Array("POST /b/binary HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n".utf8) + [0, 1, 2, 255])
        XCTAssertEqual(try c.readResponse().text, "binary")
    }

    /// Priority first (1 is highest, default 5); among equals the most recently added wins.
    func testPriorityAndTheTieRule() async throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "a.json": #"""
                {"mappings": [
                  {"request": {"urlPath": "/tie"}, "response": {"body": "first"}},
                  {"request": {"urlPath": "/tie"}, "response": {"body": "second"}},
                  {"priority": 1, "request": {"urlPattern": "/prio.*"}, "response": {"body": "high"}},
                  {"request": {"urlPath": "/prio"}, "response": {"body": "default"}}
                ]}
                """#
            ]
        )
        XCTAssertEqual(try h.send("GET", "/tie").text, "second", "the later of two equals")
        XCTAssertEqual(try h.send("GET", "/prio").text, "high", "priority 1 beats a more specific priority 5")
        let created = try await h.json(
            "POST",
            "/__admin/mappings",
            #"{"request": {"urlPath": "/tie"}, "response": {"body": "runtime"}}"#
        )
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(try h.send("GET", "/tie").text, "runtime", "added at run time: the most recent")
        _ = try await h.json(
            "POST",
            "/__admin/mappings",
            #"{"request": {"urlPath": "/tie"}, "response": {"body": "newer"}}"#
        )
        XCTAssertEqual(try h.send("GET", "/tie").text, "newer")
        _ = try await h.json(
            "POST",
            "/__admin/mappings",
            #"{"priority": 6, "request": {"urlPath": "/tie"}, "response": {"body": "low"}}"#
        )
        XCTAssertEqual(try h.send("GET", "/tie").text, "newer", "recency does not beat priority")
    }

    /// Scenarios start in "Started"; a mapping without requiredScenarioState matches in any
    /// state and may still move the scenario on.
    func testScenarios() throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "s.json": #"""
                {"mappings": [
                  {"scenarioName": "flow", "requiredScenarioState": "Started", "newScenarioState": "two", "request": \#
                {"urlPath": "/step"}, "response": {"body": "1"}},
                  {"scenarioName": "flow", "requiredScenarioState": "two", "newScenarioState": "three", "request": \#
                {"urlPath": "/step"}, "response": {"body": "2"}},
                  {"scenarioName": "flow", "requiredScenarioState": "three", "request": {"urlPath": "/step"}, \#
                "response": {"body": "3"}},
                  {"scenarioName": "flow", "newScenarioState": "Started", "request": {"urlPath": "/restart"}, \#
                "response": {"body": "again"}}
                ]}
                """#
            ]
        )
        XCTAssertEqual(
            try ["/step", "/step", "/step", "/step"].map { try h.send("GET", $0).text },
            ["1", "2", "3", "3"]
        )
        XCTAssertEqual(try h.send("GET", "/restart").text, "again")
        XCTAssertEqual(try h.send("GET", "/step").text, "1")
    }

    /// The near-miss report names WireMock's conditions, without restating the path for url.
    func testNearMissNamesWireMockConditions() throws {
        let h = try harness()
        let response = try h.send("GET", "/h", headers: [("X-API-KEY", "wrong"), ("Accept", "text/html")])
        XCTAssertEqual(response.status, 404)
        XCTAssertTrue(response.text.contains(#"header.x-api-key: expected equalTo "k1", got "wrong""#), response.text)
        let url = try h.send("GET", "/exact?a=1")
        XCTAssertTrue(url.text.contains(#"url: expected equalTo "/exact?a=1&b=2", got /exact?a=1"#), url.text)
    }
}
