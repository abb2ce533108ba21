import Foundation
import TestSupport
import XCTest

/// Issue 38: imports that grew without bound or wrote nothing (items 4, 10 and 11).
final class ImportBoundsTests: XCTestCase {
    private func size(_ folder: String) throws -> Int {
        let files = FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []
        return try files.reduce(0) { total, name in
            total + ((try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int) ?? 0)
        }
    }

    // Item 4: `minLength: 2000000000` reached 4.6 GB in 15 s; three nested `minItems: 1000`
    // grew until killed (8.9 GB after ten minutes, from a 3 KB document).
    func testTheSamplerStopsAtItsBudgetAndSaysWhere() throws {
        let spec = """
            openapi: 3.0.3
            info: {title: t, version: '1'}
            paths:
              /long:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {type: string, minLength: 2000000000}
              /nested:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema:
                            type: array
                            minItems: 1000
                            items:
                              type: array
                              minItems: 1000
                              items:
                                type: array
                                minItems: 1000
                                items: {type: integer}
            """
        let dir = folder(["spec.yaml": spec])
        let out = dir.appendingPathComponent("stubs").path
        let started = Date()
        let imported = try runStubServer([
            "import", "openapi", dir.appendingPathComponent("spec.yaml").path, "--out", out,
        ])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertLessThan(seconds, 15, "imported in \(seconds) s")
        // Two stubs carry the default body (the default stub and `Prefer: code=200`), each bounded.
        XCTAssertLessThan(try size(out), 2 * (4 << 20), "bounded bodies")
        XCTAssertTrue(imported.stderr.contains("spec.yaml:11:"), imported.stderr)
        XCTAssertTrue(
            imported.stderr.contains("the sample was cut: minLength 2000000000 is more than the 1048576 bytes"),
            imported.stderr
        )
        XCTAssertTrue(
            imported.stderr.contains("the sample was cut: minItems 1000 needs more than the 100000 values"),
            imported.stderr
        )
    }

    // Item 10: one body over 64 MiB made the import write nothing ("this is a bug in stubserver").
    func testAHARBodyOverTheBodyFileLimitIsSkippedAndTheRestWritten() throws {
        func entry(_ path: String, _ text: String) -> String {
            """
            {"request": {"method": "GET", "url": "https://api.example.com\(path)", "headers": []},
             "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "text/plain"}],
                          "content": {"size": \(text.utf8.count), "mimeType": "text/plain", "text": "\(text)"}}}
            """
        }
        let big = String(repeating: "x", count: (64 << 20) + 1)
        let har =
            #"{"log": {"version": "1.2", "entries": ["# + entry("/big", big) + "," + entry("/small", "small") + "]}}"
        let dir = folder(["capture.har": har])
        let out = dir.appendingPathComponent("stubs").path
        // Reading 64 MiB of JSON takes a debug build a while on a busy machine.
        let imported = try StubServerProcess([
            "import", "har", dir.appendingPathComponent("capture.har").path, "--out", out,
        ])
        XCTAssertEqual(imported.exitStatus(timeout: 180), 0, imported.stderr)
        XCTAssertTrue(
            (imported.stdout + imported.stderr).contains("response body over the 64 MiB a body file may hold"),
            imported.stdout + imported.stderr
        )
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), ["get-small.json"])
    }
}
