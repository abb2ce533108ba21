import HTTP1
import JSON
import NativeStubs
@testable import StubEngine
import XCTest

final class TemplateTests: XCTestCase {
    func testEveryRequestVariable() throws {
        let e = engine(
            #"""
            {"request": {"path": "/users/{id}/echo"}, "response": {"template": true,
              "headers": {"X-Echo": "{{request.method}} {{request.path}}", "Location": \#
            "{{request.baseUrl}}/users/{{request.path.id}}"},
              "body": "id={{request.path.id}} q={{request.query.q}} ua={{request.headers.User-Agent}} \#
            name={{request.json./user/name}} raw={{request.body}} missing=[{{request.query.nope}}]"}}
            """#
        )
        let response = e.handle(
            makeRequest(
                "POST",
                "/users/42/echo?q=swift",
                headers: [("User-Agent", "App/1")],
                body: #"{"user":{"name":"ann"}}"#
            )
        ).answered
        XCTAssertEqual(response.bodyText, #"id=42 q=swift ua=App/1 name=ann raw={"user":{"name":"ann"}} missing=[]"#)
        XCTAssertEqual(response.prepared.headers["X-Echo"], "POST /users/42/echo")
        XCTAssertEqual(response.prepared.headers["Location"], "http://api.example.com:8080/users/42")
    }

    func testJSONBodyStaysValidWhateverTheClientSent() throws {
        let e = engine(
            #"""
            {"request": {"path": "/echo"}, "response": {"template": true,
              "body": {"said": "{{request.body}}", "count": "{{request.json./n}}", "greeting": "hi \#
            {{request.query.name}}!", "static": [1, "x"]}}}
            """#
        )
        let nasty = "quote\" backslash\\ newline\n tab\t </script> \u{1}"
        let response = e.handle(makeRequest("POST", "/echo?name=%22bob%22", body: nasty)).answered
        let parsed = try JSONParser.parse(response.prepared.body)
        XCTAssertEqual(parsed["said"]?.string, nasty)
        XCTAssertEqual(parsed["count"]?.string, "", "a string that is exactly one {{...}} stays a string")
        XCTAssertEqual(parsed["greeting"]?.string, "hi \"bob\"!")
        XCTAssertEqual(JSONSerializer.string(parsed["static"]!), #"[1,"x"]"#)
        let numeric = e.handle(makeRequest("POST", "/echo", body: #"{"n": 5}"#)).answered
        XCTAssertEqual(try JSONParser.parse(numeric.prepared.body)["count"]?.string, "5")
    }

    func testNowUUIDAndRandomInt() throws {
        let e = engine(
            #"""
            {"response": {"template": true, "body": "{{now}}|{{now +1d}}|{{now -90m}}|{{uuid}}|{{randomInt 5 7}}"}}
            """#
        )
        let before = Int(Date().timeIntervalSince1970)
        let parts = e.handle(makeRequest("GET", "/")).answered.bodyText.split(separator: "|").map(String.init)
        XCTAssertEqual(parts.count, 5)
        let formatter = ISO8601DateFormatter()
        let now = try XCTUnwrap(formatter.date(from: parts[0])).timeIntervalSince1970
        XCTAssertLessThanOrEqual(abs(Int(now) - before), 2)
        XCTAssertEqual(try XCTUnwrap(formatter.date(from: parts[1])).timeIntervalSince1970 - now, 86_400, accuracy: 2)
        XCTAssertEqual(try XCTUnwrap(formatter.date(from: parts[2])).timeIntervalSince1970 - now, -5400, accuracy: 2)
        XCTAssertNotNil(UUID(uuidString: parts[3]))
        XCTAssertEqual(parts[3], parts[3].lowercased())
        XCTAssertTrue((5...7).contains(Int(parts[4]) ?? 0))
        XCTAssertNotEqual(
            e.handle(makeRequest("GET", "/")).answered.bodyText.split(separator: "|")[3],
            Substring(parts[3])
        )
    }

    func testRFC3339Arithmetic() {
        XCTAssertEqual(DateFormats.rfc3339(epochMilliseconds: 0, withMilliseconds: false), "1970-01-01T00:00:00Z")
        XCTAssertEqual(
            DateFormats.rfc3339(epochMilliseconds: 1_795_000_000_000, withMilliseconds: false),
            "2026-11-18T11:06:40Z"
        )
        XCTAssertEqual(DateFormats.rfc3339(epochMilliseconds: -1000, withMilliseconds: false), "1969-12-31T23:59:59Z")
        XCTAssertEqual(
            DateFormats.rfc3339(epochMilliseconds: 1_795_000_000_042, withMilliseconds: true),
            "2026-11-18T11:06:40.042Z"
        )
        XCTAssertEqual(DateFormats.rfc3339(epochMilliseconds: -1, withMilliseconds: true), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(DateFormats.clock(epochMilliseconds: 1_795_000_000_042), "11:06:40.042")
    }

    func testTemplatesAreOffByDefaultAndStaticStubsKeepTheirBytes() {
        let e = engine(
            #"""
            [{"request": {"path": "/a"}, "response": {"body": "{{request.path}}"}}, {"request": {"path": "/b"}, \#
            "response": {"template": true, "body": "plain"}}]
            """#
        )
        XCTAssertEqual(e.handle(makeRequest("GET", "/a")).answered.bodyText, "{{request.path}}")
        XCTAssertFalse(e.catalog.stubs[0].response.isTemplated)
        XCTAssertFalse(e.catalog.stubs[1].response.isTemplated, "nothing to substitute: served as static bytes")
    }

    func testBodyFileTemplates() {
        let folder = TemporaryFolder()
        folder.write("__files/user.json", #"{"id": "{{request.path.id}}", "n": 1}"#)
        folder.write("__files/page.html", "<h1>{{request.query.title}}</h1>")
        folder.write(
            "s.json",
            #"""
            [{"request": {"path": "/u/{id}"}, "response": {"template": true, "bodyFile": "__files/user.json"}},
             {"request": {"path": "/page"}, "response": {"template": true, "bodyFile": "__files/page.html"}}]
            """#
        )
        let result = folder.load()
        XCTAssertEqual(result.problems, [])
        let e = Engine(stubs: result.stubs)
        XCTAssertEqual(e.handle(makeRequest("GET", "/u/a%22b")).answered.bodyText, #"{"id":"a\"b","n":1}"#)
        XCTAssertEqual(e.handle(makeRequest("GET", "/page?title=Hi")).answered.bodyText, "<h1>Hi</h1>")
    }

    func testTemplateErrorsAreLoadErrorsWithTheirPath() {
        let cases: [(String, String, String)] = [
            (#"{"response": {"template": true, "body": "{{request.nope}}"}}"#, "$.response.body", "unknown variable"),
            (#"{"response": {"template": true, "body": "{{uuid"}}"#, "$.response.body", "without a closing"),
            (
                #"{"response": {"template": true, "body": {"a": {"b": ["{{nwo}}"]}}}}"#, "$.response.body.a.b[0]",
                "did you mean now?"
            ),
            (
                #"{"request": {"path": "/u/{id}"}, "response": {"template": true, "body": "{{request.path.user}}"}}"#,
                "$.response.body", "no {user} in the request path"
            ),
            (
                #"{"response": {"template": true, "body": "{{request.json.user}}"}}"#, "$.response.body",
                "starts with '/'"
            ),
            (#"{"response": {"template": true, "body": "{{request.json./a~2}}"}}"#, "$.response.body", "~0"),
            (#"{"response": {"template": true, "body": "{{now +3y}}"}}"#, "$.response.body", "unit s, m, h or d"),
            (#"{"response": {"template": true, "body": "{{randomInt 9 1}}"}}"#, "$.response.body", "MIN <= MAX"),
            (
                #"{"response": {"template": true, "headers": {"X-A": "{{request.header.x}}"}}}"#,
                "$.response.headers.X-A", "unknown variable"
            ),
            (#"{"response": {"template": "yes", "body": "x"}}"#, "$.response.template", "true or false"),
            (#"{"response": {"template": true, "bodyBase64": "AA=="}}"#, "$.response.template", "text bodies"),
        ]
        assertLoadErrors(cases)
    }

    func testTemplateWithoutVariablesWarns() {
        let folder = TemporaryFolder()
        folder.write("s.json", #"{"response": {"template": true, "body": "static"}}"#)
        let result = folder.load()
        XCTAssertTrue(result.isServable)
        XCTAssertEqual(result.warnings.first?.jsonPath, "$.response.template")
    }
}
