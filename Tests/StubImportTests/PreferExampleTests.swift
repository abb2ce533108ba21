import Foundation
import HTTP1
import HTTPSockets
import JSON
import StubAuthoring
import StubEngine
@testable import StubImport
import TestSupport
import XCTest

/// `Prefer: example=NAME` (issue 34): the named example is found in whichever documented
/// response has it (the default stub's, then 2xx, then the others), the answer says so in
/// `Preference-Applied`, and a name no response has is a 404 that lists the names there are.
final class PreferExampleTests: XCTestCase {
    /// Twilio's messaging API documents `createWithCapabilities` only under 201, beside a 200.
    static let messages = """
        openapi: 3.1.0
        info: {title: Messages, version: '1'}
        paths:
          /messages:
            post:
              operationId: createMessage
              responses:
                '200':
                  description: listed
                  content: {application/json: {examples: {plain: {value: {sid: p}}}}}
                '201':
                  description: created
                  content:
                    application/json:
                      examples:
                        createWithCapabilities: {value: {sid: c, capabilities: [sms]}}
                        shared: {value: {from: created}}
                        'with space': {value: {sid: s}}
                '400':
                  description: refused
                  content:
                    application/json:
                      examples:
                        invalidNumber: {value: {code: 21211}}
                        shared: {value: {from: refused}}
        """

    /// The same with a `default` response: an unknown code gets it, an unknown name still not.
    static let withDefault =
        messages + """

                    default:
                      description: error
                      content: {application/json: {schema: {type: object, properties: {message: {type: string}}}}}
            """

    private func served(_ spec: String) throws -> HTTP1Server {
        let outcome = OpenAPIImporter.plan(try openAPI(spec))
        let folder = temporaryFolder().appendingPathComponent("stubs")
        _ = try StubFolderWriter.write(outcome.plan.output, into: folder.path, existing: .refuse)
        return try serve(folder)
    }

    private func ask(_ server: HTTP1Server, _ prefer: String?) throws -> WireResponse {
        try exchange(server, "POST", "/messages", headers: prefer.map { [("Prefer", $0)] } ?? [])
    }

    func testANameIsAnsweredFromTheResponseThatHasIt() throws {
        let server = try served(Self.messages)
        let plain = try ask(server, nil)
        XCTAssertEqual(plain.status, 200)
        XCTAssertNil(plain.header("Preference-Applied"), "no Prefer, nothing applied")
        let capabilities = try ask(server, "example=createWithCapabilities")
        XCTAssertEqual(capabilities.status, 201, "documented only under 201")
        XCTAssertEqual(String(decoding: capabilities.body, as: UTF8.self), #"{"sid":"c","capabilities":["sms"]}"#)
        XCTAssertEqual(capabilities.header("Preference-Applied"), "example=createWithCapabilities")
        XCTAssertEqual(try ask(server, "example=plain").status, 200, "the default status's own")
        XCTAssertEqual(try ask(server, "example=invalidNumber").status, 400, "a name only a 4xx has")
        let shared = try ask(server, "example=shared")
        XCTAssertEqual(shared.status, 201, "a name in a 2xx and a 4xx: the 2xx")
        XCTAssertEqual(String(decoding: shared.body, as: UTF8.self), #"{"from":"created"}"#)
        let refused = try ask(server, "code=400, example=shared")
        XCTAssertEqual(refused.status, 400, "code and name together: that status's")
        XCTAssertEqual(refused.header("Preference-Applied"), "code=400, example=shared")
        let spaced = try ask(server, #"example="with space""#)
        XCTAssertEqual(spaced.status, 201)
        XCTAssertEqual(spaced.header("Preference-Applied"), #"example="with space""#, "quoted: not a token")
    }

    func testAnUnknownNameIsA404ListingTheNames() throws {
        for spec in [Self.messages, Self.withDefault] {
            let server = try served(spec)
            let unknown = try ask(server, "example=nosuch")
            XCTAssertEqual(unknown.status, 404)
            XCTAssertNil(unknown.header("Preference-Applied"))
            XCTAssertNotNil(unknown.header("X-Stubserver-Prefer"))
            let report = try JSONParser.parse(unknown.body)
            XCTAssertEqual(
                report["documented"]?["examples"]?.elements?.compactMap(\.string),
                ["plain", "createWithCapabilities", "shared", "with space", "invalidNumber"],
                "each name once, in the order they are looked for"
            )
        }
        let fallback = try ask(try served(Self.withDefault), "code=418")
        XCTAssertEqual(fallback.status, 500, "an unknown code gets the default response")
        XCTAssertTrue(fallback.header("X-Stubserver-Prefer")?.contains("default response") ?? false)
    }

    func testThroughTheBinary() throws {
        let input = temporaryFolder(["messages.yaml": Self.withDefault])
        let out = input.appendingPathComponent("stubs").path
        let run = try runStubServer([
            "import", "openapi", input.appendingPathComponent("messages.yaml").path, "--out", out,
        ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let server = try StubServerProcess(["--dir", out, "--port", "0", "--no-watch", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL(), server.stderr)
        let found = try fetch(base + "/messages", method: "POST", headers: ["Prefer": "example=createWithCapabilities"])
        XCTAssertEqual(found.status, 201)
        XCTAssertEqual(found.headers["preference-applied"], "example=createWithCapabilities")
        let unknown = try fetch(base + "/messages", method: "POST", headers: ["Prefer": "example=nosuch"])
        XCTAssertEqual(unknown.status, 404)
        XCTAssertTrue(unknown.body.contains("createWithCapabilities"), unknown.body)
        XCTAssertEqual(try fetch(base + "/messages", method: "POST", headers: ["Prefer": "code=418"]).status, 500)
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }
}
