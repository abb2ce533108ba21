import Foundation
import HTTP1
import JSON
import NativeStubs
import StubEngine
@testable import StubImport
import XCTest

/// Imports never lose content silently: `$ref`s are followed wherever documents write them
/// (operations, as DigitalOcean writes every one of its 659; examples), what cannot be carried
/// over is listed with its file and JSON pointer, a documented body the stub goes without is
/// an error, and `validate --openapi` says when a stub lacks the body the document gives.
final class ImportNothingLostTests: XCTestCase {
    private func multiFile() -> URL {
        temporaryFolder([
            "spec.yaml": """
            openapi: 3.0.0
            info: {title: t, version: '1'}
            paths:
              /v2/account:
                get:
                  $ref: 'resources/account_get.yml'
              /v2/gone:
                get:
                  $ref: 'resources/missing.yml'
            """,
            "resources/account_get.yml": """
            operationId: account_get
            responses:
              '200':
                $ref: 'responses/account.yml'
              '401':
                description: no
                content:
                  application/json:
                    example: {$ref: 'examples.yml#/unauthorized'}
            """,
            "resources/responses/account.yml": """
            description: the account
            content:
              application/json:
                schema: {type: object, properties: {account: {type: object}}}
                examples:
                  full:
                    value:
                      account: {$ref: '../examples.yml#/account'}
            """,
            "resources/examples.yml": """
            account: {droplet_limit: 25, email: sammy@example.com}
            unauthorized: {id: unauthorized, message: Unable to authenticate you.}
            """,
        ])
    }

    func testOperationsAndExamplesGivenByReferenceAreImportedWhole() throws {
        let folder = multiFile()
        let document = try OpenAPIDocument.open(path: folder.appendingPathComponent("spec.yaml").path).get()
        let outcome = OpenAPIImporter.plan(document)
        XCTAssertEqual(outcome.importedOperations, 1)
        XCTAssertEqual(
            outcome.skipped.map(\.reason),
            ["operation is a $ref that does not resolve (resources/missing.yml)"]
        )
        let stubs = try XCTUnwrap(JSONParser.parse(outcome.plan.files[0].bytes).elements)
        XCTAssertEqual(stubs[0]["name"]?.string, "account_get 200")
        XCTAssertEqual(
            JSONSerializer.string(stubs[0]["response"]?["body"] ?? .null),
            #"{"account":{"droplet_limit":25,"email":"sammy@example.com"}}"#,
            "the example's $ref is followed, inside the value too"
        )
        let unauthorized = try XCTUnwrap(stubs.first { $0["name"]?.string == "account_get 401 (Prefer: code=401)" })
        XCTAssertEqual(
            JSONSerializer.string(unauthorized["response"]?["body"] ?? .null),
            #"{"id":"unauthorized","message":"Unable to authenticate you."}"#
        )
        XCTAssertFalse(outcome.plan.files.contains { String(decoding: $0.bytes, as: UTF8.self).contains("$ref") })
        // The operation that does not resolve is an error where its $ref is written, never an empty 200.
        XCTAssertEqual(outcome.plan.errors.count, 1)
        XCTAssertTrue(outcome.plan.errors[0].description.contains("spec.yaml:9:"), outcome.plan.errors[0].description)
    }

    func testAResponseBodyThatCannotBeWrittenIsAnErrorWithItsPlace() throws {
        let document = try openAPI(
            """
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
        )
        let outcome = OpenAPIImporter.plan(document)
        XCTAssertEqual(outcome.lostBodies, 1)
        XCTAssertEqual(outcome.plan.errors.count, 1)
        let message = outcome.plan.errors[0].description
        XCTAssertTrue(message.contains("the document gives this response a body, but its stub has none"), message)
        XCTAssertTrue(message.contains("(at #/paths/~1report/get/responses/200)"), message)
    }

    func testValidateReportsAMissingBodyAndAnOperationThatDoesNotResolve() throws {
        let folder = multiFile()
        let document = try OpenAPIDocument.open(path: folder.appendingPathComponent("spec.yaml").path).get()
        let stubs = temporaryFolder([
            "stubs.json": """
            [{"request": {"method": "GET", "path": "/v2/account"}, "response": {"status": 200}},
             {"request": {"method": "GET", "path": "/v2/gone"}, "response": {"status": 200}}]
            """
        ])
        let loaded = StubLoader(directory: stubs.path).load()
        let findings = StubChecker(document: document).check(loaded.stubs).map(\.message)
        XCTAssertEqual(findings.count, 2, "\(findings)")
        XCTAssertTrue(findings[0].hasPrefix("no body, but GET /v2/account documents content for its 200 response"))
        XCTAssertTrue(findings[1].hasPrefix("GET /v2/gone is a $ref that does not resolve (resources/missing.yml)"))
    }
}
