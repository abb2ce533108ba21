import Foundation
import JSON
@testable import StubImport
import StubEngine
import XCTest

/// What an OpenAPI document becomes: files, stubs, priorities, bodies, headers, skips.
final class OpenAPIImporterTests: XCTestCase {
    private func stubs(
        _ outcome: OpenAPIImporter.Outcome,
        _ file: String,
        sourceFile: StaticString = #filePath,
        line: UInt = #line
    ) throws -> [JSONNode] {
        let found = try XCTUnwrap(
            outcome.plan.files.first { $0.relativePath == file },
            "no \(file) in \(outcome.plan.files.map(\.relativePath))",
            file: sourceFile,
            line: line
        )
        let root = try JSONParser.parse(found.bytes)
        return root.elements ?? [root]
    }

    private func text(_ node: JSONNode?) -> String { node.map(JSONSerializer.string) ?? "nil" }

    static let petstore = """
        openapi: 3.0.3
        info: {title: Pets, version: '1'}
        servers:
          - url: https://api.example.com/v2
        paths:
          /pets/{petId}:
            get:
              operationId: showPet
              responses:
                '200':
                  description: a pet
                  headers:
                    X-Rate-Limit: {required: true, schema: {type: integer, example: 100}}
                    Content-Length: {schema: {type: integer}}
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Pet'}
                      examples:
                        rex: {value: {id: 1, name: Rex}}
                        tom: {$ref: '#/components/examples/Tom'}
                        remote: {externalValue: 'https://example.com/pet.json'}
                '404':
                  description: no such pet
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Error'}
                default:
                  description: error
                  content:
                    application/problem+json:
                      schema: {$ref: '#/components/schemas/Error'}
        components:
          examples:
            Tom: {value: {id: 2, name: Tom}}
          schemas:
            Pet:
              type: object
              required: [id, name]
              properties:
                id: {type: integer, format: int64}
                name: {type: string}
                born: {type: string, format: date, nullable: true}
            Error:
              type: object
              required: [code]
              properties:
                code: {type: integer, format: int32}
                message: {type: string}
        """

