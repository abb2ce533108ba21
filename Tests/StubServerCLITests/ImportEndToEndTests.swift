import Foundation
import TestSupport
import XCTest

/// `import openapi`, `import har` and `validate --openapi` as users run them: the built binary,
/// its output and its exit status.
final class ImportEndToEndTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let spec = """
        openapi: 3.0.3
        info: {title: Pets, version: '1'}
        servers: [{url: 'https://api.example.com/v1'}]
        paths:
          /pets/{id}:
            get:
              operationId: showPet
              responses:
                '200':
                  description: a pet
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [id, name]
                        properties: {id: {type: integer}, name: {type: string}}
                '404': {description: no such pet}
        webhooks: {}
        """

    func testImportOpenAPIThenValidateAgainstIt() throws {
        let dir = folder(["spec.yaml": Self.spec])
        let out = dir.appendingPathComponent("stubs").path
        let imported = try runStubServer([
            "import", "openapi", dir.appendingPathComponent("spec.yaml").path, "--out", out,
        ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(imported.stdout, "\(out): 4 stubs for 1 operation in 1 file; all 4 stubs load\n")
        let valid = try runStubServer([
            "validate", "--dir", out, "--openapi", dir.appendingPathComponent("spec.yaml").path,
        ])
        XCTAssertEqual(valid.status, 0, valid.stdout)
        XCTAssertTrue(
            valid.stdout.hasSuffix("4 stubs in 1 file agree with \(dir.appendingPathComponent("spec.yaml").path)\n"),
            valid.stdout
        )
        // A second import into the same folder needs --force, and then replaces it.
        let again = try runStubServer(["import", "openapi", dir.appendingPathComponent("spec.yaml").path, "--out", out])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("is not empty; pick a new folder, or pass --force"), again.stderr)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: out).appendingPathComponent("left-over.json"))
        let forced = try runStubServer([
            "import", "openapi", dir.appendingPathComponent("spec.yaml").path, "--out", out, "--force",
            "--strip-base-path",
        ])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["get-pets-id.json"])
        XCTAssertTrue(
            try String(contentsOfFile: out + "/get-pets-id.json", encoding: .utf8).contains(#""path": "/pets/{id}""#)
        )
    }

    func testValidateOpenAPIReportsFindingsAndExitsOne() throws {
        let dir = folder([
            "spec.yaml": Self.spec,
            "stubs/pets.json":
                #"""
            [{"request": {"method": "GET", "path": "/v1/pets/1"}, "response": {"body": {"id": "1"}}}, \#
            {"request": {"method": "GET", "path": "/v1/cats/1"}, "response": {}}]
            """#,
        ])
        let result = try runStubServer([
            "validate", "--dir", dir.appendingPathComponent("stubs").path, "--openapi",
            dir.appendingPathComponent("spec.yaml").path,
        ])
        XCTAssertEqual(result.status, 1)
        let lines = result.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: dir.path + "/", with: "") }
        XCTAssertEqual(
            lines,
            [
                #"""
                stubs/pets.json:1:83: error: $[0].response.body.id: expected an integer, found the string "1" \#
                (schema: #/paths/~1pets~1{id}/get/responses/200/content/application~1json/schema/properties/id/type)
                """#,
                #"""
                stubs/pets.json:1:76: error: $[0].response.body: missing required property "name" (schema: \#
                #/paths/~1pets~1{id}/get/responses/200/content/application~1json/schema/required)
                """#,
                #"stubs/pets.json:1:129: error: $[1].request.path: no path of spec.yaml matches /v1/cats/1"#,
                "stubs: 3 errors in 1 file against spec.yaml; fix the stubs or the document and run validate again",
            ]
        )
    }

    func testImportHAR() throws {
        let har =
            #"""
            {"log": {"entries": [{"request": {"method": "GET", "url": "https://api.example.com/v1/me?x=1"}, \#
            "response": {"status": 200, "headers": [{"name": ":status", "value": "200"}, {"name": "Content-Type", \#
            "value": "application/json"}], "content": {"mimeType": "application/json", "text": "{\"id\":1}"}}}, \#
            {"request": {"method": "GET", "url": "https://api.example.com/gone"}, "response": {"status": 0, \#
            "headers": [], "content": {}}}]}}
            """#
        let dir = folder(["capture.har": har])
        let out = dir.appendingPathComponent("stubs").path
        let result = try runStubServer(["import", "har", dir.appendingPathComponent("capture.har").path, "--out", out])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            result.stdout,
            """
            \(out): 1 stub from 1 entry in 1 file; 1 entry skipped (1: status 0 (no response: blocked, \
            cancelled or failed)); all 1 stub load\n
            """
        )
        XCTAssertTrue(result.stderr.contains("capture.har:1:299: note: entry skipped: status 0"), result.stderr)
        let server = try StubServerProcess(["--dir", out, "--port", "0", "--no-watch", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL())
        XCTAssertEqual(try fetch(base + "/v1/me?x=1").body, #"{"id":1}"#)
    }

    func testUsageMistakesAndUnreadableInputs() throws {
        let dir = folder([:])
        let cases: [([String], Int32, String)] = [
            (["import"], 2, "import needs what to import: import openapi or import har"),
            (
                ["import", "swagger", "x"], 2,
                #"import needs what to import, not "swagger": import openapi or import har"#
            ),
            (["import", "openapi", "--out", dir.path], 2, "import openapi needs the document to read"),
            (["import", "openapi", "spec.yaml"], 2, "import openapi needs --out DIR"),
            (
                ["import", "openapi", "spec.yaml", "--out", "x", "--base-path", "/a", "--strip-base-path"], 2,
                "--base-path and --strip-base-path cannot be used together"
            ),
            (["import", "har", "x.har", "--out", "x", "--port", "1"], 2, "--port applies to serve, not to import har"),
            (
                [
                    "import", "openapi", dir.appendingPathComponent("missing.yaml").path, "--out",
                    dir.appendingPathComponent("o").path,
                ], 1, "missing.yaml: error: does not exist"
            ),
            (
                [
                    "import", "har", dir.appendingPathComponent("missing.har").path, "--out",
                    dir.appendingPathComponent("o").path,
                ], 1, "cannot read"
            ),
            (
                ["validate", "--dir", dir.path, "--openapi", dir.appendingPathComponent("missing.yaml").path], 1,
                "missing.yaml: error: does not exist"
            ),
        ]
        for (arguments, status, fragment) in cases {
            let result = try runStubServer(arguments)
            XCTAssertEqual(result.status, status, arguments.joined(separator: " "))
            XCTAssertTrue(
                (result.stderr + result.stdout).contains(fragment),
                "\(arguments): \(result.stderr)\(result.stdout)"
            )
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: dir.appendingPathComponent("o").path),
            "nothing written on failure"
        )
        let help = try runStubServer(["--help"])
        XCTAssertTrue(help.stdout.contains("stubserver import openapi SPEC --out DIR"), help.stdout)
        XCTAssertTrue(help.stdout.contains("stubserver import har FILE --out DIR"), help.stdout)
    }

    func testTheBundledStubsAgreeWithTheDocumentInDocs() throws {
        let p = try StubServerProcess(
            ["validate", "--dir", "stubs", "--openapi", "docs/stubs.openapi.yaml"],
            workingDirectory: Self.root
        )
        XCTAssertEqual(p.exitStatus(), 0, p.stdout)
        XCTAssertTrue(
            p.stdout.hasSuffix("stubs: 29 stubs in 12 files agree with docs/stubs.openapi.yaml (1 warning)\n"),
            p.stdout
        )
        XCTAssertTrue(
            p.stdout.contains("forecast-truncated.json.part:5:44: warning: $: the body is not valid JSON"),
            p.stdout
        )
    }
}
