import Foundation
import TestSupport
import XCTest

/// Issue 38, item 11: the smaller findings, each through the binary.
final class ProbeSmallFindingsTests: XCTestCase {
    func testAJournalIdTooLongForANumberIsNotFound() throws {
        let server = try StubServerProcess(["--dir", folder([:]).path, "--port", "0", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL())
        let answer = try fetch(base + "/__admin/requests/999999999999999999999")
        XCTAssertEqual(answer.status, 404, answer.body)
        XCTAssertTrue(answer.body.contains("no journal entry"), answer.body)
        XCTAssertEqual(try fetch(base + "/__admin/requests/abc").status, 404)
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    func testAPathThatResolvesToAnotherIsNotRecordedAsIt() throws {
        let upstream = try ScriptedUpstream { request in
            [
                .response(
                    200,
                    headers: [("Content-Type", "text/plain")],
                    body: Array("upstream saw \(request.target)".utf8)
                )
            ]
        }
        defer { upstream.stop() }
        let out = folder([:])
        let server = try StubServerProcess([
            "record", "--proxy", "http://127.0.0.1:\(upstream.port)", "--out", out.path,
            "--port", "0", "--log", "quiet",
        ])
        let base = try XCTUnwrap(server.baseURL())
        let port = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""))
        let connection = try WireConnection(port: port)
        connection.send("GET /a%2F..%2Fb HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try connection.readResponse().text, "upstream saw /a%2F..%2Fb")
        XCTAssertEqual(try fetch(base + "/c").status, 200)
        server.signal(SIGINT)
        XCTAssertEqual(server.exitStatus(), 0, server.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["get-c.json"])
        XCTAssertTrue(
            server.stderr.contains("GET /a%2F..%2Fb: the path resolves to /b, another path; not recorded"),
            server.stderr
        )
    }

    func testReferencesOutsideTheDocumentsFolderAreRefusedUnlessAllowed() throws {
        let outside = folder([
            "secret.json": #"{"type": "object", "properties": {"secret": {"type": "string", "example": "s3cr3t"}}}"#
        ])
        let spec = """
            openapi: 3.0.3
            info: {title: t, version: '1'}
            paths:
              /relative:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {$ref: '../\(outside.lastPathComponent)/secret.json'}
              /absolute:
                get:
                  responses:
                    '200':
                      description: ok
                      content:
                        application/json:
                          schema: {$ref: '\(outside.path)/secret.json'}
            """
        let dir = folder(["spec.yaml": spec])
        let refused = try runStubServer([
            "import", "openapi", dir.appendingPathComponent("spec.yaml").path,
            "--out", dir.appendingPathComponent("refused").path,
        ])
        XCTAssertTrue(refused.stderr.contains("is outside the document's folder"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("is an absolute path"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--allow-ref-outside"), refused.stderr)
        let written = try String(
            contentsOfFile: dir.appendingPathComponent("refused/get-relative.json").path,
            encoding: .utf8
        )
        XCTAssertFalse(written.contains("s3cr3t"), written)

        let allowed = try runStubServer([
            "import", "openapi", dir.appendingPathComponent("spec.yaml").path,
            "--out", dir.appendingPathComponent("allowed").path, "--allow-ref-outside",
        ])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(
            allowed.stderr.contains("read \(outside.path)/secret.json, outside the document's folder"),
            allowed.stderr
        )
        let read = try String(
            contentsOfFile: dir.appendingPathComponent("allowed/get-relative.json").path,
            encoding: .utf8
        )
        XCTAssertTrue(read.contains("s3cr3t"), read)
    }

    func testARenderedBodyOverTheLimitIsA500SaidAndJournaled() throws {
        let echo = String(repeating: "{{request.body}}", count: 100)
        let dir = folder([
            "echo.json":
                #"{"request": {"method": "POST", "path": "/echo"}, "response": {"template": true, "body": "\#(echo)"}}"#
        ])
        let server = try StubServerProcess([
            "--dir", dir.path, "--port", "0", "--log", "quiet", "--max-rendered-body", "1M",
        ])
        let base = try XCTUnwrap(server.baseURL())
        let small = try fetch(base + "/echo", method: "POST", body: String(repeating: "y", count: 1_000))
        XCTAssertEqual(small.status, 200)
        XCTAssertEqual(small.body.utf8.count, 100_000)
        let large = try fetch(base + "/echo", method: "POST", body: String(repeating: "x", count: 100_000))
        XCTAssertEqual(large.status, 500)
        XCTAssertTrue(large.body.contains("rendered more than 1048576 bytes (--max-rendered-body)"), large.body)
        let journal = try fetch(base + "/__admin/requests")
        XCTAssertTrue(journal.body.contains("rendered more than 1048576 bytes"), String(journal.body.prefix(500)))
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }
}
