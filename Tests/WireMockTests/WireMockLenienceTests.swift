import Foundation
import HTTP1
import NativeStubs
import StubAuthoring
import StubEngine
import WireMock
import StubImport
import TestSupport
import XCTest

/// The WireMock dialect is lenient where WireMock is: what Jackson coerces is read, two
/// mappings with one id both serve, a missing body file fails only the requests that need it,
/// and a mapping WireMock would refuse (or stubserver cannot run) is skipped, named with its
/// place, while the rest of the folder serves. (Issue 29, point 1.)
final class WireMockLenienceTests: XCTestCase {
    /// Jackson's coercions: numbers and booleans written as strings, strings as numbers.
    func testJacksonCoercionsAreRead() throws {
        let harness = try WireMockHarness(
            self,
            mappings: [
                "coerced.json": """
                {"priority": "1", "request": {"method": "GET", "url": "/coerced"},
                 "response": {"status": "201", "fixedDelayMilliseconds": "100", "body": 42}}
                """,
                "lower.json": #"{"priority": 2, "request": {"url": "/coerced"}, "response": {"status": 500}}"#,
                "flags.json": """
                {"request": {"urlPath": "/flags", "headers": {"X-Mode": {"equalTo": "LOUD", "caseInsensitive": "true"}},
                             "queryParameters": {"gone": {"absent": "true"}}},
                 "response": {"status": 200, "body": "flags"}}
                """,
                "json.json": """
                {"request": {"url": "/json", "method": "POST",
                             "bodyPatterns": [{"equalToJson": {"a": [1, 2]},
                                               "ignoreArrayOrder": "true", "ignoreExtraElements": "TRUE"}]},
                 "response": {"status": 200, "body": "json"}}
                """,
            ]
        )
        XCTAssertEqual(harness.load.problems, [])
        let started = Date()
        let coerced = try harness.send("GET", "/coerced")
        XCTAssertEqual(coerced.status, 201, "\"status\": \"201\", and priority \"1\" beats priority 2")
        XCTAssertEqual(coerced.text, "42", "\"body\": 42 is the text 42")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.09, "\"fixedDelayMilliseconds\": \"100\"")
        let loud = [("X-Mode", "loud")]
        XCTAssertEqual(try harness.send("GET", "/flags", headers: loud).text, "flags", "caseInsensitive \"true\"")
        XCTAssertEqual(try harness.send("GET", "/flags?gone=1", headers: loud).status, 404, "absent \"true\"")
        let json = try harness.send(
            "POST",
            "/json",
            headers: [("Content-Type", "application/json")],
            body: #"{"a": [2, 1], "b": 3}"#
        )
        XCTAssertEqual(json.text, "json", "ignoreArrayOrder/ignoreExtraElements as strings")
    }

    /// What is not a number even to Jackson is still an error, and skips its mapping.
    func testUncoercibleValuesSkipTheirMapping() throws {
        let folder = try mappingsFolder([
            "bad.json": #"{"request": {"url": "/bad"}, "response": {"status": "two hundred"}}"#,
            "good.json": #"{"request": {"url": "/good"}, "response": {"status": 200}}"#,
        ])
        let result = StubLoader(directory: folder.path, format: WireMockFolderFormat()).load()
        XCTAssertTrue(result.isServable)
        XCTAssertEqual(result.stubs.count, 1)
        XCTAssertEqual(result.skipped.map(\.jsonPath), ["$"])
        let expected =
            "mappings/bad.json:1:1: skipped: $: $.response.status: "
            + "expected an HTTP status from 100 to 599, found the string \"two hundred\""
        XCTAssertTrue(result.skipped[0].description.hasSuffix(expected), result.skipped[0].description)
    }

    /// A file that is not JSON is named with its line and column and skipped; the other files
    /// serve. `--strict` refuses the folder instead.
    func testMalformedFileIsSkippedWithItsPosition() throws {
        let folder = try mappingsFolder([
            "a-broken.json": "{\"request\": {\"url\": \"/broken\"},\n  \"response\": {\"status\": 200,}}",
            "b-fine.json": #"{"request": {"url": "/fine"}, "response": {"body": "fine"}}"#,
            "c-several.json": """
            {"mappings": [
              {"request": {"url": "/one"}, "response": {"body": "one"}},
              {"request": {"url": "/two"}, "response": {"fault": "MELTDOWN"}},
              {"request": {"url": "/three"}, "response": {"body": "three"}}
            ]}
            """,
        ])
        let result = StubLoader(directory: folder.path, format: WireMockFolderFormat()).load()
        XCTAssertTrue(result.isServable)
        let skipped = result.skipped.map { $0.description.replacingOccurrences(of: folder.path + "/", with: "") }
        XCTAssertEqual(skipped.count, 2, "\(skipped)")
        XCTAssertEqual(
            skipped.first,
            "mappings/a-broken.json:2:30: skipped: $: the file is not valid JSON: trailing comma before '}'"
        )
        let several =
            "mappings/c-several.json:3:3: skipped: $.mappings[1]: "
            + "$.mappings[1].response.fault: expected one of"
        XCTAssertTrue(
            skipped.last?.hasPrefix(several) == true,
            "\(skipped)"
        )
        let syntax = "a-broken.json:2:30: error: trailing comma"
        XCTAssertTrue(result.errors.contains { $0.description.contains(syntax) }, "\(result.errors)")
        let engine = Engine(stubs: result.stubs)
        for (path, body) in [("/fine", "fine"), ("/one", "one"), ("/three", "three")] {
            XCTAssertEqual(String(decoding: try answer(engine, path).body, as: UTF8.self), body, path)
        }
        XCTAssertEqual(try answer(engine, "/two").status, 404)
        XCTAssertEqual(try answer(engine, "/broken").status, 404)
        let strict = StubLoader(directory: folder.path, format: WireMockFolderFormat(), strict: true).load()
        XCTAssertFalse(strict.isServable, "--strict refuses")
    }

    /// A folder that is not there is still refused: there is nothing to serve.
    func testMissingFolderIsRefused() {
        let result = StubLoader(directory: "/nonexistent-\(UUID().uuidString)", format: WireMockFolderFormat()).load()
        XCTAssertFalse(result.isServable)
    }

    /// Two mappings with one id (in different files) both load, as WireMock before 3.7 loaded
    /// them; the later file answers first among equal priorities; the admin API knows the later
    /// one under an id of its own. An id with spaces around it is read as Jackson reads it.
    func testDuplicateIDsBothServeAndTheLaterAnswers() throws {
        let id = "4bc8f3c5-3c9f-48b0-8bd9-dbadc10f3463"
        let harness = try WireMockHarness(
            self,
            mappings: [
                "a.json": #"{"id": "\#(id)\n", "request": {"url": "/same"}, "response": {"body": "a"}}"#,
                "b.json": #"{"id": "\#(id)", "request": {"url": "/same"}, "response": {"body": "b"}}"#,
                "c.json": #"{"id": "\#(id)", "priority": 1, "request": {"url": "/first"}, "response": {"body": "c"}}"#,
            ]
        )
        XCTAssertTrue(harness.load.isServable)
        XCTAssertEqual(harness.load.stubs.count, 3)
        XCTAssertEqual(Set(harness.load.stubs.map(\.id)).count, 3, "each keeps an id of its own")
        XCTAssertEqual(harness.load.stubs.first?.id, id, "the first file keeps the id")
        let warnings = harness.load.warnings.map(\.description)
        let duplicates = warnings.filter { $0.contains("id \(id) is also the id of a mapping in") }
        XCTAssertEqual(duplicates.count, 2, "\(warnings)")
        XCTAssertEqual(try harness.send("GET", "/same").text, "b")
        XCTAssertEqual(try harness.send("GET", "/first").text, "c")
        XCTAssertEqual(harness.engine.wiremockMapping(id: id)?.source.description.hasSuffix("mappings/a.json#0"), true)
    }

    /// A missing `bodyFileName` is a warning at load; the requests the mapping answers get
    /// WireMock's 500 ("Not found in blob store"), the others are served.
    func testMissingBodyFileFailsOnlyItsRequests() throws {
        let harness = try WireMockHarness(
            self,
            mappings: [
                "missing.json": """
                {"request": {"url": "/missing"},
                 "response": {"status": 200, "bodyFileName": "user-1.json", "headers": {"X-Kept": "no"}}}
                """,
                "present.json": #"{"request": {"url": "/present"}, "response": {"bodyFileName": "here.json"}}"#,
            ],
            files: ["here.json": Array("here".utf8)]
        )
        XCTAssertTrue(harness.load.isServable)
        XCTAssertEqual(harness.load.skipped, [])
        XCTAssertTrue(
            harness.load.warnings.contains {
                $0.description.contains(
                    "mappings/missing.json:2:46: warning: $.response.bodyFileName: "
                        + "bodyFileName \"user-1.json\" does not exist"
                )
                    && $0.message.contains("requests this mapping answers get 500")
            },
            "\(harness.load.warnings)"
        )
        let missing = try harness.send("GET", "/missing")
        XCTAssertEqual(missing.status, 500)
        XCTAssertTrue(missing.text.hasPrefix("Not found in blob store: user-1.json\n"), missing.text)
        XCTAssertNil(missing.header("X-Kept"), "WireMock fails before the mapping's headers")
        XCTAssertEqual(try harness.send("GET", "/present").text, "here")
        XCTAssertEqual(harness.engine.journal.entries.first?.status, 500, "journaled as answered")
    }

    /// A key written twice (a real mapping's `jsonBody` has one) is read as Jackson reads it: the
    /// last value, in the first one's place, with a warning. The served body has the key once,
    /// and `import wiremock` writes a stub that loads (the native format refuses a repeat).
    func testADuplicateKeyKeepsTheLastValueAndImports() throws {
        let mapping = """
            {"request": {"url": "/filters"},
             "response": {"status": 200, "jsonBody": {"filters": ["old"], "cases": [], "filters": ["new"]}}}
            """
        let harness = try WireMockHarness(self, mappings: ["dup.json": mapping])
        XCTAssertTrue(harness.load.isServable)
        XCTAssertTrue(
            harness.load.warnings.contains {
                $0.description.contains(
                    "mappings/dup.json:2:76: warning: $.response.jsonBody.filters: \"filters\" is written twice"
                )
            },
            "\(harness.load.warnings)"
        )
        XCTAssertEqual(try harness.send("GET", "/filters").text, #"{"filters":["new"],"cases":[]}"#)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-dup-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(["dup.json": mapping], [:], into: folder)
        let result = WireMockImporter.plan(folder: folder.path)
        let out = folder.appendingPathComponent("out")
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let imported = StubLoader(directory: out.path).load()
        XCTAssertEqual(imported.errors, [])
        XCTAssertEqual(imported.stubs.count, 1)
    }

    /// `"pathParameters": {}` (WireMock writes it into every mapping it saves) is nothing to
    /// check, whatever the URL.
    func testEmptyPathParametersAreAccepted() throws {
        let harness = try WireMockHarness(
            self,
            mappings: [
                "saved.json": """
                {"request": {"url": "/", "pathParameters": {}, "formParameters": {}}, "response": {"body": "home"}}
                """
            ]
        )
        XCTAssertEqual(harness.load.problems, [])
        XCTAssertEqual(try harness.send("GET", "/").text, "home")
    }

    // MARK: Helpers

    private func mappingsFolder(_ mappings: [String: String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-lenient-\(UUID().uuidString)")
        try WireMockHarness.write(mappings, [:], into: folder)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }

    private func answer(_ engine: Engine, _ target: String) throws -> PreparedResponse {
        let request = try IncomingRequest.make(
            method: "GET",
            target: target,
            headers: HeaderFields(),
            body: [],
            peer: "",
            authority: "x"
        )
        return try XCTUnwrap(engine.handle(request).response?.prepared)
    }
}
