import Foundation
import JSON
@testable import JSONSchema
import XCTest

/// What a finding says and where it points; the OpenAPI 3.0 dialect; formats; cycles.
final class SchemaValidatorTests: XCTestCase {
    private func validator(
        _ schema: String,
        _ dialect: SchemaDialect = .jsonSchema2020
    ) -> (SchemaValidator, LocatedNode) {
        let documents = DocumentSet(root: json(schema), displayName: "spec.json", path: nil)
        return (SchemaValidator(documents: documents, dialect: dialect), documents.root)
    }

    private func failures(
        _ schema: String,
        _ instance: String,
        _ dialect: SchemaDialect = .jsonSchema2020
    ) -> [SchemaFailure] {
        let (validator, root) = validator(schema, dialect)
        return validator.validate(json(instance), against: root)
    }

    private func valid(_ schema: String, _ instance: String, _ dialect: SchemaDialect = .jsonSchema2020) -> Bool {
        failures(schema, instance, dialect).isEmpty
    }

    func testAWrongTypeNamesTheValueItsPositionAndTheKeyword() {
        let found = failures(#"{"properties": {"id": {"type": "integer"}}}"#, "{\n  \"id\": \"42\"\n}")
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.instancePath, "$.id")
        XCTAssertEqual(found.first?.position, SourcePosition(line: 2, column: 9))
        XCTAssertEqual(found.first?.schemaLocation.description, "#/properties/id/type")
        XCTAssertEqual(found.first?.message, #"expected an integer, found the string "42""#)
    }

    func testMissingRequiredPropertyPointsAtTheObject() {
        let found = failures(
            #"{"type": "object", "required": ["id", "name"]}"#,
            #"{"items": [{"id": 1}]}"#.replacingOccurrences(of: #"{"items": [{"id": 1}]}"#, with: #"{"id": 1}"#)
        )
        XCTAssertEqual(found.map(\.message), [#"missing required property "name""#])
        XCTAssertEqual(found.first?.instancePath, "$")
        XCTAssertEqual(found.first?.schemaLocation.description, "#/required")
        XCTAssertEqual(found.first?.position, SourcePosition(line: 1, column: 1))
    }

    func testAdditionalPropertiesFalsePointsAtTheKeyAndListsTheAllowedOnes() {
        let found = failures(
            #"{"properties": {"a": {}, "b": {}}, "additionalProperties": false}"#,
            #"{"a": 1, "zz": 2}"#
        )
        XCTAssertEqual(found.first?.instancePath, "$.zz")
        XCTAssertEqual(found.first?.position, SourcePosition(line: 1, column: 10))
        XCTAssertEqual(
            found.first?.message,
            #"property "zz" is not allowed here (additionalProperties is false; the schema allows a, b)"#
        )
    }

    func testNestedPathsUseTheLoadersNotation() {
        let schema =
            #"{"properties": {"items": {"type": "array", "items": {"properties": {"odd key": {"maximum": 3}}}}}}"#
        let found = failures(schema, #"{"items": [{"odd key": 1}, {"odd key": 7}]}"#)
        XCTAssertEqual(found.map(\.instancePath), [#"$.items[1]["odd key"]"#])
        XCTAssertEqual(found.first?.message, "expected at most 3, found 7")
        XCTAssertEqual(found.first?.schemaLocation.description, "#/properties/items/items/properties/odd key/maximum")
    }

    func testReferencesReportTheLocationOfTheKeywordThatFailed() {
        let schema = ##"{"$ref": "#/$defs/Pet", "$defs": {"Pet": {"properties": {"name": {"type": "string"}}}}}"##
        let found = failures(schema, #"{"name": 5}"#)
        XCTAssertEqual(found.first?.schemaLocation.description, "#/$defs/Pet/properties/name/type")
    }

    func testOneOfAndAnyOfSayWhichChoiceCameClosest() {
        let schema = #"{"oneOf": [{"type": "string"}, {"type": "object", "required": ["id"]}]}"#
        let found = failures(schema, #"{"name": "x"}"#)
        XCTAssertEqual(
            found.first?.message,
            #"matches none of oneOf's 2 schemas (closest, #/oneOf/1: missing required property "id")"#
        )
        XCTAssertEqual(
            failures(#"{"oneOf": [{"type": "integer"}, {"minimum": 0}]}"#, "3").first?.message,
            "matches 2 of oneOf's 2 schemas (#/oneOf/0, #/oneOf/1); exactly one must match"
        )
    }

    func testOpenAPI30Dialect() {
        // nullable adds null; in 2020-12 it is an unknown keyword.
        XCTAssertTrue(valid(#"{"type": "string", "nullable": true}"#, "null", .openAPI30))
        XCTAssertFalse(valid(#"{"type": "string", "nullable": true}"#, "null", .jsonSchema2020))
        XCTAssertTrue(valid(#"{"type": "string", "nullable": true, "enum": ["a"]}"#, "null", .openAPI30))
        // Boolean exclusiveMaximum (draft 4) against the numeric form (2020-12).
        XCTAssertFalse(valid(#"{"maximum": 10, "exclusiveMaximum": true}"#, "10", .openAPI30))
        XCTAssertTrue(valid(#"{"maximum": 10, "exclusiveMaximum": false}"#, "10", .openAPI30))
        XCTAssertFalse(valid(#"{"exclusiveMaximum": 10}"#, "10", .jsonSchema2020))
        // A $ref replaces its siblings in 3.0 and sits beside them in 3.1.
        let schema =
            ##"{"$defs": {"S": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/S", "maxLength": 1}}}"##
        XCTAssertTrue(valid(schema, #"{"a": "long"}"#, .openAPI30))
        XCTAssertFalse(valid(schema, #"{"a": "long"}"#, .jsonSchema2020))
        // 3.1: type arrays, const, prefixItems.
        XCTAssertTrue(valid(#"{"type": ["string", "null"]}"#, "null"))
        XCTAssertFalse(valid(#"{"const": "x"}"#, #""y""#))
        XCTAssertEqual(
            failures(#"{"prefixItems": [{"type": "integer"}], "items": false}"#, "[1, 2]").first?.message,
            "item 1 is not allowed here: the schema allows 1 item"
        )
    }

    func testFormatsAreCheckedLoosely() {
        let cases: [(String, String, Bool)] = [
            ("date-time", "2024-01-31T09:30:00Z", true), ("date-time", "2024-01-31T09:30:00.123+01:00", true),
            ("date-time", "2024-01-31 09:30", false), ("date-time", "yesterday", false),
            ("date", "2024-02-29", true), ("date", "2024-13-01", false),
            ("uuid", "3fa85f64-5717-4562-b3fc-2c963f66afa6", true), ("uuid", "3fa85f64", false),
            ("email", "a@b.c", true), ("email", "a.b.c", false),
            ("uri", "https://example.com/x?y", true), ("uri", "/relative", false),
            ("ipv4", "192.0.2.1", true), ("ipv4", "256.0.0.1", false),
            ("ipv6", "2001:db8::1", true), ("ipv6", "::ffff:192.0.2.1", true), ("ipv6", "1:2", false),
            ("hostname", "api.example.com", true), ("hostname", "-bad-.com", false),
            ("made-up-format", "anything", true),
        ]
        for (format, value, expected) in cases {
            XCTAssertEqual(
                valid(#"{"format": "\#(format)"}"#, JSONSerializer.quoted(value)),
                expected,
                "\(format): \(value)"
            )
        }
        XCTAssertEqual(
            failures(#"{"format": "uuid"}"#, #""nope""#).first?.message,
            #""nope" is not a UUID (8-4-4-4-12 hexadecimal digits)"#
        )
        XCTAssertFalse(valid(#"{"type": "integer", "format": "int32"}"#, "4294967296"))
        XCTAssertTrue(valid(#"{"type": "integer", "format": "int64"}"#, "4294967296"))
        let (loose, root) = validator(#"{"format": "uuid"}"#)
        loose.checksFormats = false
        XCTAssertTrue(loose.isValid(json(#""nope""#), against: root))
    }

    func testTemplateStringsAreAcceptedWhenAsked() {
        let (validator, root) = validator(#"{"properties": {"n": {"type": "integer"}}}"#)
        XCTAssertFalse(validator.isValid(json(#"{"n": "{{request.json./n}}"}"#), against: root))
        validator.acceptsTemplateStrings = true
        XCTAssertTrue(validator.isValid(json(#"{"n": "{{request.json./n}}"}"#), against: root))
        XCTAssertFalse(validator.isValid(json(#"{"n": "plain"}"#), against: root))
    }

    func testSchemasThatApplyThemselvesAreCut() {
        XCTAssertTrue(valid(##"{"$ref": "#"}"##, "1"))
        XCTAssertTrue(valid(##"{"allOf": [{"$ref": "#"}], "type": "integer"}"##, "1"))
        XCTAssertFalse(valid(##"{"allOf": [{"$ref": "#"}], "type": "integer"}"##, ##""x""##))
        // A recursive structure is checked all the way down.
        let tree =
            ##"""
            {"type": "object",
             "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "n": {"type": "integer"}}}
            """##
        XCTAssertEqual(
            failures(tree, #"{"children": [{"children": [{"n": "deep"}]}]}"#).map(\.instancePath),
            ["$.children[0].children[0].n"]
        )
    }

    func testAReferenceThatDoesNotResolveIsReportedOnceAndAcceptsAnything() {
        let documents = DocumentSet(
            root: json(##"{"properties": {"a": {"$ref": "https://example.com/s.json"}, "b": {"$ref": "#/nowhere"}}}"##),
            displayName: "spec.json",
            path: nil
        )
        let validator = SchemaValidator(documents: documents, dialect: .jsonSchema2020)
        XCTAssertTrue(validator.isValid(json(#"{"a": 1, "b": 2}"#), against: documents.root))
        XCTAssertTrue(validator.isValid(json(#"{"a": 3, "b": 4}"#), against: documents.root))
        XCTAssertEqual(documents.problems.count, 2)
        XCTAssertTrue(
            documents.problems[0].description.hasPrefix(
                "spec.json:1:31: error: $ref \"https://example.com/s.json\" is remote"
            ),
            documents.problems[0].description
        )
        XCTAssertTrue(documents.problems[1].message.contains("leads nowhere"), documents.problems[1].message)
    }

    func testUniqueItemsComparesNumbersByValueAndObjectsWhateverTheirOrder() {
        XCTAssertFalse(valid(#"{"uniqueItems": true}"#, "[1, 1.0]"))
        XCTAssertFalse(valid(#"{"uniqueItems": true}"#, #"[{"a": 1, "b": 2}, {"b": 2, "a": 1}]"#))
        XCTAssertTrue(valid(#"{"uniqueItems": true}"#, #"[1, "1", true]"#))
    }

    func testMultipleOfToleratesBinaryFractions() {
        XCTAssertTrue(valid(#"{"multipleOf": 0.1}"#, "0.3"))
        XCTAssertTrue(valid(#"{"multipleOf": 0.01}"#, "19.99"))
        XCTAssertFalse(valid(#"{"multipleOf": 0.1}"#, "0.35"))
    }
}
