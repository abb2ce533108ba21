import Foundation
import TestSupport
import XCTest

/// `stubserver --openapi SPEC` as users run it (the built binary): requests checked while
/// serving, reported in the header, the log and the journal, refused when enforced; `Prefer`
/// that the document cannot satisfy says so; and the newcomer's DigitalOcean walk from the
/// root file of 2,907.
final class ContractEndToEndTests: XCTestCase {
    static let spec = """
        openapi: 3.0.3
        info: {title: Pets, version: '1'}
        paths:
          /pets:
            post:
              operationId: createPet
              parameters:
                - {name: dryRun, in: query, schema: {type: boolean}}
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [name]
                      properties: {name: {type: string}, age: {type: integer, minimum: 0}}
              responses:
                '201':
                  description: created
                  content:
                    application/json:
                      schema: {type: object, properties: {id: {type: integer}}}
                      examples:
                        rex: {value: {id: 1}}
                '409': {description: exists}
        """

    private func start(_ extra: [String]) throws -> (StubServerProcess, String, URL) {
        let dir = folder(["spec.yaml": Self.spec])
        let stubs = dir.appendingPathComponent("stubs").path
        let imported = try runStubServer([
            "import", "openapi", dir.appendingPathComponent("spec.yaml").path, "--out", stubs,
        ])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let server = try StubServerProcess(
            [
                "--dir", stubs, "--port", "0", "--openapi",
                dir.appendingPathComponent("spec.yaml").path,
            ] + extra
        )
        addTeardownBlock { server.signal(SIGTERM) }
        let base = try XCTUnwrap(server.baseURL())
        return (server, base, dir)
    }

    func testAnImportThatLosesABodyFailsAndStrictFailsOnAnyNote() throws {
        let dir = folder([
            "spec.yaml": """
            openapi: 3.1.0
            paths:
              /report:
                get:
                  responses:
                    '200':
                      description: xml only
                      content:
                        application/xml:
                          example: {report: {id: 1}}
            """
        ])
        let spec = dir.appendingPathComponent("spec.yaml").path
        let lost = try runStubServer(["import", "openapi", spec, "--out", dir.appendingPathComponent("a").path])
        XCTAssertEqual(lost.status, 1)
        XCTAssertTrue(lost.stderr.contains("1 documented response lost its body in the import"), lost.stderr)
        let strict = try runStubServer([
            "import", "openapi", spec, "--out", dir.appendingPathComponent("b").path, "--strict",
        ])
        XCTAssertEqual(strict.status, 2, strict.stderr)
    }

