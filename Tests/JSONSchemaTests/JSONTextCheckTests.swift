import Foundation
import JSON
@testable import JSONSchema
import XCTest

/// `acceptsText`, the check of a JSON text read as it comes: it may say true only where the
/// parser and the validator both would find nothing wrong, and it must say true for the plain
/// bodies it is there for (else every request pays for a parse).
final class JSONTextCheckTests: XCTestCase {
    private let orders =
        #"""
        {"type": "object", "required": ["item", "quantity"], "properties": {"item": {"type": "string",
        "minLength": 1, "maxLength": 64}, "quantity": {"type": "integer", "minimum": 1, "maximum": 1000},
        "note": {"type": "string", "maxLength": 200}, "express": {"type": "boolean"},
        "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]}}}
        """#

    /// Whether the text check accepts, after asserting it agrees with parsing and validating.
    private func accepts(
        _ schema: String,
        _ text: String,
        _ dialect: SchemaDialect = .jsonSchema2020,
        direction: SchemaValidator.Direction = .any,
        line: UInt = #line
    ) -> Bool {
        let documents = DocumentSet(root: json(schema), displayName: "spec.json", path: nil)
        let validator = SchemaValidator(documents: documents, dialect: dialect)
        validator.direction = direction
        let compiled = validator.compile(documents.root)
        let accepted = validator.acceptsText(Array(text.utf8), against: compiled, limits: .requestBody)
        if accepted {
            guard let parsed = try? JSONParser.parse(Array(text.utf8), limits: .requestBody) else {
                XCTFail("accepted text the parser refuses: \(text)", line: line)
                return accepted
            }
            XCTAssertEqual(validator.validate(parsed, against: compiled), [], "accepted an invalid value", line: line)
        }
        return accepted
    }

    func testAPlainValidBodyIsAcceptedWithoutParsing() {
        XCTAssertTrue(
            accepts(
                orders,
                #"{"item":"widget-7","quantity":3,"note":"leave at the door","express":true,"currency":"EUR"}"#
            )
        )
        XCTAssertTrue(accepts(orders, " {\n\t\"quantity\": 1000, \"item\": \"x\", \"extra\": [1, {\"a\": null}]\r\n} "))
    }

    func testEveryBrokenRuleIsLeftToTheValidator() {
        for text in [
            #"{"quantity": 3}"#,
            #"{"item": "", "quantity": 3}"#,
            #"{"item": "x", "quantity": 0}"#,
            #"{"item": "x", "quantity": 2.5}"#,
            #"{"item": "x", "quantity": "3"}"#,
            #"{"item": "x", "quantity": 3, "currency": "JPY"}"#,
            #"{"item": "x", "quantity": 3, "express": "yes"}"#,
            #"[]"#,
        ] {
            XCTAssertFalse(accepts(orders, text), text)
        }
    }

    func testTextThatIsNotJSONIsLeftToTheParser() {
        for text in [
            "", " ", "{", #"{"item": "x", "quantity": 3"#, #"{"item": "x", "quantity": 3,}"#, #"{"item": 'x'}"#,
            #"{"item": "x", "quantity": 03}"#, #"{"item": "x", "quantity": 3} x"#, #"{"item": "a\u0000"}"#,
            "{\"item\": \"tab\there\", \"quantity\": 3}", #"{"item": "x", "quantity": -}"#, "nul", "tru",
        ] {
            XCTAssertFalse(accepts(orders, text), text)
        }
    }

    func testWhatItDoesNotReadItselfIsLeftToTheValidator() {
        // Escapes and non-ASCII strings, combinators, uniqueItems: valid, but not decided here.
        XCTAssertFalse(accepts(orders, #"{"item": "caf\u00e9", "quantity": 3}"#))
        XCTAssertFalse(accepts(orders, #"{"item": "café", "quantity": 3}"#))
        XCTAssertFalse(accepts(#"{"anyOf": [{"type": "string"}, {"type": "integer"}]}"#, "1"))
        XCTAssertFalse(accepts(#"{"uniqueItems": true}"#, "[1, 2]"))
        XCTAssertFalse(accepts(#"{"enum": [1, 2]}"#, "1"))
    }

    func testNumbersAreReadAsTheParserReadsThem() {
        XCTAssertTrue(accepts(#"{"type": "integer"}"#, "1.0e2"))
        XCTAssertTrue(accepts(#"{"type": "integer", "maximum": 9007199254740993}"#, "-9007199254740993"))
        XCTAssertFalse(accepts(#"{"type": "integer"}"#, "1.5"))
        XCTAssertTrue(accepts(#"{"multipleOf": 0.1}"#, "0.3"))
        XCTAssertFalse(accepts(#"{"exclusiveMaximum": 10}"#, "10"))
        XCTAssertFalse(accepts(#"{"maximum": 10, "exclusiveMaximum": true}"#, "10", .openAPI30))
        XCTAssertTrue(accepts(#"{"format": "int32"}"#, "2147483647"))
        XCTAssertFalse(accepts(#"{"format": "int32"}"#, "2147483648"))
    }

    func testReferencesNullableAndReadOnly() {
        let schema =
            ##"""
            {"type": "object", "required": ["id", "tags"], "properties": {"id": {"$ref": "#/$defs/id"},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}, "maxItems": 2},
            "parent": {"type": "integer", "nullable": true}}, "$defs": {"id": {"type": "integer",
            "readOnly": true}, "tag": {"type": "string", "pattern": "^[a-z]+$"}}}
            """##
        XCTAssertTrue(accepts(schema, #"{"id": 1, "tags": ["a", "b"], "parent": null}"#, .openAPI30))
        XCTAssertFalse(accepts(schema, #"{"id": 1, "tags": ["a", "b"], "parent": null}"#))
        XCTAssertFalse(accepts(schema, #"{"id": 1, "tags": ["a", "B"]}"#, .openAPI30))
        XCTAssertFalse(accepts(schema, #"{"id": 1, "tags": ["a", "b", "c"]}"#, .openAPI30))
        XCTAssertFalse(accepts(schema, #"{"tags": []}"#, .openAPI30))
        XCTAssertTrue(accepts(schema, #"{"tags": []}"#, .openAPI30, direction: .request))
        // A reference that cycles without reaching a schema is left to the validator.
        XCTAssertFalse(accepts(##"{"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}"##, "1"))
    }

    func testAdditionalPropertiesAndTheLimits() {
        XCTAssertFalse(accepts(#"{"properties": {"a": {}}, "additionalProperties": false}"#, #"{"a": 1, "b": 2}"#))
        XCTAssertTrue(accepts(#"{"additionalProperties": {"type": "integer"}}"#, #"{"a": 1, "b": 2}"#))
        XCTAssertFalse(accepts(#"{"additionalProperties": {"type": "integer"}}"#, #"{"a": 1, "b": "2"}"#))
        let deep = String(repeating: "[", count: 129) + String(repeating: "]", count: 129)
        XCTAssertFalse(accepts("{}", deep))
        XCTAssertTrue(accepts("{}", String(repeating: "[", count: 128) + String(repeating: "]", count: 128)))
    }

    func testManyPropertiesAreFoundByTheirBytes() {
        // More properties than `JSONTextPlan.scannedAtMost`: found through the hashed table.
        let properties = (0..<40).map { #""field\#($0)": {"type": "integer", "maximum": 9}"# }
        let schema =
            #"{"type": "object", "required": ["field3", "field39", "extra"], "properties": {"#
            + properties.joined(separator: ", ") + #"}, "additionalProperties": {"type": "string"}}"#
        XCTAssertTrue(accepts(schema, #"{"field3": 1, "field39": 2, "extra": "x", "other": "y"}"#))
        XCTAssertTrue(accepts(schema, #"{"field0": 0, "extra": "x", "field39": 9, "field3": 1}"#))
        // `extra` is missing; `field39` too large; `extra`, only required, is checked by
        // `additionalProperties`, as is a name no property has.
        XCTAssertFalse(accepts(schema, #"{"field3": 1, "field39": 2}"#))
        XCTAssertFalse(accepts(schema, #"{"field3": 1, "field39": 20, "extra": "x"}"#))
        XCTAssertFalse(accepts(schema, #"{"field3": 1, "field39": 2, "extra": 5}"#))
        XCTAssertFalse(accepts(schema, #"{"field3": 1, "field39": 2, "extra": "x", "field40": 1}"#))
    }

    func testPatternsAndFormatsAreCheckedOnTheText() {
        let schema = #"""
            {"type": "object", "properties": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "day": {"type": "string", "format": "date"}, "count": {"type": "integer", "format": "int32"}}}
            """#
        XCTAssertTrue(accepts(schema, #"{"code": "EUR", "day": "2026-11-28", "count": 7}"#))
        XCTAssertFalse(accepts(schema, #"{"code": "eur"}"#))
        XCTAssertFalse(accepts(schema, #"{"day": "28.11.2026"}"#))
        XCTAssertFalse(accepts(schema, #"{"count": 4294967296}"#))
    }
}