    func testAnOperationGetsADefaultStubAndOneStubPerStatusAndExample() throws {
        let outcome = OpenAPIImporter.plan(try openAPI(Self.petstore))
        XCTAssertEqual(outcome.plan.files.map(\.relativePath), ["get-pets-petid.json"])
        let all = try stubs(outcome, "get-pets-petid.json")
        XCTAssertEqual(
            all.map { $0["name"]?.string ?? "" },
            [
                "showPet 200",
                "showPet 200 example rex (Prefer: example=rex)",
                "showPet 200 example tom (Prefer: example=tom)",
                "showPet 200 (Prefer: code=200)",
                "showPet 404 (Prefer: code=404)",
                "showPet 500 from default (Prefer: code=500)",
                "showPet Prefer example not documented (documented codes: 200, 404, 500; examples: rex, tom)",
                "showPet Prefer code not documented (documented codes: 200, 404, 500; examples: rex, tom)",
            ]
        )
        XCTAssertEqual(all.map { $0["priority"]?.number?.text ?? "-" }, ["-", "4", "4", "4", "3", "3", "-", "-"])
        XCTAssertEqual(Set(all.map { $0["request"]?["path"]?.string ?? "" }), ["/v2/pets/{petId}"])
        XCTAssertEqual(
            text(all[0]["response"]),
            #"{"status":200,"headers":{"X-Rate-Limit":"100"},"body":{"id":1,"name":"Rex"}}"#
        )
        XCTAssertNil(all[0]["request"]?["headers"], "the default stub has no Prefer condition")
        XCTAssertEqual(text(all[2]["response"]?["body"]), #"{"id":2,"name":"Tom"}"#)
        XCTAssertEqual(
            text(all[2]["response"]?["headers"]),
            #"{"X-Rate-Limit":"100","Preference-Applied":"example=tom"}"#,
            "an answer Prefer chose says so"
        )
        XCTAssertEqual(all[3]["request"]?["headers"]?["Prefer"]?["matches"]?.string, PreferCondition.code(200))
        XCTAssertEqual(all[4]["request"]?["headers"]?["Prefer"]?["matches"]?.string, PreferCondition.code(404))
        XCTAssertEqual(
            text(all[4]["response"]),
            #"{"status":404,"headers":{"Preference-Applied":"code=404"},"body":{"code":0,"message":"string"}}"#
        )
        XCTAssertEqual(
            text(all[5]["response"]?["headers"]),
            #"{"Content-Type":"application/problem+json","Preference-Applied":"code=500"}"#
        )
        // A name no example has is a 404 that lists the names; a code the document does not list
        // gets `default` (as Prism answers); each says so.
        XCTAssertEqual(all[6]["request"]?["headers"]?["Prefer"]?["matches"]?.string, PreferCondition.anyExample)
        XCTAssertEqual(DecodingTestValue.int(all[6]["response"]?["status"]), 404)
        XCTAssertEqual(
            text(all[6]["response"]?["body"]?["documented"]),
            #"{"codes":[200,404,500],"examples":["rex","tom"]}"#
        )
        XCTAssertEqual(all[7]["request"]?["headers"]?["Prefer"]?["matches"]?.string, PreferCondition.anyCode)
        XCTAssertEqual(DecodingTestValue.int(all[7]["response"]?["status"]), 500)
        XCTAssertEqual(
            all[7]["response"]?["headers"]?["X-Stubserver-Prefer"]?.string,
            "not documented; answered with the default response (documented codes: 200, 404, 500; examples: rex, tom)"
        )
        // The external example is skipped with a note that says where it is.
        XCTAssertEqual(outcome.plan.problems.map(\.severity), [.note])
        XCTAssertTrue(
            outcome.plan.problems[0].description.hasPrefix("spec.yaml:21:41: note: example \"remote\" skipped"),
            outcome.plan.problems[0].description
        )
        XCTAssertEqual(outcome.summary, "8 stubs for 1 operation in 1 file")
    }

    func testBasePathOptions() throws {
        let document = try openAPI(Self.petstore)
        for (option, expected) in [
            (OpenAPIImportOptions.BasePath.servers, "/v2/pets/{petId}"), (.strip, "/pets/{petId}"),
            (.custom("api/"), "/api/pets/{petId}"), (.custom("/"), "/pets/{petId}"),
        ] {
            let outcome = OpenAPIImporter.plan(document, options: OpenAPIImportOptions(basePath: option))
            XCTAssertEqual(
                try stubs(outcome, "get-pets-petid.json")[0]["request"]?["path"]?.string,
                expected,
                "\(option)"
            )
        }
        let variables = try openAPI(
            """
            openapi: 3.0.1
            servers: [{url: '{scheme}://h.example/{base}/', variables: {scheme: {default: https}, base: {default: \
            ds-api}}}]
            paths: {/x: {get: {responses: {'200': {description: ok}}}}}
            """
        )
        XCTAssertEqual(
            try stubs(OpenAPIImporter.plan(variables), "get-x.json")[0]["request"]?["path"]?.string,
            "/ds-api/x"
        )
    }

    func testWhichResponseAnswersByDefault() throws {
        // The default stub, `Prefer: code=` its own status, each other status, and the answer to
        // a Prefer the document does not list: `default`'s when there is one, else a 404.
        let cases: [(String, [Int])] = [
            ("{'201': {description: a}, '400': {description: b}}", [201, 201, 400, 404]),
            ("{'404': {description: a}, '2XX': {description: b}}", [200, 200, 404, 404]),
            ("{default: {description: a}}", [200, 200, 200]),
            (
                "{'404': {description: a}, '4XX': {description: b}, default: {description: c}}",
                [200, 200, 400, 404, 200]
            ),
            (
                "{'404': {description: a}, '5XX': {description: b}, default: {description: c}}",
                [200, 200, 404, 500, 200]
            ),
            ("{'500': {description: a}, '401': {description: b}}", [401, 401, 500, 404]),
            ("{'302': {description: a}, '101': {description: b}}", [302, 302, 404]),
        ]
        for (responses, statuses) in cases {
            let document = try openAPI("openapi: 3.1.0\npaths: {/x: {get: {responses: \(responses)}}}\n")
            let all = try stubs(OpenAPIImporter.plan(document), "get-x.json")
            XCTAssertEqual(all.map { DecodingTestValue.int($0["response"]?["status"]) }, statuses, responses)
        }
        // OpenAPI 3.1 lets an operation document no responses: it still answers.
        let bare = try stubs(
            OpenAPIImporter.plan(try openAPI("openapi: 3.1.0\npaths: {/x: {delete: {}}}\n")),
            "delete-x.json"
        )
        XCTAssertEqual(text(bare[0]["response"]), #"{"status":200}"#)
    }

    func testBodiesAreWrittenInTheFormTheirMediaTypeNeeds() throws {
        let document = try openAPI(
            """
            openapi: 3.1.0
            paths:
              /text: {get: {responses: {'200': {description: t, content: {text/plain: {example: hello}}}}}}
              /html: {get: {responses: {'200': {description: t, content: {text/html: {schema: {type: string, example: \
            '<p>hi</p>'}}}}}}}
              /quoted: {get: {responses: {'200': {description: t, content: {application/json: {example: just a \
            string}}}}}}
              /xml: {get: {responses: {'200': {description: t, content: {application/xml: {example: {a: 1}}}}}}}
              /any: {get: {responses: {'200': {description: t, content: {'*/*': {schema: {type: object, properties: \
            {a: {type: integer}}}}}}}}}
              /empty: {get: {responses: {'204': {description: t, content: {application/json: {example: {a: 1}}}}}}}
              /nojson: {get: {responses: {'200': {description: t, content: {application/json: {}}}}}}
              /count: {get: {responses: {'200': {description: t, content: {text/plain: {schema: {type: integer, \
            minimum: 3}}}}}}}
            """
        )
        let outcome = OpenAPIImporter.plan(document)
        let response = { (file: String) in self.text(try self.stubs(outcome, file)[0]["response"]) }
        XCTAssertEqual(
            try response("get-text.json"),
            #"{"status":200,"headers":{"Content-Type":"text/plain"},"body":"hello"}"#
        )
        XCTAssertEqual(
            try response("get-html.json"),
            #"{"status":200,"headers":{"Content-Type":"text/html"},"body":"<p>hi</p>"}"#
        )
        XCTAssertEqual(
            try response("get-quoted.json"),
            #"{"status":200,"headers":{"Content-Type":"application/json"},"body":"\"just a string\""}"#
        )
        XCTAssertEqual(try response("get-xml.json"), #"{"status":200,"headers":{"Content-Type":"application/xml"}}"#)
        XCTAssertEqual(try response("get-any.json"), #"{"status":200,"body":{"a":0}}"#)
        XCTAssertEqual(try response("get-empty.json"), #"{"status":204}"#)
        XCTAssertEqual(try response("get-nojson.json"), #"{"status":200,"body":{}}"#)
        XCTAssertEqual(
            try response("get-count.json"),
            #"{"status":200,"headers":{"Content-Type":"text/plain"},"body":"3"}"#
        )
        XCTAssertEqual(outcome.plan.problems.filter { $0.message.contains("structured data") }.count, 1)
    }

    func testPathsThatCannotBeStubbedAreSkippedWithTheirReason() throws {
        let document = try openAPI(
            """
            openapi: 3.1.0
            paths:
              /__admin/x: {get: {}}
              nopath: {get: {}}
              /search?q={q}: {get: {}}
              /files/{name}.json: {get: {}}
              /pets/{id}: {get: {}}
              /pets/id: {get: {}}
              x-extension: {}
            webhooks:
              ping: {post: {}}
            """
        )
        let outcome = OpenAPIImporter.plan(document)
        XCTAssertEqual(
            outcome.plan.files.map(\.relativePath),
            ["get-files-name-json.json", "get-pets-id.json", "get-pets-id-2.json"]
        )
        XCTAssertEqual(
            try stubs(outcome, "get-files-name-json.json")[0]["request"]?["pathPattern"]?.string,
            #"/files/[^/]+\.json"#
        )
        XCTAssertEqual(outcome.skipped.map(\.count), [1, 1, 1])
        XCTAssertEqual(
            outcome.summary,
            """
            3 stubs for 3 operations in 3 files; 3 operations skipped (1: path is under /__admin/, which \
            belongs to stubserver's admin API; 1: path does not start with /; 1: path has a query or fragment; \
            OpenAPI describes those as parameters); 1 webhook not stubbed (the API sends those requests)
            """
        )
    }

    func testTheSameDocumentAlwaysGivesTheSameBytes() throws {
        let first = OpenAPIImporter.plan(try openAPI(Self.petstore)).plan.files
        let second = OpenAPIImporter.plan(try openAPI(Self.petstore)).plan.files
        XCTAssertEqual(first, second)
    }
}

/// Reading numbers back in assertions.
enum DecodingTestValue {
    static func int(_ node: JSONNode?) -> Int { node?.number.map { Int($0.value) } ?? -1 }
}
