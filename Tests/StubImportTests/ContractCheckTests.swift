import Foundation
import HTTP1
import HTTPSockets
import JSON
import NativeStubs
import StubEngine
@testable import StubImport
import TestSupport
import XCTest

/// Run-time checking (`--openapi SPEC` while serving): each kind of violation found, reported
/// in the header, the journal and the report, and refused with a problem report when enforced.
final class ContractCheckTests: XCTestCase {
    static let spec = """
        openapi: 3.0.3
        info: {title: Pets, version: "1"}
        servers: [{url: "https://api.example.com/v1"}]
        security: [{bearer: []}]
        paths:
          /pets:
            get:
              operationId: listPets
              parameters:
                - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 100}}
                - {name: status, in: query, required: true, schema: {type: string, enum: [available, sold]}}
                - {name: tags, in: query, schema: {type: array, items: {type: string}}}
                - {name: X-Request-Id, in: header, required: true, schema: {type: string, format: uuid}}
              responses:
                "200":
                  description: ok
                  content:
                    application/json:
                      schema: {type: array, items: {$ref: "#/components/schemas/Pet"}}
            post:
              operationId: createPet
              requestBody:
                required: true
                content:
                  application/json:
                    schema: {$ref: "#/components/schemas/Pet"}
                  application/x-www-form-urlencoded:
                    schema: {$ref: "#/components/schemas/Pet"}
              responses:
                "201": {description: created}
          /pets/{petId}:
            parameters:
              - {name: petId, in: path, required: true, schema: {type: integer, format: int64}}
            get:
              operationId: showPet
              security: []
              responses:
                "200":
                  description: ok
                  headers:
                    X-Rate-Limit: {required: true, schema: {type: integer}}
                  content:
                    application/json:
                      schema: {$ref: "#/components/schemas/Pet"}
        components:
          securitySchemes:
            bearer: {type: http, scheme: bearer}
          schemas:
            Pet:
              type: object
              required: [id, name]
              properties:
                id: {type: integer, readOnly: true}
                name: {type: string, minLength: 1}
                age: {type: integer}
        """

    private func contract() throws -> OpenAPIContract {
        OpenAPIContract(document: try openAPI(Self.spec))
    }

    private func check(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: String = ""
    ) throws -> ContractReport {
        let request = try IncomingRequest.make(
            method: method,
            target: target,
            headers: HeaderFields(headers),
            body: Array(body.utf8),
            peer: "",
            authority: nil
        )
        return try contract().check(RequestFacts(request))
    }

    private let good: [(String, String)] = [
        ("Authorization", "Bearer abc"), ("X-Request-Id", "3fa85f64-5717-4562-b3fc-2c963f66afa6"),
    ]

    func testAValidRequestHasNoViolations() throws {
        let report = try check("GET", "/v1/pets?status=sold&limit=10&tags=a&tags=b", headers: good)
        XCTAssertEqual(report.operation, "GET /pets (listPets)")
        XCTAssertEqual(report.violations.map(\.line), [])
        let post = try check(
            "POST",
            "/v1/pets",
            headers: good + [("Content-Type", "application/json")],
            body: #"{"name": "Rex", "age": 3}"#
        )
        XCTAssertEqual(post.violations.map(\.line), [], "a readOnly property is not required in a request")
        let form = try check(
            "POST",
            "/v1/pets",
            headers: good + [("Content-Type", "application/x-www-form-urlencoded")],
            body: "name=Rex&age=3"
        )
        XCTAssertEqual(form.violations.map(\.line), [], "form fields read as the types their schema asks for")
        XCTAssertEqual(try check("GET", "/pets/7").violations.map(\.line), [], "without the base path; security: []")
    }

