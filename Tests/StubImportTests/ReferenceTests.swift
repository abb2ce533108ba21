import Foundation
import JSON
import JSONSchema
@testable import StubImport
import StubEngine
import XCTest

/// `$ref` resolution: pointers, anchors, relative files; remote and missing references reported
/// with the place that names them; chains that loop cut.
final class ReferenceTests: XCTestCase {
    private func reference(_ ref: String, in documents: DocumentSet, from location: NodeLocation? = nil) -> LocatedNode?
    {
        let node = JSONNode.object([("$ref", .string(ref))])
        return documents.resolveReference(of: LocatedNode(node, location ?? documents.root.location))
    }

    func testPointersWithEscapesAndAnchors() {
        let documents = DocumentSet(
            root: json(#"{"paths": {"/pets": {"get": {"x": 1}}}, "a~b": [10, {"$anchor": "here", "v": 2}]}"#),
            displayName: "spec.json",
            path: nil
        )
        XCTAssertEqual(reference("#/paths/~1pets/get/x", in: documents)?.node.number?.text, "1")
        XCTAssertEqual(reference("#/paths/~1pets/get", in: documents)?.location.description, "#/paths/~1pets/get")
        XCTAssertEqual(reference("#/a~0b/0", in: documents)?.node.number?.text, "10")
        XCTAssertEqual(reference("#here", in: documents)?["v"]?.node.number?.text, "2")
        XCTAssertEqual(
            reference("#/paths/%7E1pets/get/x", in: documents)?.node.number?.text,
            "1",
            "percent-encoded fragments decode"
        )
        XCTAssertEqual(documents.problems, [])
    }

    /// One JSON pointer for references as for stub conditions (RFC 6901): an array index has no
    /// leading zeros and no sign, and a `~` not followed by 0 or 1 is no pointer; each is said.
    func testReferencePointersFollowRFC6901LikeEveryOtherPointer() {
        let documents = DocumentSet(
            root: json(#"{"items": [10, 11], "odd": {"01": "key"}}"#),
            displayName: "spec.json",
            path: nil
        )
        XCTAssertEqual(reference("#/items/1", in: documents)?.node.number?.text, "11")
        XCTAssertEqual(reference("#/odd/01", in: documents)?.node.string, "key", "in an object 01 is a name")
        XCTAssertEqual(documents.problems, [])
        XCTAssertNil(reference("#/items/01", in: documents))
        XCTAssertNil(reference("#/items/+1", in: documents))
        XCTAssertNil(reference("#/items/-", in: documents))
        XCTAssertNil(reference("#/items/~2", in: documents))
        XCTAssertEqual(
            documents.problems.map(\.message),
            [
                ##"$ref "#/items/01" leads nowhere: #/items is an array, with no "01" in it"##
                    + " (an array index has no leading zeros)",
                ##"$ref "#/items/+1" leads nowhere: #/items is an array, with no "+1" in it"##,
                ##"$ref "#/items/-" leads nowhere: #/items is an array, with no "-" in it"##,
                ##"$ref "#/items/~2": "~" in a JSON pointer is written "~0", and "/" inside a name "~1""##,
            ]
        )
    }

    func testAMissingTargetSaysWhereAndSuggests() {
        let documents = DocumentSet(
            root: json(#"{"components": {"schemas": {"Pet": {}}}}"#),
            displayName: "spec.json",
            path: nil
        )
        XCTAssertNil(reference("#/components/schemas/Pett", in: documents))
        XCTAssertEqual(
            documents.problems.map(\.message),
            [
                ##"$ref "#/components/schemas/Pett" leads nowhere: #/components/schemas has no "Pett"; "##
                    + #"did you mean "Pet"?"#
            ]
        )
    }

    func testRemoteReferencesAreRefusedWithTheirPosition() throws {
        let document = try openAPI(
            """
            openapi: 3.0.3
            info: {title: t, version: '1'}
            paths:
              /pets:
                get:
                  responses:
                    '200':
                      $ref: 'https://example.com/common.yaml#/responses/Ok'
            """
        )
        let outcome = OpenAPIImporter.plan(document)
        XCTAssertEqual(
            outcome.plan.errors.map(\.description),
            [
                #"""
                spec.yaml:8:17: error: $ref "https://example.com/common.yaml#/responses/Ok" is remote: stubserver \#
                reads local files only and never fetches while importing; download it next to the document and \#
                refer to the copy by a relative path
                """#
            ]
        )
        // The operation is still stubbed, with what could be read.
        XCTAssertEqual(outcome.importedOperations, 1)
    }

    func testRelativeFilesResolveAgainstTheFileThatRefersToThem() throws {
        let folder = temporaryFolder([
            "api/spec.yaml": """
            openapi: 3.1.0
            info: {title: t, version: '1'}
            paths:
              /pets:
                get:
                  responses:
                    '200': {$ref: 'shared/responses.yaml#/Ok'}
            """,
            "api/shared/responses.yaml": """
            Ok:
              description: ok
              content:
                application/json:
                  schema: {$ref: '../schemas/pet.json'}
            """,
            "api/schemas/pet.json":
                #"""
            {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "example": \#
            "Rex"}}}
            """#,
        ])
        let path = folder.appendingPathComponent("api/spec.yaml").path
        let document = try OpenAPIDocument.open(path: path).get()
        let outcome = OpenAPIImporter.plan(document)
        XCTAssertEqual(outcome.plan.problems, [])
        let stub = try JSONParser.parse(outcome.plan.files[0].bytes).elements?.first
        XCTAssertEqual(JSONSerializer.string(stub?["response"]?["body"] ?? .null), #"{"name":"Rex"}"#)
        XCTAssertEqual(
            document.documents.documents.map(\.locationName),
            ["", "shared/responses.yaml", "schemas/pet.json"]
        )
    }

    func testAMissingFileIsReportedWhereItIsNamed() throws {
        let folder = temporaryFolder([
            "spec.yaml":
                "openapi: 3.1.0\npaths:\n  /a:\n    get:\n      responses:\n        '200': {$ref: 'gone.yaml#/Ok'}\n"
        ])
        let document = try OpenAPIDocument.open(path: folder.appendingPathComponent("spec.yaml").path).get()
        _ = OpenAPIImporter.plan(document)
        XCTAssertEqual(document.documents.problems.count, 1)
        XCTAssertTrue(
            document.documents.problems[0].description.contains("spec.yaml:6:23: error: $ref \"gone.yaml#/Ok\": "),
            document.documents.problems[0].description
        )
        XCTAssertTrue(
            document.documents.problems[0].message.contains("does not exist"),
            document.documents.problems[0].message
        )
    }

    func testACircularChainIsCutNotFatal() throws {
        let document = try openAPI(
            """
            openapi: 3.0.3
            paths:
              /a:
                get:
                  responses:
                    '200': {$ref: '#/components/responses/A'}
                    '404': {description: missing}
            components:
              responses:
                A: {$ref: '#/components/responses/B'}
                B: {$ref: '#/components/responses/A'}
            """
        )
        let outcome = OpenAPIImporter.plan(document)
        XCTAssertEqual(outcome.importedOperations, 1)
        XCTAssertEqual(outcome.plan.problems.map(\.severity), [.warning])
        XCTAssertTrue(
            outcome.plan.problems[0].message.contains("comes back to itself"),
            outcome.plan.problems[0].message
        )
    }

    func testSwaggerAndUnknownVersionsAreRefusedWithWhatToDo() {
        for (text, fragment) in [
            ("swagger: '2.0'\n", "Swagger 2.0"), ("openapi: 4.0.0\n", "not one stubserver reads"),
            ("info: {}\n", "no \"openapi\" version"), ("- a\n", "expected an OpenAPI document"),
        ] {
            switch OpenAPIDocument.parse(Array(text.utf8), name: "x.yaml") {
            case .success: XCTFail("accepted \(text)")
            case .failure(let problem): XCTAssertTrue(problem.message.contains(fragment), problem.message)
            }
        }
    }
}
