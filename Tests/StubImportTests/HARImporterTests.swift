import Foundation
import JSON
@testable import StubImport
import StubEngine
import XCTest

/// What HAR entries become: conditions, sequences, headers kept and dropped, where bodies go,
/// what is skipped and why.
final class HARImporterTests: XCTestCase {
    /// A HAR of entries given as (method, url, status, response headers, content members, post data).
    private func har(_ entries: [(String, String, Int, [(String, String)], String, String?)]) -> [UInt8] {
        let list = entries.map { method, url, status, headers, content, post in
            let headerList = headers.map {
                #"{"name": \#(JSONSerializer.quoted($0.0)), "value": \#(JSONSerializer.quoted($0.1))}"#
            }.joined(separator: ", ")
            let postData = post.map { #", "postData": \#($0)"# } ?? ""
            return
                #"""
                {"request": {"method": "\#(method)", "url": "\#(url)", "headers": []\#(postData)}, "response": \#
                {"status": \#(status), "headers": [\#(headerList)], "content": {\#(content)}}}
                """#
        }
        return Array(#"{"log": {"version": "1.2", "entries": [\#(list.joined(separator: ",\n"))]}}"#.utf8)
    }

    private func plan(_ bytes: [UInt8], _ options: HARImportOptions = .init()) throws -> HARImporter.Outcome {
        try HARImporter.plan(bytes, name: "capture.har", options: options).get()
    }

    private func stubs(_ outcome: HARImporter.Outcome, _ file: String) throws -> [JSONNode] {
        let found = try XCTUnwrap(
            outcome.plan.files.first { $0.relativePath == file },
            "\(outcome.plan.files.map(\.relativePath))"
        )
        let root = try JSONParser.parse(found.bytes)
        return root.elements ?? [root]
    }

    func testHeadersThatDescribeTheRecordedConnectionOrSecretsAreLeftOut() throws {
        let headers = [
            (":status", "200"), ("content-type", "application/json"), ("Content-Length", "9"),
            ("Transfer-Encoding", "chunked"),
            ("Connection", "keep-alive"), ("Keep-Alive", "timeout=5"), ("Date", "Mon"), ("Server", "nginx"),
            ("Content-Encoding", "gzip"), ("Set-Cookie", "s=1"), ("set-cookie", "t=2"), ("X-Request-Id", "r1"),
            ("ETag", "\"e\""), ("Bad Name", "x"), ("X-Multi", "a"), ("x-multi", "b"),
        ]
        let bytes = har([
            (
                "GET", "https://api.example.com/v1/me", 200, headers,
                #""mimeType": "application/json", "text": "{\"a\":1}""#, nil
            )
        ])
        let outcome = try plan(bytes)
        let response = try stubs(outcome, "get-v1-me.json")[0]["response"]
        XCTAssertEqual(
            JSONSerializer.string(response ?? .null),
            #"{"status":200,"headers":{"content-type":"application/json","X-Request-Id":"r1","ETag":"\"e\"","#
                + #""X-Multi":["a","b"]},"body":{"a":1}}"#
        )
        XCTAssertEqual(outcome.droppedSecrets, ["set-cookie": 2])
        XCTAssertTrue(
            outcome.summary.hasSuffix("secret headers left out: set-cookie 2× (--keep-secrets keeps them)"),
            outcome.summary
        )
        let kept = try plan(bytes, HARImportOptions(keepSecrets: true))
        XCTAssertEqual(try stubs(kept, "get-v1-me.json")[0]["response"]?["headers"]?["Set-Cookie"]?.elements?.count, 2)
    }

    func testBodiesGoInlineOnlyWhenServingThemGivesTheRecordedBytes() throws {
        let bytes = har([
            (
                "GET", "https://a.example/compact", 200, [("Content-Type", "application/json")],
                #""mimeType": "application/json", "text": "{\"a\":[1,2.50]}""#, nil
            ),
            (
                "GET", "https://a.example/pretty", 200, [("Content-Type", "application/json")],
                #""mimeType": "application/json", "text": "{\n  \"a\": 1\n}""#, nil
            ),
            (
                "GET", "https://a.example/escaped", 200, [("Content-Type", "application/json")],
                #""mimeType": "application/json", "text": "{\"a\":\"\\u00e9\"}""#, nil
            ),
            (
                "GET", "https://a.example/text", 200, [("Content-Type", "text/plain")],
                #""mimeType": "text/plain", "text": "hello\r\n""#, nil
            ),
            (
                "GET", "https://a.example/logo", 200, [("Content-Type", "image/png")],
                #""mimeType": "image/png", "encoding": "base64", "text": "iVBORw0KGgo=""#, nil
            ),
            (
                "GET", "https://a.example/quoted", 200, [("Content-Type", "application/json")],
                #""mimeType": "application/json", "text": "\"s\"""#, nil
            ),
        ])
        let outcome = try plan(bytes)
        let body = { (file: String) in
            try self.stubs(outcome, file)[0]["response"].map { node in
                node["body"].map(JSONSerializer.string) ?? node["bodyFile"]?.string ?? "none"
            } ?? "none"
        }
        XCTAssertEqual(try body("get-compact.json"), #"{"a":[1,2.50]}"#)
        XCTAssertEqual(try body("get-pretty.json"), "__files/get-pretty-1.json")
        XCTAssertEqual(try body("get-escaped.json"), "__files/get-escaped-1.json", "\\u00e9 would be served as é")
        XCTAssertEqual(try body("get-text.json"), #""hello\r\n""#)
        XCTAssertEqual(try body("get-logo.json"), "__files/get-logo-1.png")
        XCTAssertEqual(try body("get-quoted.json"), "__files/get-quoted-1.json", "a bare JSON string is no stub body")
        XCTAssertEqual(
            outcome.plan.bodyFiles.first { $0.relativePath == "__files/get-logo-1.png" }?.bytes,
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        )
    }

    func testRepeatedRequestsReplayInCaptureOrderAndBodiesSplitOnlyWhenTheyDiffer() throws {
        let json = "application/json"
        let bytes = har([
            ("GET", "https://a.example/poll?x=1&x=2&_=1", 202, [], #""mimeType": "text/plain", "text": "wait""#, nil),
            ("GET", "https://a.example/poll?_=1&x=1", 200, [], #""mimeType": "text/plain", "text": "done""#, nil),
            ("GET", "https://a.example/poll", 200, [], #""mimeType": "text/plain", "text": "plain""#, nil),
            (
                "POST", "https://a.example/graphql", 200, [],
                #""mimeType": "application/json", "text": "{\"data\":1}""#,
                #"{"mimeType": "\#(json)", "text": "{\"query\":\"a\"}"}"#
            ),
            (
                "POST", "https://a.example/graphql", 200, [],
                #""mimeType": "application/json", "text": "{\"data\":2}""#,
                #"{"mimeType": "\#(json)", "text": "{\"query\":\"b\"}"}"#
            ),
            ("POST", "https://a.example/log", 204, [], #""size": 0"#, #"{"mimeType": "text/plain", "text": "one"}"#),
            ("POST", "https://a.example/log", 204, [], #""size": 0"#, #"{"mimeType": "text/plain", "text": "one"}"#),
        ])
        let outcome = try plan(bytes)
        let poll = try stubs(outcome, "get-poll.json")
        XCTAssertEqual(poll.count, 2)
        XCTAssertEqual(JSONSerializer.string(poll[0]["request"]?["query"] ?? .null), #"{"x":"1","_":"1"}"#)
        XCTAssertEqual(poll[0]["responses"]?.elements?.map { $0["body"]?.string ?? "" }, ["wait", "done"])
        XCTAssertNil(poll[1]["request"]?["query"])
        let graphql = try stubs(outcome, "post-graphql.json")
        XCTAssertEqual(
            graphql.map { JSONSerializer.string($0["request"]?["body"] ?? .null) },
            [#"{"jsonEquals":{"query":"a"}}"#, #"{"jsonEquals":{"query":"b"}}"#]
        )
        let log = try stubs(outcome, "post-log.json")
        XCTAssertNil(log[0]["request"]?["body"], "the same body every time: no body condition")
        // The recorder's rule, now that both use one planner: the same answer twice is one response.
        XCTAssertNil(log[0]["responses"], "two identical answers are one response, not a sequence of copies")
        XCTAssertEqual(log[0]["response"]?["status"]?.number?.value, 204)
        XCTAssertEqual(outcome.summary, "5 stubs from 7 entries in 3 files")
    }

    func testWhatIsSkippedIsCountedWithItsReason() throws {
        let bytes = har([
            ("GET", "https://a.example/blocked", 0, [], #""size": 0, "mimeType": "x-unknown""#, nil),
            ("GET", "https://a.example/image", 200, [], #""mimeType": "image/png""#, nil),
            ("GET", "https://a.example/nothing", 200, [], #""size": 0, "mimeType": """#, nil),
            ("GET", "wss://a.example/socket", 101, [], #""size": 0"#, nil),
            ("CONNECT", "https://a.example:443", 200, [], #""size": 0"#, nil),
            ("GET", "https://other.example/x", 200, [], #""size": 0"#, nil),
            ("GET", "https://a.example/__admin/stubs", 200, [], #""size": 0"#, nil),
            (
                "GET", "https://a.example/not-modified", 304, [], #""mimeType": "text/html", "text": "<p>cached</p>""#,
                nil
            ),
        ])
        let outcome = try plan(bytes, HARImportOptions(hosts: ["A.example"]))
        XCTAssertEqual(outcome.plan.files.map(\.relativePath), ["get-nothing.json", "get-not-modified.json"])
        XCTAssertNil(try stubs(outcome, "get-not-modified.json")[0]["response"]?["body"], "a 304 carries no body")
        XCTAssertEqual(
            outcome.summary,
            """
            2 stubs from 2 entries in 2 files; 6 entries skipped (1: status 0 (no response: blocked, cancelled \
            or failed); 1: response body not recorded (the tool saved no content text); 1: not an http(s) URL \
            (wss://a.example/sock...); 1: CONNECT (a proxy tunnel, not a request to the API); 1: another host \
            (not --host); 1: path under /__admin/ (stubserver's admin API))
            """
        )
        XCTAssertEqual(outcome.plan.problems.count, 6)
        XCTAssertTrue(
            outcome.plan.problems[0].description.hasPrefix("capture.har:1:40: note: entry skipped: status 0"),
            outcome.plan.problems[0].description
        )
    }

    func testPathsKeepCharactersThatMeanSomethingInAStubPath() throws {
        let bytes = har([
            ("GET", "https://a.example/files/%2A/100%25/%7Bx%7D/caf%C3%A9?q=a%20b", 200, [], #""size": 0"#, nil)
        ])
        let stub = try stubs(try plan(bytes), "get-files-100-x-caf.json")[0]
        XCTAssertEqual(stub["request"]?["path"]?.string, "/files/%2A/100%25/%7Bx%7D/café")
        XCTAssertEqual(stub["request"]?["query"]?["q"]?.string, "a b")
    }

    func testByteOrderMarkAndMalformedFiles() throws {
        let withBOM = [0xEF, 0xBB, 0xBF] + har([("GET", "https://a.example/", 200, [], #""size": 0"#, nil)])
        XCTAssertEqual(try plan(withBOM).plan.files.map(\.relativePath), ["get-root.json"])
        for (text, fragment) in [("{}", "not a HAR file: expected {\"log\""), ("[1,", "not a HAR file (HAR is JSON)")] {
            switch HARImporter.plan(Array(text.utf8), name: "x.har") {
            case .success: XCTFail("accepted \(text)")
            case .failure(let problem): XCTAssertTrue(problem.message.contains(fragment), problem.message)
            }
        }
        let odd = Array(#"{"log": {"entries": [{"request": {"method": "GET"}}, 7]}}"#.utf8)
        XCTAssertEqual(
            try plan(odd).skipped.map(\.reason),
            ["malformed entry (the request has no method or url)", "malformed entry (no request)"]
        )
    }

    /// The recorder's planner reads a capture's sessions and links too: the cookie the server set
    /// and the browser sent back is a condition on a stand-in value, and a redirect to the
    /// capture's own origin leads back to the stub server.
    func testSessionsAndLinksAreTheRecordersToo() throws {
        let json = #"{"name": "Content-Type", "value": "application/json"}"#
        let cookie = #"{"name": "Cookie", "value": "sid=abc123"}"#
        let entries = [
            #"{"request": {"method": "POST", "url": "https://api.example.com/login", "headers": []}, "#
                + #""response": {"status": 302, "headers": [{"name": "Set-Cookie", "value": "sid=abc123; Path=/"}, "#
                + #"{"name": "Location", "value": "https://api.example.com/me"}], "content": {"size": 0}}}"#,
            #"{"request": {"method": "GET", "url": "https://api.example.com/me", "headers": [\#(cookie)]}, "#
                + #""response": {"status": 200, "headers": [\#(json)], "content": {"text": "{\"id\":1}"}}}"#,
            #"{"request": {"method": "GET", "url": "https://api.example.com/me", "headers": []}, "#
                + #""response": {"status": 401, "headers": [\#(json)], "content": {"text": "{}"}}}"#,
        ]
        let bytes = Array(#"{"log": {"entries": [\#(entries.joined(separator: ","))]}}"#.utf8)
        let outcome = try plan(bytes)
        let login = try XCTUnwrap(try stubs(outcome, "post-login.json").first?["response"]?["headers"])
        XCTAssertEqual(login["Set-Cookie"]?.string, "sid=recorded-1; Path=/")
        XCTAssertEqual(login["Location"]?.string, "{{request.baseUrl}}/me")
        let me = try stubs(outcome, "get-me.json")
        XCTAssertEqual(me.count, 2)
        XCTAssertEqual(me[0]["request"]?["headers"]?["Cookie"]?["matches"]?.string, #"(.*;\s*)?sid\=recorded\-1(;.*)?"#)
        XCTAssertNil(me[1]["request"]?["headers"])
        XCTAssertEqual(outcome.droppedSecrets, [:], "the session cookie is written as a stand-in, not left out")
    }
}