    func testEachKindOfViolationIsFound() throws {
        let cases: [(String, String, [(String, String)], String, ContractViolation.Kind, String)] = [
            ("GET", "/v1/pats", good, "", .operation, "no path of spec.yaml matches /v1/pats; did you mean /v1/pets?"),
            ("DELETE", "/v1/pets", good, "", .operation, "DELETE is not documented for /pets (documented: GET, POST)"),
            ("GET", "/v1/pets/seven", [], "", .path, #"expected an integer, found the string "seven""#),
            (
                "GET", "/v1/pets?status=sold&limit=ten", good, "", .query,
                #"expected an integer, found the string "ten""#
            ),
            ("GET", "/v1/pets?status=lost", good, "", .query, #"expected one of "available", "sold", found "lost""#),
            ("GET", "/v1/pets", good, "", .query, "missing the required query parameter status"),
            (
                "GET", "/v1/pets?status=sold", [("Authorization", "Bearer x")], "", .header,
                "missing the required header parameter X-Request-Id"
            ),
            (
                "GET", "/v1/pets?status=sold", [("Authorization", "Bearer x"), ("X-Request-Id", "nope")], "", .header,
                #""nope" is not a UUID (8-4-4-4-12 hexadecimal digits)"#
            ),
            (
                "GET", "/v1/pets?status=sold", [("X-Request-Id", "3fa85f64-5717-4562-b3fc-2c963f66afa6")], "",
                .security,
                "none of the security requirements is met: send bearer (Authorization: Bearer ...)"
            ),
            (
                "POST", "/v1/pets", good + [("Content-Type", "text/plain")], "Rex", .mediaType,
                "Content-Type text/plain is not documented "
                    + "(documented: application/json, application/x-www-form-urlencoded)"
            ),
            (
                "POST", "/v1/pets", good + [("Content-Type", "application/json")], #"{"age": 3}"#, .body,
                #"missing required property "name""#
            ),
            ("POST", "/v1/pets", good, "", .body, "missing the request body, which is required"),
        ]
        for (method, target, headers, body, kind, message) in cases {
            let report = try check(method, target, headers: headers, body: body)
            XCTAssertEqual(
                report.violations.map(\.kind),
                [kind],
                "\(method) \(target): \(report.violations.map(\.line))"
            )
            XCTAssertEqual(report.violations.first?.message, message, "\(method) \(target)")
        }
    }

    func testAForwardedAnswerIsCheckedAgainstTheDocumentedResponses() throws {
        let contract = try contract()
        let request = try IncomingRequest.make(
            method: "GET",
            target: "/v1/pets/7",
            headers: HeaderFields(),
            body: [],
            peer: "",
            authority: nil
        )
        let facts = RequestFacts(request)
        let report = contract.check(facts)
        var headers = HeaderFields([("Content-Type", "application/json")])
        let missing = contract.checkAnswer(status: 200, headers: headers, body: Array(#"{"id": 7}"#.utf8), of: report)
        XCTAssertEqual(
            missing.map(\.line),
            [
                "response.header.X-Rate-Limit: missing the header X-Rate-Limit, which the 200 response requires "
                    + "(#/paths/~1pets~1{petId}/get/responses/200/headers/X-Rate-Limit)",
                #"response.body: missing required property "name" (#/components/schemas/Pet/required)"#,
            ]
        )
        headers.add("X-Rate-Limit", "10")
        XCTAssertEqual(
            contract.checkAnswer(status: 418, headers: headers, body: nil, of: report).map(\.message),
            ["status 418 is not documented for GET /pets/{petId} (documented: 200)"]
        )
    }

    // MARK: Served

    private func serve(enforcing: Bool, proxy: ProxyRule? = nil) throws -> (HTTP1Server, Engine) {
        let folder = temporaryFolder([
            "pets.json": #"""
            [{"request": {"method": "GET", "path": "/v1/pets"}, "response": {"status": 200, "body": []}},
             {"request": {"method": "POST", "path": "/v1/pets"}, "response": {"status": 201}}]
            """#
        ])
        var options = Engine.Options()
        options.contract = try contract()
        options.enforcesContract = enforcing
        options.proxy = proxy
        let result = StubLoader(directory: folder.path).load()
        let engine = Engine(stubs: result.stubs, options: options)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        addTeardownBlock { server.stopAndWait() }
        return (server, engine)
    }

    func testServingReportsViolationsInTheHeaderAndTheJournal() throws {
        let (server, engine) = try serve(enforcing: false)
        let answer = try exchange(server, "GET", "/v1/pets?status=lost", headers: good)
        XCTAssertEqual(answer.status, 200, "reported, not refused")
        XCTAssertEqual(
            answer.header("X-Stubserver-Contract"),
            #"1 violation; query.status: expected one of "available", "sold", found "lost" "#
                + "(#/paths/~1pets/get/parameters/1/schema/enum)"
        )
        let clean = try exchange(server, "GET", "/v1/pets?status=sold", headers: good)
        XCTAssertNil(clean.header("X-Stubserver-Contract"))
        let entries = engine.journal.entries
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(entries[0].contract?.violations.map(\.place), ["query.status"])
        XCTAssertEqual(entries[1].contract?.violations.count, 0)
    }

    func testEnforcingAnswersAProblemReportBeforeAnyStub() throws {
        let (server, _) = try serve(enforcing: true)
        let bad = try exchange(server, "GET", "/v1/pets?status=sold&limit=0", headers: good)
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.header("Content-Type"), "application/problem+json")
        let problem = try JSONParser.parse(bad.body)
        XCTAssertEqual(problem["status"]?.number?.value, 400)
        XCTAssertEqual(problem["violations"]?.elements?.first?["at"]?.string, "query.limit")
        let body = try exchange(
            server,
            "POST",
            "/v1/pets",
            headers: good + [("Content-Type", "application/json")],
            body: Array(#"{"name": ""}"#.utf8)
        )
        XCTAssertEqual(body.status, 422, "only the body's content is wrong")
        let fine = try exchange(
            server,
            "POST",
            "/v1/pets",
            headers: good + [("Content-Type", "application/json")],
            body: Array(#"{"name": "Rex"}"#.utf8)
        )
        XCTAssertEqual(fine.status, 201)
    }
}
