import Foundation
import NativeStubs
@testable import StubImport
import StubEngine
import XCTest

/// `validate --openapi`: planted mistakes are found, each with its file, line, column, JSON path
/// and schema location; what agrees with the document passes.
final class StubCheckerTests: XCTestCase {
    static let spec = """
        openapi: 3.1.0
        info: {title: Users, version: '1'}
        servers: [{url: 'https://api.example.com/v1'}]
        paths:
          /users/{userId}:
            get:
              responses:
                '200':
                  description: a user
                  headers:
                    X-Request-Id: {required: true, schema: {type: string}}
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/User'}
                4XX:
                  description: client error
                  content:
                    application/json:
                      schema: {$ref: '#/components/schemas/Error'}
            delete:
              responses:
                '204': {description: gone}
          /files/{name}.json:
            get:
              responses:
                '200': {description: a file, content: {text/plain: {schema: {type: string, maxLength: 5}}}}
        components:
          schemas:
            User:
              type: object
              required: [id, name]
              properties:
                id: {type: integer}
                name: {type: string}
                email: {type: [string, 'null'], format: email}
            Error:
              type: object
              required: [code]
              properties: {code: {type: string}}
        """

    /// The findings for stub files (names under `stubs/`), with the test folder's path left out.
    private func check(_ files: [String: String]) throws -> [String] {
        var all = ["spec.yaml": Self.spec]
        for (name, text) in files { all["stubs/" + name] = text }
        let folder = temporaryFolder(all)
        let loaded = StubLoader(directory: folder.appendingPathComponent("stubs").path).load()
        XCTAssertEqual(loaded.errors, [])
        let document = try OpenAPIDocument.open(path: folder.appendingPathComponent("spec.yaml").path).get()
        let findings = StubChecker(document: document).check(loaded.stubs)
        XCTAssertEqual(document.documents.problems, [])
        return findings.map { $0.description.replacingOccurrences(of: folder.path + "/", with: "") }
    }

    func testPlantedMistakesAreFoundWithPositions() throws {
        let stubs = """
            [
              {"request": {"method": "GET", "path": "/v1/users/42"},
               "response": {"headers": {"X-Request-Id": "r1"}, "body": {"id": "42", "name": "Ann"}}},
              {"request": {"method": "GET", "path": "/v1/users/{id}"},
               "response": {"headers": {"X-Request-Id": "r2"}, "body": {"id": 7}}},
              {"request": {"method": "GET", "path": "/v1/users/{id}"},
               "response": {"status": 302, "headers": {"Location": "/x"}}},
              {"request": {"method": "GET", "path": "/v1/userz/{id}"},
               "response": {"body": {}}}
            ]
            """
        let findings = try check(["users.json": stubs])
        XCTAssertEqual(
            findings,
            [
                #"""
                stubs/users.json:3:67: error: $[0].response.body.id: expected an integer, found the string "42" \#
                (schema: #/components/schemas/User/properties/id/type)
                """#,
                #"""
                stubs/users.json:5:60: error: $[1].response.body: missing required property "name" (schema: \#
                #/components/schemas/User/required)
                """#,
                #"""
                stubs/users.json:7:27: error: $[2].response.status: status 302 is not documented for GET \#
                /users/{userId} (documented: 200, 4XX)
                """#,
                #"""
                stubs/users.json:8:41: error: $[3].request.path: no path of spec.yaml matches /v1/userz/{id}; did \#
                you mean /v1/users/{userId}?
                """#,
            ]
        )
    }

    func testBodyFilesAndSequenceStepsAreCheckedWhereTheyAre() throws {
        let findings = try check([
            "seq.json": """
            {"request": {"method": "GET", "path": "/v1/users/{id}"},
             "responses": [
               {"headers": {"X-Request-Id": "a"}, "bodyFile": "__files/user.json"},
               {"status": 404, "body": {"code": 404}}
             ]}
            """,
            "__files/user.json": "{\n  \"id\": 1,\n  \"name\": false\n}\n",
        ])
        XCTAssertEqual(
            findings,
            [
                #"""
                stubs/__files/user.json:3:11: error: $.name: expected a string, found false (schema: \#
                #/components/schemas/User/properties/name/type)
                """#,
                #"""
                stubs/seq.json:4:37: error: $.responses[1].body.code: expected a string, found the number 404 \#
                (schema: #/components/schemas/Error/properties/code/type)
                """#,
            ]
        )
    }

    func testMethodsHeadersMediaTypesAndText() throws {
        let findings = try check([
            "misc.json": """
            [
              {"request": {"method": ["GET", "HEAD"], "path": "/v1/users/1"}, "response": {"body": {"id": 1, "name": \
            "a"}}},
              {"request": {"method": "POST", "path": "/v1/users/1"}, "response": {"status": 204}},
              {"request": {"method": "GET", "path": "/v1/users/2"},
               "response": {"headers": {"X-Request-Id": "r", "Content-Type": "text/plain"}, "body": "hi"}},
              {"request": {"pathPattern": "/files/[a-z]+[.]json"}, "response": {"headers": {"Content-Type": \
            "text/plain"}, "body": "too long"}}
            ]
            """
        ])
        XCTAssertEqual(
            findings,
            [
                #"""
                stubs/misc.json:2:79: error: $[0].response: missing the header X-Request-Id, which GET \#
                /users/{userId} requires in its 200 response (schema: \#
                #/paths/~1users~1{userId}/get/responses/200/headers/X-Request-Id)
                """#,
                #"""
                stubs/misc.json:3:26: error: $[1].request.method: POST is not documented for /users/{userId} \#
                (documented: GET, DELETE)
                """#,
                #"""
                stubs/misc.json:5:89: error: $[2].response.body: Content-Type text/plain is not documented for \#
                200 of GET /users/{userId} (documented: application/json)
                """#,
                #"""
                stubs/misc.json:6:15: warning: $[3].request: no method: the stub answers every method; checked \#
                against GET /files/{name}.json
                """#,
                #"""
                stubs/misc.json:6:120: error: $[3].response.body: expected at most 5 characters, found 8 (schema: \#
                #/paths/~1files~1{name}.json/get/responses/200/content/text~1plain/schema/maxLength)
                """#,
            ]
        )
    }

    func testWhatAgreesPassesIncludingTemplatesFaultsAndBrokenBodies() throws {
        let findings = try check([
            "good.json": """
            [
              {"request": {"method": "GET", "path": "/v1/users/{id}"},
               "response": {"template": true, "headers": {"X-Request-Id": "{{uuid}}"},
                            "body": {"id": "{{request.path.id}}", "name": "n", "email": null}}},
              {"request": {"method": "GET", "path": "/v1/users/{id}", "headers": {"X": "fault"}}, "response": \
            {"fault": "reset"}},
              {"request": {"method": "DELETE", "path": "/v1/users/{id}"}, "response": {"status": 204}},
              {"request": {"method": "GET", "path": "/v1/users/{id}", "headers": {"X": "cut"}},
               "response": {"status": 400, "headers": {"Content-Type": "application/json"}, "body": "{\\"code\\": \
            \\"E"}}
            ]
            """
        ])
        XCTAssertEqual(
            findings,
            [
                #"""
                stubs/good.json:8:89: warning: $[3].response.body: the body is not valid JSON (1:12: unexpected \#
                end of file inside the string that starts at 1:10), so it was not checked against the schema
                """#
            ]
        )
    }
}
