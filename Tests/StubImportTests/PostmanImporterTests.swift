import Foundation
import JSON
import StubEngine
@testable import StubImport
import TestSupport
import XCTest

/// What a Postman collection becomes: routes and their conditions, folders, variables, the
/// headers and secrets left out, examples that ask the same, placeholders, and bad input.
final class PostmanImporterTests: XCTestCase {
    /// A v2.1 collection: two folders, `:id` and `{{baseUrl}}` (with a base path), examples told
    /// apart by query, by body, and not at all.
    static let collection = #"""
        {
          "info": {"name": "Shop", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
          "variable": [{"key": "baseUrl", "value": "https://api.example.com/v2"}, {"key": "token", "value": ""},
                       {"key": "version", "value": "{{major}}.1"}, {"key": "major", "value": "3"}],
          "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}"}]},
          "item": [
            {"name": "Users", "item": [
              {"name": "Get user", "request": {"method": "GET", "url": {"raw": "{{baseUrl}}/users/:id",
                  "host": ["{{baseUrl}}"], "path": ["users", ":id"], "variable": [{"key": "id", "value": "42"}]}},
               "response": [
                 {"name": "Found", "code": 200, "status": "OK",
                  "header": [{"key": "Content-Type", "value": "application/json"}, {"key": "Content-Encoding",
                   "value": "gzip"},
                             {"key": "Content-Length", "value": "99"}, {"key": "Transfer-Encoding", "value": "chunked"},
                             {"key": "Set-Cookie", "value": "session=abc"}, {"key": "X-Request-Id", "value": "r1"}],
                  "cookie": [{"name": "session", "value": "abc"}],
                  "body": "{\"id\":42,\"name\":\"Ann\"}",
                  "originalRequest": {"method": "GET", "url": {"raw": "{{baseUrl}}/users/:id?fields=name",
                     "host": ["{{baseUrl}}"], "path": ["users", ":id"], "query": [{"key": "fields", "value": "name"}],
                     "variable": [{"key": "id", "value": "42"}]}}},
                 {"name": "Brief", "code": 200, "status": "OK", "header": [{"key": "Content-Type",
                  "value": "application/json"}],
                  "body": "{\"id\":42}",
                  "originalRequest": {"method": "GET", "url": {"raw": "{{baseUrl}}/users/:id?fields=id&api_key=s3cret",
                     "host": ["{{baseUrl}}"], "path": ["users", ":id"],
                     "query": [{"key": "fields", "value": "id"}, {"key": "api_key", "value": "s3cret"},
                               {"key": "debug", "value": "1", "disabled": true}]}}},
                 {"name": "Rate limited", "code": 429, "status": "Too Many Requests",
                  "header": [{"key": "Content-Type", "value": "text/plain"}], "body": "slow down",
                  "originalRequest": {"method": "GET", "url": {"raw": "{{baseUrl}}/users/:id?fields=name",
                     "host": ["{{baseUrl}}"], "path": ["users", ":id"], "query": [{"key": "fields", "value": "name"}]}}}
               ]},
              {"name": "Create user", "request": {"method": "POST", "url": "{{baseUrl}}/users",
                  "body": {"mode": "raw", "raw": "{\"name\": \"Ann\"}", "options": {"raw": {"language": "json"}}}},
               "response": [
                 {"name": "Created", "code": 201, "_postman_previewlanguage": "json", "body": "{\"id\":1}",
                  "originalRequest": {"method": "POST", "url": "{{baseUrl}}/users",
                     "body": {"mode": "raw", "raw": "{\"name\": \"Ann\", \"shop\": \"{{shopId}}\"}",
                      "options": {"raw": {"language": "json"}}}}},
                 {"name": "Taken", "code": 409, "_postman_previewlanguage": "json", "body": "{\"error\":\"taken\"}",
                  "originalRequest": {"method": "POST", "url": "{{baseUrl}}/users",
                     "body": {"mode": "raw", "raw": "{\"name\": \"Bob\", \"shop\": \"{{shopId}}\"}",
                      "options": {"raw": {"language": "json"}}}}}
               ]}
            ]},
            {"name": "Health", "request": {"method": "GET", "url": "{{baseUrl}}/v{{version}}/health"},
             "response": [
               {"name": "Up", "code": 200, "header": [], "body": "up"},
               {"name": "Down", "code": 503, "header": [], "body": "down"}
             ]},
            {"name": "Orders", "item": [
              {"name": "List orders", "request": {"method": "GET", "url": "{{baseUrl}}/orders/{{orderScope}}"}},
              {"name": "Broken", "request": {"method": "POST", "url": "{{baseUrl}}/x", "body": {"mode": "telepathy"}},
               "response": [{"name": "never", "code": 200, "body": "x"}]},
              {"name": "Not a request"},
              {"name": "Odd example", "request": {"method": "GET", "url": "{{baseUrl}}/odd"},
               "response": [{"name": "no code", "body": "?"}, {"name": "ok", "code": 200, "body": "fine"}]}
            ]}
          ]
        }
        """#

    private func plan(
        _ text: String = collection,
        _ options: PostmanImportOptions = .init()
    ) throws -> PostmanImporter.Outcome {
        try PostmanImporter.plan(Array(text.utf8), name: "shop.postman_collection.json", options: options).get()
    }

    private func stubs(_ outcome: PostmanImporter.Outcome, _ file: String) throws -> [JSONNode] {
        let found = try XCTUnwrap(
            outcome.plan.files.first { $0.relativePath == file },
            "\(outcome.plan.files.map(\.relativePath))"
        )
        let root = try JSONParser.parse(found.bytes)
        return root.elements ?? [root]
    }

    func testFoldersBecomeSubFoldersAndEachRequestAFile() throws {
        let outcome = try plan()
        XCTAssertEqual(
            outcome.plan.stubFiles.map(\.relativePath).sorted(),
            ["health.json", "orders/odd-example.json", "users/create-user.json", "users/get-user.json"]
        )
        XCTAssertEqual(outcome.requestCount, 7)
        XCTAssertEqual(outcome.exampleCount, 10)
        XCTAssertEqual(outcome.importedExamples, 8)
        XCTAssertEqual(outcome.withoutExamples, ["Orders / List orders"])
    }

    func testPathsQueriesAndBodiesBecomeConditionsOnlyWhereTheyTellExamplesApart() throws {
        let outcome = try plan()
        let users = try stubs(outcome, "users/get-user.json")
        // `fields` tells the examples apart; `api_key` is a secret: present, its value not written.
        XCTAssertEqual(
            JSONSerializer.string(users[0]["request"] ?? .null),
            #"{"method":"GET","path":"/v2/users/{id}","query":{"fields":"name"}}"#
        )
        XCTAssertEqual(
            JSONSerializer.string(try XCTUnwrap(users.last?["request"])),
            #"{"method":"GET","path":"/v2/users/{id}","query":{"fields":"id","api_key":{"present":true}}}"#
        )
        XCTAssertFalse(outcome.plan.files.contains { String(decoding: $0.bytes, as: UTF8.self).contains("s3cret") })
        let create = try stubs(outcome, "users/create-user.json")
        XCTAssertEqual(
            JSONSerializer.string(create[0]["request"]?["body"] ?? .null),
            #"{"json":{"name":"Ann","shop":{"present":true}}}"#,
            "an unresolved variable only has to be present"
        )
        XCTAssertEqual(create.count, 2)
        // A variable that refers to another is resolved through it.
        let health = try stubs(outcome, "health.json")
        XCTAssertEqual(health[0]["request"]?["path"]?.string, "/v2/v3.1/health")
    }

    func testTheHeadersOfTheOriginalTransferAndSecretsAreLeftOut() throws {
        let outcome = try plan()
        // The first example's response, as its `Prefer` stub answers it.
        let found = try stubs(outcome, "users/get-user.json")[1]["response"]
        XCTAssertEqual(
            JSONSerializer.string(found ?? .null),
            #"{"status":200,"headers":{"Content-Type":"application/json","X-Request-Id":"r1","Preference-Applied":"#
                + #""example=Found"},"body":{"id":42,"name":"Ann"}}"#
        )
        XCTAssertEqual(outcome.droppedSecrets, ["set-cookie": 1, "cookie (saved cookies)": 1, "query api_key": 1])
        let kept = try plan(Self.collection, PostmanImportOptions(keepSecrets: true))
        XCTAssertEqual(
            try stubs(kept, "users/get-user.json")[1]["response"]?["headers"]?["Set-Cookie"]?.string,
            "session=abc"
        )
    }

    func testExamplesThatAskTheSameAnswerInTurnAndEachByName() throws {
        let outcome = try plan()
        let health = try stubs(outcome, "health.json")
        XCTAssertEqual(health.count, 3)
        XCTAssertEqual(health[0]["responses"]?.elements?.map { $0["status"]?.number?.text }, ["200", "503"])
        XCTAssertEqual(health[0]["after"]?.string, "cycle")
        XCTAssertEqual(health[2]["request"]?["headers"]?["Prefer"]?["matches"]?.string, PreferCondition.example("Down"))
        XCTAssertEqual(health[2]["response"]?["headers"]?["Preference-Applied"]?.string, "example=Down")
        XCTAssertEqual(outcome.sequences, 2, "health, and the user's Found and Rate limited (both ask fields=name)")
    }

    func testVariablesWithoutAValueAndRequestsWithoutExamplesAreListed() throws {
        let outcome = try plan()
        XCTAssertEqual(outcome.unresolved["shopId"], 2)
        XCTAssertEqual(outcome.unresolved["orderScope"], 1)
        XCTAssertNil(outcome.unresolved["token"], "auth is never read, so its variables are not asked for")
        XCTAssertTrue(
            outcome.summary.contains(
                "variables without a value: orderScope 1×, shopId 2× (--environment FILE gives them)"
            ),
            outcome.summary
        )
        XCTAssertTrue(
            outcome.summary.contains(
                "1 request without a saved response (no stubs; --placeholders writes one answering 501 for each)"
            ),
            outcome.summary
        )
        XCTAssertTrue(
            outcome.plan.problems.contains {
                $0.message.contains("\"Orders / List orders\" (GET /v2/orders/{orderScope}) has no saved response")
            }
        )
        let environment = try PostmanImporter.environment(
            Array(
                (#"{"name": "dev", "values": [{"key": "shopId", "value": "s-1", "enabled": true}, "#
                    + #"{"key": "orderScope", "value": "all", "enabled": false}]}"#).utf8
            ),
            name: "dev.json"
        ).get()
        let withEnvironment = try plan(
            Self.collection,
            PostmanImportOptions(environment: environment, placeholders: true)
        )
        XCTAssertNil(withEnvironment.unresolved["shopId"])
        XCTAssertEqual(
            JSONSerializer.string(try stubs(withEnvironment, "users/create-user.json")[0]["request"]?["body"] ?? .null),
            #"{"jsonEquals":{"name":"Ann","shop":"s-1"}}"#
        )
        let placeholder = try stubs(withEnvironment, "orders/list-orders.json")[0]
        XCTAssertEqual(placeholder["priority"]?.number?.text, "9")
        XCTAssertEqual(placeholder["response"]?["status"]?.number?.text, "501")
        XCTAssertEqual(placeholder["response"]?["body"]?["request"]?.string, "Orders / List orders")
    }

    func testMalformedItemsAreListedWithTheirPathAndSkipped() throws {
        let outcome = try plan()
        let notes = outcome.plan.problems.map(\.description)
        XCTAssertTrue(
            notes.contains { $0.contains("request \"Orders / Broken\" skipped: unknown body mode \"telepathy\"") },
            "\(notes)"
        )
        XCTAssertTrue(
            notes.contains {
                $0.contains("malformed item \"Orders / Not a request\" skipped: no \"request\" and no \"item\"")
            },
            "\(notes)"
        )
        XCTAssertTrue(
            notes.contains { $0.contains("example \"no code\" of \"Orders / Odd example\" skipped: no status code") },
            "\(notes)"
        )
        XCTAssertTrue(notes.allSatisfy { $0.hasPrefix("shop.postman_collection.json:") })
        XCTAssertEqual(outcome.importedExamples + outcome.skippedExamples, outcome.exampleCount)
    }

    func testWhatIsNotACollectionSaysWhatItIs() {
        let cases: [(String, String)] = [
            (#"{"name": "dev", "values": []}"#, "this is a Postman environment"),
            (#"{"log": {"entries": []}}"#, "use stubserver import har"),
            (#"{"openapi": "3.1.0"}"#, "use stubserver import openapi"),
            (#"[1, 2]"#, "the file holds an array"),
            (#"{"a": 1, "b": 2}"#, #"found an object with "a", "b""#),
            (
                #"{"info": {"schema": "https://schema.getpostman.com/json/collection/v1.0.0/collection.json"}, "#
                    + #""item": []}"#,
                "Collection v2.1"
            ),
            (#"{"info": {}, "item": {}}"#, #""item" is an object"#),
            (
                "{\n  \"info\": ,",
                "shop.postman_collection.json:2:11: error: not a Postman collection (a collection is JSON)"
            ),
        ]
        for (text, expected) in cases {
            guard
                case .failure(let problem) = PostmanImporter.plan(
                    Array(text.utf8),
                    name: "shop.postman_collection.json"
                )
            else {
                XCTFail("\(text) imported")
                continue
            }
            XCTAssertTrue(problem.description.contains(expected), "\(text): \(problem.description)")
        }
    }

    func testVersionTwoZeroAndTheAPIWrapperRead() throws {
        let v20 = #"""
            {"collection": {"info": {"name": "Old",
             "schema": "https://schema.getpostman.com/json/collection/v2.0.0/collection.json"},
             "variable": [{"id": "host", "value": "http://localhost:3000"}],
             "item": [{"name": "Item", "request": {"method": "GET", "url": {"raw": "{{host}}/items/:itemId",
                 "path": [{"value": "items"}, ":itemId"], "host": "{{host}}"}, "header": "Accept: application/json"},
               "response": [{"name": "One", "code": 200,
                "header": "Content-Type: text/plain\nContent-Length: 3", "body": "one"}]}]}}
            """#
        let outcome = try plan(v20)
        XCTAssertEqual(outcome.version, "2.0.0")
        let item = try stubs(outcome, "item.json")[0]
        XCTAssertEqual(item["request"]?["path"]?.string, "/items/{itemId}")
        XCTAssertEqual(
            JSONSerializer.string(item["response"] ?? .null),
            #"{"status":200,"headers":{"Content-Type":"text/plain"},"body":"one"}"#
        )
    }
}

/// `stubserver import postman` through the binary: the environment, placeholders, what the
/// stubs answer over a socket, and bad input.
final class PostmanCommandLineTests: XCTestCase {
    func testImportWithAnEnvironmentAndPlaceholdersThenServe() throws {
        let input = temporaryFolder([
            "shop.json": PostmanImporterTests.collection,
            "dev.json": #"{"name": "dev", "values": [{"key": "shopId", "value": "s-1", "enabled": true}]}"#,
        ])
        let out = input.appendingPathComponent("stubs").path
        let run = try runStubServer([
            "import", "postman", input.appendingPathComponent("shop.json").path, "--out", out,
            "--environment", input.appendingPathComponent("dev.json").path, "--placeholders",
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(
            run.stdout.contains("1 request without a saved response (each answers 501 naming it)"),
            run.stdout
        )
        XCTAssertTrue(run.stdout.hasSuffix("all 11 stubs load\n"), run.stdout)
        XCTAssertTrue(
            run.stderr.contains("note: request \"Orders / Broken\" skipped: unknown body mode \"telepathy\""),
            run.stderr
        )
        let server = try StubServerProcess(["--dir", out, "--port", "0", "--no-watch", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL(), server.stderr)
        XCTAssertEqual(try fetch(base + "/v2/users/7?fields=id&api_key=k").body, #"{"id":42}"#)
        let created = try fetch(
            base + "/v2/users",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"name": "Ann", "shop": "s-1"}"#
        )
        XCTAssertEqual(created.status, 201)
        let taken = try fetch(
            base + "/v2/users",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"name": "Bob", "shop": "s-1"}"#
        )
        XCTAssertEqual(taken.status, 409)
        // Examples that ask the same: in turn, and each by name.
        XCTAssertEqual(try fetch(base + "/v2/v3.1/health").body, "up")
        XCTAssertEqual(try fetch(base + "/v2/v3.1/health").body, "down")
        let down = try fetch(base + "/v2/v3.1/health", headers: ["Prefer": "example=Down"])
        XCTAssertEqual(down.status, 503)
        XCTAssertEqual(down.headers["preference-applied"], "example=Down")
        let placeholder = try fetch(base + "/v2/orders/open")
        XCTAssertEqual(placeholder.status, 501)
        XCTAssertTrue(placeholder.body.contains("Orders / List orders"), placeholder.body)
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    func testBadInputSaysWhatItFoundAndWritesNothing() throws {
        let input = temporaryFolder([
            "env.json": #"{"name": "dev", "values": []}"#,
            "broken.json": "{\n  \"info\": {\"name\": \"x\"},\n  \"item\": [\n",
        ])
        let out = input.appendingPathComponent("stubs").path
        let environment = try runStubServer([
            "import", "postman", input.appendingPathComponent("env.json").path, "--out", out,
        ])
        XCTAssertEqual(environment.status, 1)
        XCTAssertTrue(
            environment.stderr.contains("not a Postman collection: this is a Postman environment"),
            environment.stderr
        )
        let broken = try runStubServer([
            "import", "postman", input.appendingPathComponent("broken.json").path, "--out", out,
        ])
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(
            broken.stderr.contains("broken.json:4:1: error: not a Postman collection (a collection is JSON)"),
            broken.stderr
        )
        let usage = try runStubServer(["import", "postman", input.appendingPathComponent("env.json").path])
        XCTAssertEqual(usage.status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
