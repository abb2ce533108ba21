import Foundation
import JSON
@testable import JSONSchema
import XCTest

/// The compiled validator's edge cases: references compiled once and cut where they cycle,
/// combinators, the OpenAPI 3.0 dialect, and findings that still carry the value's path and the
/// keyword's location although a valid value builds neither.
final class CompiledSchemaTests: XCTestCase {
    private func validator(
        _ schema: String,
        _ dialect: SchemaDialect = .jsonSchema2020
    ) -> (SchemaValidator, CompiledSchemaID) {
        let documents = DocumentSet(root: json(schema), displayName: "spec.json", path: nil)
        let validator = SchemaValidator(documents: documents, dialect: dialect)
        return (validator, validator.compile(documents.root))
    }

    private func failures(
        _ schema: String,
        _ instance: String,
        _ dialect: SchemaDialect = .jsonSchema2020
    ) -> [SchemaFailure] {
        let (validator, compiled) = validator(schema, dialect)
        return validator.validate(json(instance), against: compiled)
    }

    private func described(_ found: [SchemaFailure]) -> [String] {
        found.map { "\($0.instancePath) \($0.schemaLocation) \($0.message)" }
    }

    func testASchemaIsCompiledOnceWhereverItIsReached() {
        let (validator, first) = validator(
            ##"""
            {"$defs": {"id": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/id"},
            "b": {"$ref": "#/$defs/id"}}}
            """##
        )
        let count = validator.compiled.count
        XCTAssertEqual(validator.compile(validator.documents.root), first)
        XCTAssertEqual(validator.compiled.count, count, "compiling again adds nothing")
        // The root, a, b and the one $defs/id they both name.
        XCTAssertEqual(count, 4)
    }

    func testReferenceCyclesAreCutAndRecursiveValuesCheckedAllTheWayDown() {
        let cycle = ##"{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}"##
        XCTAssertEqual(failures(cycle, "1"), [])
        XCTAssertEqual(
            described(failures(##"{"anyOf": [{"$ref": "#"}, {"type": "string"}], "minimum": 3}"##, "1")),
            ["$ #/minimum expected at least 3, found 1"]
        )
        let list = ##"{"type": "object", "properties": {"next": {"$ref": "#"}, "v": {"type": "integer"}}}"##
        XCTAssertEqual(
            described(failures(list, #"{"v": 1, "next": {"v": 2, "next": {"v": "three"}}}"#)),
            [#"$.next.next.v #/properties/v/type expected an integer, found the string "three""#]
        )
    }

    func testAllOfAnyOfOneOfAndNot() {
        let all = #"{"allOf": [{"required": ["a"]}, {"required": ["b"]}]}"#
        XCTAssertEqual(
            described(failures(all, "{}")),
            [
                #"$ #/allOf/0/required missing required property "a""#,
                #"$ #/allOf/1/required missing required property "b""#,
            ]
        )
        let any = #"{"anyOf": [{"type": "string"}, {"type": "object", "required": ["id"]}]}"#
        XCTAssertEqual(failures(any, #""x""#), [])
        XCTAssertEqual(
            described(failures(any, "{}")),
            [#"$ #/anyOf matches none of anyOf's 2 schemas (closest, #/anyOf/1: missing required property "id")"#]
        )
        let one = #"{"oneOf": [{"type": "integer"}, {"minimum": 0}]}"#
        XCTAssertEqual(failures(one, "-1"), [])
        XCTAssertEqual(
            described(failures(one, "1")),
            ["$ #/oneOf matches 2 of oneOf's 2 schemas (#/oneOf/0, #/oneOf/1); exactly one must match"]
        )
        XCTAssertEqual(
            described(failures(#"{"not": {"type": "null"}}"#, "null")),
            [#"$ #/not matches the schema under "not", which it must not"#]
        )
    }

    func testNullableAndReferencesInTheOpenAPI30Dialect() {
        let schema =
            ##"""
            {"type": "object", "properties": {"n": {"type": "integer", "nullable": true}, "r": {"$ref": "#/x",
            "type": "string"}}, "x": {"type": "integer"}}
            """##
        XCTAssertEqual(failures(schema, #"{"n": null, "r": 1}"#, .openAPI30), [])
        // In 3.0 a $ref's siblings are ignored; in 2020-12 they apply, and nullable is no keyword.
        XCTAssertEqual(
            described(failures(schema, #"{"n": null, "r": 1}"#)),
            [
                "$.n #/properties/n/type expected an integer, found null",
                "$.r #/properties/r/type expected a string, found the number 1",
            ]
        )
        XCTAssertEqual(
            described(failures(schema, #"{"n": "x"}"#, .openAPI30)),
            [#"$.n #/properties/n/type expected an integer or null, found the string "x""#]
        )
    }

    func testFormatsAndPatterns() {
        let schema =
            #"""
            {"properties": {"at": {"format": "date-time"}, "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "n": {"format": "int32"}}}
            """#
        XCTAssertEqual(failures(schema, #"{"at": "2024-01-31T09:30:00Z", "code": "EUR", "n": 7}"#), [])
        XCTAssertEqual(
            described(failures(schema, #"{"at": "yesterday", "code": "euro", "n": 3000000000}"#)),
            [
                #"$.at #/properties/at/format "yesterday" is not a date-time (RFC 3339, such as 2024-01-31T09:30:00Z)"#,
                #"$.code #/properties/code/pattern "euro" does not match the pattern ^[A-Z]{3}$"#,
                "$.n #/properties/n/format 3000000000 is not an int32 (a whole number from -2147483648 to 2147483647)",
            ]
        )
        // A pattern that does not compile is reported once, at load, and accepts anything.
        let (validator, compiled) = validator(#"{"pattern": "(?<=a)b"}"#)
        XCTAssertTrue(validator.isValid(json(#""zz""#), against: compiled))
        XCTAssertEqual(validator.documents.problems.count, 1)
    }

    func testAdditionalPropertiesPointsAtTheKeyAndListsTheAllowedOnes() {
        let found = failures(
            #"{"properties": {"a": {}, "b": {}}, "additionalProperties": false}"#,
            "{\"a\": 1,\n \"zz\": 2}"
        )
        XCTAssertEqual(
            described(found),
            [
                #"$.zz #/additionalProperties property "zz" is not allowed here "#
                    + "(additionalProperties is false; the schema allows a, b)"
            ]
        )
        XCTAssertEqual(found.first?.position, SourcePosition(line: 2, column: 2))
        XCTAssertEqual(
            described(failures(#"{"additionalProperties": {"type": "integer"}}"#, #"{"a": 1, "b": [true]}"#)),
            ["$.b #/additionalProperties/type expected an integer, found an array"]
        )
    }

    func testFailuresCarryThePathThroughArraysAndReferencedFiles() {
        let found = failures(
            ##"""
            {"$defs": {"item": {"type": "object", "required": ["sku"]}}, "type": "array",
            "items": {"$ref": "#/$defs/item"}, "maxItems": 2}
            """##,
            #"[{"sku": 1}, {}, {"sku": 2}]"#
        )
        XCTAssertEqual(
            described(found),
            [
                #"$[1] #/$defs/item/required missing required property "sku""#,
                "$ #/maxItems expected at most 2 items, found 3",
            ]
        )
    }

    func testReadOnlyIsNotRequiredInARequestNorWriteOnlyInAResponse() {
        let schema =
            ##"""
            {"required": ["id", "secret"], "properties": {"id": {"$ref": "#/$defs/id"},
            "secret": {"type": "string", "writeOnly": true}}, "$defs": {"id": {"type": "integer",
            "readOnly": true}}}
            """##
        let (validator, compiled) = validator(schema)
        XCTAssertEqual(validator.validate(json("{}"), against: compiled).count, 2)
        validator.direction = .request
        XCTAssertEqual(
            validator.validate(json("{}"), against: compiled).map(\.message),
            [#"missing required property "secret""#]
        )
        validator.direction = .response
        XCTAssertEqual(
            validator.validate(json("{}"), against: compiled).map(\.message),
            [#"missing required property "id""#]
        )
    }

    func testUnevaluatedPropertiesSeesWhatTheCombinatorsEvaluated() {
        let schema =
            #"""
            {"allOf": [{"properties": {"a": {}}}],
            "anyOf": [{"properties": {"b": {}}}, {"properties": {"c": {}}}], "unevaluatedProperties": false}
            """#
        XCTAssertEqual(failures(schema, #"{"a": 1, "b": 2, "c": 3}"#), [])
        XCTAssertEqual(
            described(failures(schema, #"{"a": 1, "d": 4}"#)),
            [#"$.d #/unevaluatedProperties property "d" is not allowed here (unevaluatedProperties is false)"#]
        )
    }
}
