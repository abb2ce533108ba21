import Foundation
import HTTP1
import JSON
import StubEngine
import TestSupport
import XCTest

/// What WireMock responses send, checked on the wire: status messages, repeated headers, the
/// body forms, delays, dribbling, the four faults, proxying, and response templates.
final class WireMockResponseTests: XCTestCase {
    func testStatusMessageHeadersAndBodies() throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "r.json": #"""
                {"mappings": [
                  {"request": {"urlPath": "/teapot"}, "response": {"status": 418, "statusMessage": "I'm a little \#
                teapot", "headers": {"Set-Cookie": ["a=1", "b=2"], "X-One": "1"}, "body": "short and stout"}},
                  {"request": {"urlPath": "/b64"}, "response": {"base64Body": "AAEC/w=="}},
                  {"request": {"urlPath": "/json"}, "response": {"jsonBody": [1, {"a": "b"}], "headers": \#
                {"Content-Type": "application/json"}}},
                  {"request": {"urlPath": "/file"}, "response": {"bodyFileName": "nested/data.bin"}},
                  {"request": {"urlPath": "/empty"}, "response": {"status": 204}}
                ]}
                """#
            ],
            files: ["nested/data.bin": [9, 8, 7]]
        )
        let teapot = try h.send("GET", "/teapot")
        XCTAssertEqual(teapot.statusLine, "HTTP/1.1 418 I'm a little teapot")
        XCTAssertEqual(teapot.headers.filter { $0.0 == "Set-Cookie" }.map(\.1), ["a=1", "b=2"])
        XCTAssertEqual(teapot.text, "short and stout")
        XCTAssertNil(teapot.header("Content-Type"), "WireMock adds no Content-Type the mapping does not set")
        XCTAssertEqual(try h.send("GET", "/b64").body, [0, 1, 2, 255])
        XCTAssertEqual(try h.send("GET", "/json").text, #"[1,{"a":"b"}]"#)
        XCTAssertEqual(try h.send("GET", "/file").body, [9, 8, 7])
        XCTAssertEqual(try h.send("GET", "/empty").status, 204)
    }

    func testDelaysAndDribbling() throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "d.json": #"""
                {"mappings": [
                  {"request": {"urlPath": "/fixed"}, "response": {"fixedDelayMilliseconds": 200, "body": "late"}},
                  {"request": {"urlPath": "/uniform"}, "response": {"delayDistribution": {"type": "uniform", "lower": \#
                100, "upper": 150}, "body": "u"}},
                  {"request": {"urlPath": "/lognormal"}, "response": {"delayDistribution": {"type": "lognormal", \#
                "median": 50, "sigma": 0.1, "maxValue": 200}, "body": "l"}},
                  {"request": {"urlPath": "/dribble"}, "response": {"chunkedDribbleDelay": {"numberOfChunks": 4, \#
                "totalDuration": 400}, "body": "0123456789abcdef"}}
                ]}
                """#
            ]
        )
        for (path, least) in [("/fixed", 0.2), ("/uniform", 0.1), ("/lognormal", 0.02), ("/dribble", 0.3)] {
            let started = Date()
            let response = try h.send("GET", path)
            XCTAssertEqual(response.status, 200, path)
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), least - 0.01, path)
        }
        XCTAssertEqual(try h.send("GET", "/dribble").text, "0123456789abcdef", "dribbled, framing intact")
    }

    func testFaults() throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "f.json": #"""
                {"mappings": [
                  {"request": {"urlPath": "/empty"}, "response": {"fault": "EMPTY_RESPONSE"}},
                  {"request": {"urlPath": "/reset"}, "response": {"fault": "CONNECTION_RESET_BY_PEER"}},
                  {"request": {"urlPath": "/random"}, "response": {"fault": "RANDOM_DATA_THEN_CLOSE"}},
                  {"request": {"urlPath": "/chunk"}, "response": {"fault": "MALFORMED_RESPONSE_CHUNK"}}
                ]}
                """#
            ]
        )
        func raw(_ path: String) throws -> (bytes: [UInt8], closed: Bool, reset: Bool) {
            let c = try WireConnection(port: h.server.port)
            c.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            let (bytes, closed) = c.readUntilClose()
            return (bytes, closed, c.sawReset)
        }
        let empty = try raw("/empty")
        XCTAssertEqual(empty.bytes, [])
        XCTAssertTrue(empty.closed && !empty.reset)
        let reset = try raw("/reset")
        XCTAssertTrue(reset.reset, "a TCP reset")
        let random = try raw("/random")
        XCTAssertTrue(random.closed && random.bytes.count >= 16 && !random.bytes.starts(with: Array("HTTP/".utf8)))
        let chunk = try raw("/chunk")
        let text = String(decoding: chunk.bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") && chunk.closed, text)
        XCTAssertFalse(text.hasSuffix("0\r\n\r\n"), "the body is not a valid chunk sequence")
    }

    func testProxyBaseUrl() throws {
        let upstream = try ScriptedUpstream { request in
            [.response(200, headers: [("X-Upstream", "yes")], body: Array("from upstream \(request.target)".utf8))]
        }
        addTeardownBlock { upstream.stop() }
        let h = try WireMockHarness(
            self,
            mappings: [
                "p.json": #"""
                {"request": {"urlPathPattern": "/api/.*"},
                 "response": {"proxyBaseUrl": "http://127.0.0.1:\#(upstream.port)/base", "proxyUrlPrefixToRemove": \#
                "/api",
                              "additionalProxyRequestHeaders": {"X-Added": "1"}, "removeProxyRequestHeaders": \#
                ["X-Secret"]}}
                """#
            ]
        )
        let response = try h.send("GET", "/api/users?id=3", headers: [("X-Secret", "s"), ("X-Kept", "k")])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "from upstream /base/users?id=3")
        XCTAssertEqual(response.header("X-Upstream"), "yes")
        let seen = try XCTUnwrap(upstream.requests.first)
        XCTAssertEqual(seen.header("X-Added"), "1")
        XCTAssertNil(seen.header("X-Secret"))
        XCTAssertEqual(seen.header("X-Kept"), "k")
    }

    /// The `response-template` transformer with the helpers real folders use most.
    func testResponseTemplates() throws {
        let cases: [(template: String, target: String, headers: [(String, String)], body: String, expected: String)] = [
            // Handlebars escapes = and & too, as WireMock's does; {{{...}}} does not.
            ("{{request.url}}", "/t?a=1&b=2", [], "", "/t?a&#x3D;1&amp;b&#x3D;2"),
            ("{{{request.url}}}", "/t?a=1&b=2", [], "", "/t?a=1&b=2"),
            ("{{request.path}}", "/t?a=1", [], "", "/t"),
            ("{{request.pathSegments.[1]}}/{{request.path.[0]}}", "/t/seg", [], "", "seg/t"),
            ("{{request.query.a}} {{request.query.b}} {{request.query.b.[1]}}", "/t?a=1&b=x&b=y", [], "", "1 [x, y] y"),
            ("{{request.headers.X-Id}} {{request.headers.[x-id]}}", "/t", [("X-Id", "h1")], "", "h1 h1"),
            ("{{request.method}} {{request.body}}", "/t", [], "plain", "POST plain"),
            ("{{jsonPath request.body '$.user.name'}}", "/t", [], #"{"user": {"name": "ann"}}"#, "ann"),
            ("{{regexExtract request.body '[0-9]+'}}", "/t", [], "order 42 of 7", "42"),
            ("{{#if request.query.flag}}on{{else}}off{{/if}}", "/t", [], "", "off"),
            ("{{#unless request.query.flag}}no flag{{/unless}}", "/t", [], "", "no flag"),
            (
                "{{#each (jsonPath request.body '$.ids')}}<{{this}}>{{/each}}", "/t", [], #"{"ids": [1, 2, 3]}"#,
                "<1><2><3>"
            ),
            ("{{#eq request.method 'POST'}}post{{/eq}}", "/t", [], "", "post"),
            ("{{request.body}}", "/t", [], "<b>&\"", "&lt;b&gt;&amp;&quot;"),
            ("{{{request.body}}}", "/t", [], "<b>", "<b>"),
        ]
        let mappings = cases.enumerated().map { i, c in
            #"""
            {"request": {"urlPathPattern": "/t.*", "headers": {"X-Case": {"equalTo": "\#(i)"}}}, "response": \#
            {"body": \#(JSONSerializer.quoted(c.template)), "transformers": ["response-template"]}}
            """#
        }
        let h = try WireMockHarness(
            self,
            mappings: ["t.json": #"{"mappings": ["# + mappings.joined(separator: ",") + "]}"]
        )
        for (i, c) in cases.enumerated() {
            let response = try h.send("POST", c.target, headers: c.headers + [("X-Case", "\(i)")], body: c.body)
            XCTAssertEqual(response.text, c.expected, c.template)
        }
    }

    func testTemplatedHeadersDatesRandomValuesAndFileNames() throws {
        let h = try WireMockHarness(
            self,
            mappings: [
                "t.json": #"""
                {"mappings": [
                  {"request": {"urlPathTemplate": "/files/{name}"},
                   "response": {"bodyFileName": "{{request.path.name}}.txt", "headers": {"X-Name": \#
                "{{request.path.name}}"}, "transformers": ["response-template"]}},
                  {"request": {"urlPath": "/now"},
                   "response": {"body": "{{now format='yyyy'}}|{{now offset='1 days' format='epoch'}}|{{randomValue \#
                length=6 type='NUMERIC'}}", "transformers": ["response-template"]}},
                  {"request": {"urlPath": "/static"}, "response": {"body": "{{request.path}}"}}
                ]}
                """#
            ],
            files: ["a.txt": Array("file a for {{request.method}}".utf8), "b.txt": Array("file b".utf8)]
        )
        // The files were read when the folder loaded: answering never reads the disk.
        try FileManager.default.removeItem(at: h.folder.appendingPathComponent("__files"))
        let a = try h.send("GET", "/files/a")
        XCTAssertEqual(a.text, "file a for GET")
        XCTAssertEqual(a.header("X-Name"), "a")
        XCTAssertEqual(try h.send("GET", "/files/b").text, "file b")
        let missing = try h.send("GET", "/files/c")
        XCTAssertEqual(missing.status, 500)
        XCTAssertTrue(missing.text.contains("c.txt"), missing.text)
        let parts = try h.send("GET", "/now").text.split(separator: "|")
        XCTAssertEqual(parts.count, 3)
        XCTAssertEqual(String(parts[0]), String(Calendar(identifier: .gregorian).component(.year, from: Date())))
        let tomorrow = (Double(parts[1]) ?? 0) / 1000 - Date().timeIntervalSince1970
        XCTAssertEqual(tomorrow, 86_400, accuracy: 60)
        XCTAssertTrue(parts[2].count == 6 && parts[2].allSatisfy(\.isNumber))
        XCTAssertEqual(try h.send("GET", "/static").text, "{{request.path}}", "without the transformer, not a template")
    }
}
