import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// `--wiremock` and `validate --wiremock` through the built binary: a mapping with an error is
/// skipped and named (file:line:column), the rest serve, the ready line counts the skipped;
/// a refused folder's hint names `validate --wiremock`.
final class WireMockCommandLineTests: XCTestCase {
    private func wiremockFolder() -> URL {
        folder([
            "mappings/a-broken.json": "{\"request\": {\"url\": \"/broken\"},\n  \"response\": {\"status\": 200,}}",
            "mappings/b-fine.json": #"{"request": {"url": "/fine"}, "response": {"status": "201", "body": "fine"}}"#,
            "mappings/c-missing-body.json":
                #"{"request": {"url": "/gone"}, "response": {"bodyFileName": "gone.json"}}"#,
        ])
    }

    func testServeSkipsTheBrokenMappingAndServesTheRest() throws {
        let dir = wiremockFolder()
        let server = try StubServerProcess(["--wiremock", dir.path, "--port", "0", "--no-watch"])
        let ready = try XCTUnwrap(server.readyLine())
        XCTAssertTrue(ready.hasSuffix("(2 stubs from \(dir.path), a WireMock folder; 1 mapping skipped)"), ready)
        // stderr is its own pipe: read until the summary, written after the lines it sums up.
        server.waitFor("the summary of skipped mappings") {
            server.stderr.contains("without 1 mapping that has errors")
        }
        let mappings = dir.path + "/mappings/"
        for line in [
            "a-broken.json:2:30: error: trailing comma before '}'",
            "a-broken.json:2:30: skipped: $: the file is not valid JSON",
            "c-missing-body.json:1:60: warning: $.response.bodyFileName",
        ] {
            XCTAssertTrue(server.stderr.contains(mappings + line), server.stderr)
        }
        let base = try XCTUnwrap(server.baseURL())
        let fine = try fetch(base + "/fine")
        XCTAssertEqual(fine.status, 201)
        XCTAssertEqual(fine.body, "fine")
        let gone = try fetch(base + "/gone")
        XCTAssertEqual(gone.status, 500)
        XCTAssertTrue(gone.body.hasPrefix("Not found in blob store: gone.json"), gone.body)
        XCTAssertEqual(try fetch(base + "/broken").status, 404)
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    func testValidateNamesEachSkippedMappingAndExitsOne() throws {
        let dir = wiremockFolder()
        let result = try runStubServer(["validate", "--wiremock", dir.path])
        XCTAssertEqual(result.status, 1)
        let skipped = "\(dir.path)/mappings/a-broken.json:2:30: skipped: $: the file is not valid JSON"
        XCTAssertTrue(result.stdout.contains(skipped), result.stdout)
        let summary =
            "\(dir.path): 1 error in 1 file; serve would skip 1 mapping (listed above) and serve 2 stubs; "
            + "fix them and run validate again\n"
        XCTAssertTrue(result.stdout.hasSuffix(summary), result.stdout)
    }

    /// Issue 29: the hint after a refused WireMock folder said `validate --dir`, which reads the
    /// folder as stub files.
    func testRefusedWireMockFolderHintNamesValidateWireMock() throws {
        let dir = wiremockFolder()
        let strict = try runStubServer(["--wiremock", dir.path, "--port", "0", "--strict"])
        XCTAssertEqual(strict.status, 1)
        let hint = "fix them (stubserver validate --wiremock \(dir.path) lists them)"
        XCTAssertTrue(strict.stderr.contains(hint), strict.stderr)
        XCTAssertFalse(strict.stderr.contains("validate --dir"), strict.stderr)
        let missing = "/nonexistent-\(UUID().uuidString)"
        let absent = try runStubServer(["--wiremock", missing, "--port", "0"])
        XCTAssertEqual(absent.status, 1)
        XCTAssertTrue(absent.stderr.contains("stubserver validate --wiremock \(missing)"), absent.stderr)
    }

    /// `import wiremock` converts what loads (coercions read, a missing body file as its 500),
    /// lists the skipped mapping with its place, and keeps `url` exact: issue 29's
    /// `GET /remote-load/1?x=1` was 404 under --wiremock and 200 after import.
    func testImportKeepsURLExactAndListsSkippedMappings() throws {
        let dir = wiremockFolder()
        let out = dir.appendingPathComponent("out").path
        let imported = try runStubServer(["import", "wiremock", dir.path, "--out", out])
        XCTAssertEqual(imported.status, 1, "a mapping had an error")
        let skipped = "\(dir.path)/mappings/a-broken.json:2:30: skipped: $: the file is not valid JSON"
        XCTAssertTrue(imported.stderr.contains(skipped), imported.stderr)
        XCTAssertTrue(imported.stdout.contains("1 mapping with errors not imported"), imported.stdout)
        let note = "approximated: $.response.bodyFileName: bodyFileName \"gone.json\" is not in __files/"
        XCTAssertTrue(imported.stdout.contains(note), imported.stdout)
        let server = try StubServerProcess(["--dir", out, "--port", "0", "--no-watch"])
        let base = try XCTUnwrap(server.baseURL())
        let fine = try fetch(base + "/fine")
        XCTAssertEqual(fine.status, 201)
        XCTAssertEqual(fine.body, "fine")
        XCTAssertEqual(try fetch(base + "/fine?x=1").status, 404, "url is exact, query included")
        XCTAssertEqual(try fetch(base + "/gone").status, 500)
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }
}
