import Foundation
import TestSupport
import XCTest

/// Every documented helper through the binary (issue 29): the table of
/// TestSupport's `HandlebarsHelperTable`, which WireMockTests also runs in process, so that a
/// difference between the test process (all of Foundation) and the binary cannot hide.
final class HelperTableEndToEndTests: XCTestCase {
    func testEveryHelperRowRendersInTheBinary() throws {
        var files: [String: String] = [:]
        for (name, json) in try HandlebarsHelperTable.mappings() { files["mappings/" + name] = json }
        let dir = folder(files)
        let validate = try runStubServer(["validate", "--wiremock", dir.path])
        XCTAssertEqual(validate.status, 0, validate.stdout + validate.stderr)
        let server = try StubServerProcess(["--wiremock", dir.path, "--port", "0"])
        let base = try XCTUnwrap(server.baseURL(), server.stdout + server.stderr)
        let port = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""))
        let failures = try HandlebarsHelperTable.check(port: port)
        XCTAssertEqual(failures, [], failures.joined(separator: "\n"))
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    /// `--global-response-templating`: a mapping without `transformers` is a template too;
    /// without the flag it is sent as written.
    func testGlobalResponseTemplatingTemplatesMappingsWithoutTransformers() throws {
        let mapping = #"{"request": {"urlPath": "/g"}, "response": {"body": "{{request.query.name}} {{upper 'x'}}"}}"#
        let dir = folder(["mappings/g.json": mapping])
        for (flags, expected) in [
            ([String](), "{{request.query.name}} {{upper 'x'}}"), (["--global-response-templating"], "n X"),
        ] {
            let server = try StubServerProcess(["--wiremock", dir.path, "--port", "0"] + flags)
            let base = try XCTUnwrap(server.baseURL(), server.stdout + server.stderr)
            XCTAssertEqual(try fetch(base + "/g?name=n").body, expected, "flags \(flags)")
            server.signal(SIGTERM)
            XCTAssertEqual(server.exitStatus(), 0)
        }
    }
}
