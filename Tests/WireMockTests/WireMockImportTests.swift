import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAuthoring
import StubEngine
import StubImport
import WireMock
import TestSupport
import XCTest

/// `import wiremock`: the corpora converted to stub files answer as the folders did; what the
/// stub format cannot say is listed, each item with its place.
final class WireMockImportTests: XCTestCase {
    /// Imports `folder` into a fresh folder and serves the result natively.
    func importAndServe(_ folder: URL) throws -> (HTTP1Server, WireMockImporter.Result) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("wm-import-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: out) }
        let result = WireMockImporter.plan(folder: folder.path)
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let load = StubLoader(directory: out.path).load()
        XCTAssertEqual(load.errors, [])
        XCTAssertEqual(load.stubs.count, result.mappingCount)
        let engine = Engine(stubs: load.stubs)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return (server, result)
    }

    func get(
        _ server: HTTP1Server,
        _ target: String,
        method: String = "GET",
        headers: [(String, String)] = [],
        body: String = ""
    ) throws -> WireResponse {
        let c = try WireConnection(port: server.port)
        defer { c.close() }
        var head =
            "\(method) \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        c.send(head + "\r\n" + body)
        return try c.readResponse()
    }

    /// The corpus answers again, from native stubs: same status and body bytes.
    func testTheCorporaImportAndAnswerTheSame() throws {
        let remote = try WireMockHarness.corpus("wiremock-tests/remoteloader")
        let (server, result) = try importAndServe(remote)
        XCTAssertEqual(result.mappingCount, 9)
        XCTAssertEqual(result.notes.map(\.description), [])
        XCTAssertEqual(try get(server, "/remote-load/1", method: "PUT").text, "Remote load 1")
        // Issue 29: `url` is exact, query included; the import answered ?x=1 too (404 under --wiremock).
        XCTAssertEqual(try get(server, "/remote-load/1?x=1", method: "PUT").status, 404)
        XCTAssertEqual(
            try get(server, "/remote-load/2", headers: [("Accept", "text/plain")]).header("Content-Type"),
            "text/plain"
        )
        XCTAssertEqual(
            try get(server, "/image-file").body,
            Array(try Data(contentsOf: remote.appendingPathComponent("__files/favicon3.png")))
        )
        XCTAssertEqual(try get(server, "/todo/items").text, "<items><item>Buy milk</item></items>")
        XCTAssertEqual(
            try get(server, "/todo/items", method: "POST", body: "Cancel newspaper subscription").status,
            201
        )
        XCTAssertEqual(
            try get(server, "/todo/items").body,
            Array(try Data(contentsOf: remote.appendingPathComponent("__files/body.xml")))
        )

        let (jsonServer, _) = try importAndServe(try WireMockHarness.corpus("wiremock-tests/test-file-root"))
        XCTAssertEqual(
            try get(jsonServer, "/testjsonmapping").text,
            #"{"bignumber":1234567890.12,"integer_as_float":2.0,"array":[1,2,3],"integer":2,"key":"value"}"#
        )
        let (multi, multiResult) = try importAndServe(try WireMockHarness.corpus("wiremock-tests/multi-stub"))
        XCTAssertEqual(multiResult.mappingCount, 4)
        XCTAssertEqual(try get(multi, "/multi/3").status, 200)
        let (slow, _) = try importAndServe(try WireMockHarness.corpus("wiremock-tests/classpath-filesource"))
        let started = Date()
        XCTAssertEqual(try get(slow, "/slow-response").text, "THINGS!")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.49)
    }

    /// Each loss, named with its place; what converts exactly, converted.
    func testWhatCannotBeSaidIsListed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-import-src-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(
            [
                "m.json": #"""
                {"mappings": [
                  {"request": {"method": "GET", "url": "/search?q=a%20b&page=2"}, "response": {"status": 200, \#
                "statusMessage": "Fine", "body": "found"}},
                  {"request": {"method": {"noneOf": ["DELETE"]}, "urlPath": "/x", "bodyPatterns": \#
                [{"matchesJsonPath": "$.a"}]},
                   "response": {"delayDistribution": {"type": "lognormal", "median": 80, "sigma": 0.4}, "fault": \#
                "MALFORMED_RESPONSE_CHUNK"}},
                  {"request": {"urlPathTemplate": "/users/{id}", "cookies": {"s": {"equalTo": "1"}}, \#
                "basicAuthCredentials": {"username": "u", "password": "p"}},
                   "response": {"body": "user {{request.path.id}} via {{request.method}}", "transformers": \#
                ["response-template"], "headers": {"X-Id": "{{randomValue type='UUID'}}"}}},
                  {"request": {"urlPath": "/t"}, "response": {"body": "{{#each request.query.a}}x{{/each}}", \#
                "transformers": ["response-template"]}}
                ]}
                """#
            ],
            [:],
            into: folder
        )
        let result = WireMockImporter.plan(folder: folder.path)
        let notes = result.notes.map { $0.description.replacingOccurrences(of: folder.path + "/", with: "") }
        let expected = [
            """
            mappings/m.json:2:112: dropped: $.mappings[0].response.statusMessage: the stub format has no reason \
            phrase
            """,
            "mappings/m.json:3:26: dropped: $.mappings[1].request.method: noneOf has no native form",
            """
            mappings/m.json:3:84: dropped: $.mappings[1].request.bodyPatterns[0]: matchesJsonPath $.a has no \
            native form
            """,
            """
            mappings/m.json:4:38: approximated: $.mappings[1].response.delayDistribution: a lognormal delay \
            becomes a fixed delay of its median (80 ms)
            """,
            """
            mappings/m.json:4:98: approximated: $.mappings[1].response.fault: MALFORMED_RESPONSE_CHUNK becomes \
            \"garbage\"
            """,
            """
            mappings/m.json:5:67: approximated: $.mappings[2].request.cookies.s: the cookie is checked as \
            Cookie containing s=1
            """,
            """
            mappings/m.json:6:92: approximated: $.mappings[2].response.transformers: WireMock HTML-escapes \
            {{...}} output
            """,
            """
            mappings/m.json:7:110: dropped: $.mappings[3].response.transformers: the template uses tags without \
            a native variable
            """,
        ]
        for fragment in expected {
            XCTAssertTrue(notes.contains { $0.contains(fragment) }, "\(fragment)\n in \(notes.joined(separator: "\n"))")
        }
        XCTAssertEqual(notes.count, expected.count, notes.joined(separator: "\n"))

        let out = folder.appendingPathComponent("out")
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let load = StubLoader(directory: out.path).load()
        XCTAssertEqual(load.errors, [])
        let engine = Engine(stubs: load.stubs)
        func answer(_ target: String, _ headers: [(String, String)] = []) throws -> OutgoingResponse? {
            try engine.handle(
                IncomingRequest.make(
                    method: "GET",
                    target: target,
                    headers: HeaderFields([("Host", "x")] + headers),
                    body: [],
                    peer: "",
                    authority: "x"
                )
            ).response
        }
        // `url` stays exact: this query, in this order, and nothing else (as WireMock compares it).
        let found = try answer("/search?q=a%20b&page=2")
        XCTAssertEqual(found.map { String(decoding: $0.prepared.body, as: UTF8.self) }, "found")
        XCTAssertEqual(try answer("/search?page=2&q=a%20b")?.prepared.status, 404)
        XCTAssertEqual(try answer("/search?q=a%20b&page=2&x=1")?.prepared.status, 404)
        let user = try answer("/users/7", [("Cookie", "s=1"), ("Authorization", "Basic dTpw")])
        XCTAssertEqual(
            user.map { String(decoding: $0.prepared.body, as: UTF8.self) },
            "user 7 via GET",
            "the template converted"
        )
        XCTAssertEqual(user?.prepared.headers["X-Id"]?.count, 36)
        // Nothing written is replaced: a second import beside the first gets new names.
        let again = WireMockImporter.plan(folder: folder.path, existing: StubFolderWriter.existingNames(in: out.path))
        XCTAssertEqual(again.plan.stubFiles.map(\.relativePath), ["m-2.json"])
    }

    /// Found by the wiremock fuzz target: WireMock takes a header matcher under any name, the
    /// stub format only a token, so one such mapping made the whole import fail to load.
    func testAHeaderNameNoRequestCanCarryIsDroppedNotWritten() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-import-src-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(
            [
                "m.json": #"""
                {"request": {"urlPath": "/h", "headers": {"Acc\u00e9pt": {"contains": "json"}, "X-Ok": {"equalTo": \#
                "1"}}}, "response": {"body": "h"}}
                """#
            ],
            [:],
            into: folder
        )
        let result = WireMockImporter.plan(folder: folder.path)
        XCTAssertEqual(
            result.notes.map(\.description).map { $0.replacingOccurrences(of: folder.path + "/", with: "") },
            [
                #"""
                mappings/m.json:1:58: dropped: $.request.headers.Accépt: "Accépt" is not a valid header name, so \#
                no request carries it; the condition is not written
                """#
            ]
        )
        let out = folder.appendingPathComponent("out")
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let load = StubLoader(directory: out.path).load()
        XCTAssertEqual(load.errors, [])
        XCTAssertEqual(load.stubs.first?.request.headers.map(\.0), ["X-Ok"])
    }

    /// Found by a ten-minute run of the wiremock fuzz target: `{{request.path.id}{/each}}` is one
    /// Handlebars path, `request.path.id}{/each`, which was written as a native variable that
    /// does not load, failing the import; and a path segment by a name the urlPathTemplate does
    /// not capture is no native variable either. Such templates stay plain text, named.
    func testTemplatePathsWithoutAPlainNativeNameStayText() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-import-src-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(
            [
                "a.json":
                    #"""
                {"request": {"urlPathTemplate": "/users/{id}"}, "response": {"body": \#
                "{{request.path.id}{/each}}", "transformers": ["response-template"]}}
                """#,
                "b.json":
                    #"""
                {"request": {"urlPathTemplate": "/users/{id}"}, "response": {"body": \#
                "{{request.path.other}}", "transformers": ["response-template"]}}
                """#,
                "c.json":
                    #"""
                {"request": {"urlPathTemplate": "/teams/{id}"}, "response": {"body": "team \#
                {{request.path.id}}", "transformers": ["response-template"]}}
                """#,
            ],
            [:],
            into: folder
        )
        let result = WireMockImporter.plan(folder: folder.path)
        XCTAssertEqual(
            result.notes.filter { $0.description.contains("plain text") }.count,
            2,
            result.notes.map(\.description).joined(separator: "\n")
        )
        let out = folder.appendingPathComponent("out")
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let load = StubLoader(directory: out.path).load()
        XCTAssertEqual(load.errors, [])
        XCTAssertEqual(load.stubs.count, 3)
        let team = try XCTUnwrap(
            result.plan.stubFiles.first { String(decoding: $0.bytes, as: UTF8.self).contains("/teams/") }
        )
        XCTAssertTrue(
            String(decoding: team.bytes, as: UTF8.self).contains("team {{request.path.id}}"),
            "a captured name still converts"
        )
    }

    /// Found by the wiremock fuzz target: a `url` or `urlPath` with a '%' not followed by two
    /// hex digits was written as a path the stub format refuses, failing the whole import. No
    /// request can carry such a path (the server answers 400), so the mapping is skipped, named.
    func testAPathNoRequestCanCarryIsSkipped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-import-src-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(
            [
                "m.json": #"""
                {"mappings": [{"request": {"url": "/a%q?x=%zz"}, "response": {}}, {"request": {"urlPath": "/b%"}, \#
                "response": {}},
                              {"request": {"url": "/c?q=%zz"}, "response": {"body": "c"}}]}
                """#
            ],
            [:],
            into: folder
        )
        let result = WireMockImporter.plan(folder: folder.path)
        let notes = result.notes.map(\.description).map { $0.replacingOccurrences(of: folder.path + "/", with: "") }
        XCTAssertEqual(
            notes.filter { $0.contains("skipped") },
            [
                """
                mappings/m.json:1:35: skipped: $.mappings[0].request.url: the path has a '%' not followed by \
                two hex digits; no request can carry it (the server answers 400), so the mapping is not imported
                """,
                """
                mappings/m.json:1:91: skipped: $.mappings[1].request.urlPath: the path has a '%' not followed \
                by two hex digits; no request can carry it (the server answers 400), so the mapping is not \
                imported
                """,
            ],
            notes.joined(separator: "\n")
        )
        XCTAssertEqual(result.mappingCount, 1)
        let out = folder.appendingPathComponent("out")
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        XCTAssertEqual(StubLoader(directory: out.path).load().errors, [])
    }

    /// Found by the wiremock fuzz target: a urlPathTemplate's literal segment (`user*`) or a
    /// path parameter's equalTo value was written into the native path as it was, where '*',
    /// '{' and '%' mean something, so the stub did not load. They are written escaped now.
    func testTemplateSegmentsAreWrittenEscaped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-import-src-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(
            [
                "m.json": #"""
                {"request": {"method": "GET", "urlPathTemplate": "/user*/{id}/caf%C3%A9/{kind}", "pathParameters": \#
                {"kind": {"equalTo": "a*{b}%"}}},
                 "response": {"body": "{{request.path.id}}", "transformers": ["response-template"]}}
                """#
            ],
            [:],
            into: folder
        )
        let result = WireMockImporter.plan(folder: folder.path)
        XCTAssertEqual(result.mappingCount, 1)
        let written = String(decoding: result.plan.stubFiles[0].bytes, as: UTF8.self)
        XCTAssertTrue(written.contains(#""path": "/user%2A/{id}/café/a%2A%7Bb%7D%25""#), written)
        let out = folder.appendingPathComponent("out")
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let load = StubLoader(directory: out.path).load()
        XCTAssertEqual(load.errors, [])
        let engine = Engine(stubs: load.stubs)
        let request = try IncomingRequest.make(
            method: "GET",
            target: "/user*/7/caf%C3%A9/a*%7Bb%7D%25",
            headers: HeaderFields([("Host", "x")]),
            body: [],
            peer: "",
            authority: "x"
        )
        XCTAssertEqual(engine.handle(request).response.map { String(decoding: $0.prepared.body, as: UTF8.self) }, "7")
    }
}

/// `import wiremock` writes webhooks as the stub's `"webhooks"`.
final class WireMockWebhookImportTests: XCTestCase {
    func testWebhooksBecomeNativeWebhooksAndWhatHasNoNativeFormIsListed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-import-src-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(
            [
                "a.json": """
                {"request": {"urlPathTemplate": "/orders/{id}"}, "response": {"status": 202},
                 "serveEventListeners": [{"name": "webhook", "parameters": {
                   "method": "PUT", "url": \
                "http://127.0.0.1:9/hooks/{{originalRequest.path.id}}?who={{parameters.who}}",
                   "who": "shop", "headers": {"X-Method": "{{{originalRequest.method}}}"},
                   "body": "order {{{originalRequest.path.id}}}",
                   "delay": {"type": "uniform", "lower": 10, "upper": 20}}}]}
                """,
                "b.json": """
                {"request": {"url": "/b"}, "response": {},
                 "postServeActions": {"webhook": {"url": "http://127.0.0.1:9/b", "body": "dropped with GET"}}}
                """,
                "c.json": """
                {"request": {"url": "/c"}, "response": {},
                 "serveEventListeners": [{"name": "webhook", "parameters": {
                   "method": "POST", "url": "http://127.0.0.1:9/c", "body": "{{jsonPath originalRequest.body \
                '$.id'}}"}}]}
                """,
            ],
            [:],
            into: folder
        )
        let result = WireMockImporter.plan(folder: folder.path)
        let notes = result.notes.map(\.description)
        let getBody = notes.contains {
            $0.contains("b.json") && $0.contains("dropped") && $0.contains("no body with GET")
        }
        XCTAssertTrue(getBody, "\(notes)")
        let helper = "$.serveEventListeners[0].parameters: a webhook whose templates"
        XCTAssertTrue(notes.contains { $0.contains("c.json") && $0.contains(helper) }, "\(notes)")
        let out = folder.appendingPathComponent("out")
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let load = StubLoader(directory: out.path).load()
        XCTAssertEqual(load.errors, [])
        XCTAssertEqual(load.stubs.map(\.webhooks.count).sorted(), [0, 1, 1])
        let a = try XCTUnwrap(
            result.plan.stubFiles.first { file in
                String(decoding: file.bytes, as: UTF8.self).contains("/orders/")
            }
        )
        let written = try JSONSerialization.jsonObject(with: Data(a.bytes))
        let stub = (written as? [[String: Any]])?.first ?? written as? [String: Any]
        let webhook = try XCTUnwrap((stub?["webhooks"] as? [[String: Any]])?.first)
        XCTAssertEqual(webhook["url"] as? String, "http://127.0.0.1:9/hooks/{{request.path.id}}?who=shop")
        XCTAssertEqual(webhook["method"] as? String, "PUT")
        XCTAssertEqual(webhook["headers"] as? [String: String], ["X-Method": "{{request.method}}"])
        XCTAssertEqual(webhook["body"] as? String, "order {{request.path.id}}")
        XCTAssertEqual(webhook["template"] as? Bool, true)
        XCTAssertEqual(webhook["delay"] as? [String: Int], ["min": 10, "max": 20])
    }
}