    func testViolationsAreReportedInTheHeaderAndTheLog() throws {
        let (server, base, _) = try start([])
        let fine = try fetch(
            base + "/pets",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"name": "Rex"}"#
        )
        XCTAssertEqual(fine.status, 201)
        XCTAssertNil(fine.headers["x-stubserver-contract"])
        let bad = try fetch(
            base + "/pets?dryRun=maybe",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"age": -1}"#
        )
        XCTAssertEqual(bad.status, 201, "reported, not refused")
        XCTAssertEqual(
            bad.headers["x-stubserver-contract"]?.hasPrefix("3 violations; query.dryRun: expected a boolean"),
            true,
            "\(bad.headers)"
        )
        _ = server.waitFor("the contract's log lines") { server.stdout.contains("missing required property") }
        XCTAssertTrue(server.stdout.contains(#"body: missing required property "name""#), server.stdout)
        let journal = try fetch(base + "/__admin/requests")
        XCTAssertTrue(journal.body.contains(#""kind":"query""#), journal.body)
    }

    /// With --proxy the request is checked, and the upstream's answer too: reported in the log
    /// and the journal, passed on unchanged.
    func testAForwardedAnswerIsCheckedAndPassedOnUnchanged() throws {
        let dir = folder([
            "spec.yaml": Self.spec,
            "upstream/pets.json": #"""
            {"request": {"method": "POST", "path": "/pets"},
             "response": {"status": 201, "headers": {"Content-Type": "application/json"}, "body": {"id": "seven"}}}
            """#,
            "front/.keep": "",
        ])
        let upstream = try StubServerProcess(["--dir", dir.appendingPathComponent("upstream").path, "--port", "0"])
        addTeardownBlock { upstream.signal(SIGTERM) }
        let upstreamURL = try XCTUnwrap(upstream.baseURL())
        let front = try StubServerProcess([
            "--dir", dir.appendingPathComponent("front").path, "--port", "0", "--proxy", upstreamURL,
            "--openapi", dir.appendingPathComponent("spec.yaml").path,
        ])
        addTeardownBlock { front.signal(SIGTERM) }
        let base = try XCTUnwrap(front.baseURL())
        let answer = try fetch(
            base + "/pets",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"name": "Rex"}"#
        )
        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(answer.body, #"{"id":"seven"}"#, "passed on unchanged")
        _ = front.waitFor("the answer's contract line") { front.stdout.contains("the upstream's answer") }
        XCTAssertTrue(
            front.stdout.contains(#"response.body.id: expected an integer, found the string "seven""#),
            front.stdout
        )
        let journal = try fetch(base + "/__admin/requests")
        XCTAssertTrue(journal.body.contains(#""response":[{"kind":"response""#), journal.body)
    }

    /// A WireMock folder served with --openapi is checked the same way.
    func testAWireMockFolderIsCheckedToo() throws {
        let dir = folder([
            "spec.yaml": Self.spec,
            "wm/mappings/pets.json": #"{"request": {"method": "POST", "url": "/pets"}, "response": {"status": 201}}"#,
        ])
        let server = try StubServerProcess([
            "--wiremock", dir.appendingPathComponent("wm").path, "--port", "0",
            "--openapi", dir.appendingPathComponent("spec.yaml").path,
        ])
        addTeardownBlock { server.signal(SIGTERM) }
        let base = try XCTUnwrap(server.baseURL())
        let answer = try fetch(base + "/pets", method: "POST", headers: ["Content-Type": "text/plain"], body: "Rex")
        XCTAssertEqual(answer.status, 201)
        XCTAssertEqual(
            answer.headers["x-stubserver-contract"]?.contains("Content-Type text/plain"),
            true,
            "\(answer.headers)"
        )
    }

    func testEnforcingAnswersProblemReports() throws {
        let (_, base, _) = try start(["--openapi-enforce"])
        let bad = try fetch(
            base + "/pets",
            method: "POST",
            headers: ["Content-Type": "application/json"],
            body: #"{"name": 7}"#
        )
        XCTAssertEqual(bad.status, 422)
        XCTAssertEqual(bad.headers["content-type"], "application/problem+json")
        XCTAssertTrue(bad.body.contains(#""at":"body.name""#), bad.body)
        let unknown = try fetch(base + "/cats")
        XCTAssertEqual(unknown.status, 400)
        XCTAssertTrue(unknown.body.contains("no path of"), unknown.body)
    }

    func testPreferThatCannotBeSatisfiedSaysSo() throws {
        let (_, base, _) = try start([])
        let json = ["Content-Type": "application/json"]
        let chosen = try fetch(
            base + "/pets",
            method: "POST",
            headers: json.merging(["Prefer": "code=409"]) { a, _ in a },
            body: #"{"name": "Rex"}"#
        )
        XCTAssertEqual(chosen.status, 409)
        XCTAssertEqual(chosen.headers["preference-applied"], "code=409")
        let unknown = try fetch(
            base + "/pets",
            method: "POST",
            headers: json.merging(["Prefer": "code=418"]) { a, _ in a },
            body: #"{"name": "Rex"}"#
        )
        XCTAssertEqual(unknown.status, 404)
        XCTAssertTrue(
            unknown.body.contains("201") && unknown.body.contains("409") && unknown.body.contains("rex"),
            unknown.body
        )
        XCTAssertNotNil(unknown.headers["x-stubserver-prefer"])
    }

    /// The newcomer's walk from the issue, from the root file: the import carries the bodies and
    /// Prefer variants, examples given by `$ref` are served as values, an unknown `Prefer` code
    /// falls back to `default`, and requests are checked.
    func testTheDigitalOceanWalkFromTheRootFile() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/corpora/openapi-real/digitalocean__openapi/specification")
        let spec = corpus.appendingPathComponent("DigitalOcean-public.v2.yaml").path
        guard FileManager.default.fileExists(atPath: spec) else {
            throw XCTSkip("../shared/corpora/openapi-real not found next to the package: skipped")
        }
        let out = folder([:]).appendingPathComponent("do").path
        // 2,907 files: give a loaded machine time (the default wait is 20 s).
        let imported = try StubServerProcess(["import", "openapi", spec, "--out", out])
        XCTAssertEqual(imported.exitStatus(timeout: 300), 0, String(imported.stderr.suffix(2_000)))
        XCTAssertTrue(imported.stdout.contains("for 659 operations in 659 files"), imported.stdout)
        let server = try StubServerProcess(["--dir", out, "--port", "0", "--openapi", spec, "--log", "quiet"])
        addTeardownBlock { server.signal(SIGTERM) }
        // 4,881 stubs and the document's 2,907 files load before the ready line: a loaded machine needs longer.
        _ = server.waitFor("the ready line", timeout: 240) { server.stdout.contains("\n") || !server.process.isRunning }
        let base = try XCTUnwrap(server.baseURL(), server.stderr)
        let auth = ["Authorization": "Bearer token"]
        let account = try fetch(base + "/v2/account", headers: auth)
        XCTAssertEqual(account.status, 200)
        XCTAssertTrue(account.body.contains("droplet_limit"), account.body)
        XCTAssertNil(account.headers["x-stubserver-contract"])
        let byoip = try fetch(base + "/v2/byoip_prefixes", headers: auth)
        XCTAssertFalse(byoip.body.contains("$ref"), byoip.body)
        let fallback = try fetch(base + "/v2/account", headers: auth.merging(["Prefer": "code=418"]) { a, _ in a })
        XCTAssertEqual(fallback.status, 500, "the default response, as Prism answers")
        XCTAssertNotNil(fallback.headers["x-stubserver-prefer"])
        let noToken = try fetch(base + "/v2/account")
        XCTAssertEqual(noToken.headers["x-stubserver-contract"]?.contains("security"), true, "\(noToken.headers)")
    }
}
