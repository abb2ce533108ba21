import Foundation
import JSON
@testable import JSONSchema
import XCTest

/// Bodies made from schemas: deterministic, valid against their schema, and finite.
final class SchemaSamplerTests: XCTestCase {
    private func sample(
        _ schema: String,
        _ dialect: SchemaDialect = .jsonSchema2020,
        file: StaticString = #filePath,
        line: UInt = #line
    ) -> String {
        let documents = DocumentSet(root: json(schema), displayName: "spec.json", path: nil)
        let sampler = SchemaSampler(documents: documents, dialect: dialect)
        let value = sampler.sample(documents.root)
        let failures = SchemaValidator(documents: documents, dialect: dialect).validate(value, against: documents.root)
        XCTAssertEqual(
            failures.map(\.message),
            [],
            "the sample \(JSONSerializer.string(value)) must validate",
            file: file,
            line: line
        )
        XCTAssertEqual(
            JSONSerializer.string(sampler.sample(documents.root)),
            JSONSerializer.string(value),
            "deterministic",
            file: file,
            line: line
        )
        return JSONSerializer.string(value)
    }

    func testOfferedValuesComeFirst() {
        XCTAssertEqual(sample(#"{"type": "string", "const": "fixed", "example": "ex"}"#), #""fixed""#)
        XCTAssertEqual(sample(#"{"type": "string", "example": "ex", "default": "def"}"#), #""ex""#)
        XCTAssertEqual(sample(#"{"type": "string", "examples": ["first", "second"]}"#), #""first""#)
        XCTAssertEqual(sample(#"{"type": "string", "default": "def", "enum": ["a", "def"]}"#), #""def""#)
        XCTAssertEqual(sample(#"{"enum": ["b", "a"]}"#), #""b""#)
        // An example that contradicts its schema is not used.
        XCTAssertEqual(sample(#"{"type": "integer", "example": "twelve"}"#), "0")
    }

    func testFormatsAndBounds() {
        XCTAssertEqual(sample(#"{"type": "string", "format": "date-time"}"#), #""2024-01-31T09:30:00Z""#)
        XCTAssertEqual(sample(#"{"type": "string", "format": "date"}"#), #""2024-01-31""#)
        XCTAssertEqual(sample(#"{"type": "string", "format": "uuid"}"#), #""3fa85f64-5717-4562-b3fc-2c963f66afa6""#)
        XCTAssertEqual(sample(#"{"type": "string", "format": "email"}"#), #""user@example.com""#)
        XCTAssertEqual(sample(#"{"type": "string", "format": "uri"}"#), #""https://example.com/""#)
        XCTAssertEqual(sample(#"{"type": "string", "minLength": 10}"#), #""stringstri""#)
        XCTAssertEqual(sample(#"{"type": "string", "maxLength": 3}"#), #""str""#)
        XCTAssertEqual(sample(#"{"type": "string", "pattern": "^[0-9]+$"}"#), #""0""#)
        XCTAssertEqual(sample(#"{"type": "integer", "format": "int32", "minimum": 5}"#), "5")
        XCTAssertEqual(sample(#"{"type": "integer", "exclusiveMinimum": 5}"#), "6")
        XCTAssertEqual(sample(#"{"type": "integer", "minimum": 1, "maximum": 3}"#), "1")
        XCTAssertEqual(sample(#"{"type": "integer", "maximum": -4}"#), "-4")
        XCTAssertEqual(sample(#"{"type": "integer", "minimum": 7, "multipleOf": 5}"#), "10")
        XCTAssertEqual(sample(#"{"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}"#), "0.5")
        XCTAssertEqual(
            sample(#"{"type": "number", "minimum": 0, "maximum": 1, "exclusiveMinimum": true}"#, .openAPI30),
            "0.5"
        )
        XCTAssertEqual(sample(#"{"type": "boolean"}"#), "true")
    }

    func testObjectsGetEveryPropertyButWriteOnlyOnes() {
        let schema =
            #"""
            {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}, "nick": {"type": \#
            "string"}, "password": {"type": "string", "writeOnly": true}}}
            """#
        XCTAssertEqual(sample(schema), #"{"id":0,"nick":"string"}"#)
        XCTAssertEqual(sample(#"{"type": "object", "additionalProperties": {"type": "integer"}}"#), #"{"key":0}"#)
        XCTAssertEqual(sample(#"{"required": ["a"]}"#), #"{"a":{}}"#)
    }

    func testArraysGetOneItemOrMinItems() {
        XCTAssertEqual(sample(#"{"type": "array", "items": {"type": "integer"}}"#), "[0]")
        XCTAssertEqual(
            sample(#"{"type": "array", "items": {"type": "string", "enum": ["X"]}, "minItems": 3}"#),
            #"["X","X","X"]"#
        )
        XCTAssertEqual(sample(#"{"type": "array", "items": {"type": "integer"}, "maxItems": 0}"#), "[]")
        XCTAssertEqual(
            sample(#"{"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]}"#),
            #"["string",0]"#
        )
    }

    func testAllOfIsMergedAndTheFirstFittingChoiceIsTaken() {
        let schema = ##"""
            {"allOf": [{"$ref": "#/$defs/Base"}, {"type": "object", "required": ["id"], "properties": {"id": \##
            {"type": "integer", "format": "int64"}}}],
             "$defs": {"Base": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, \##
            "tag": {"type": "string"}}}}}
            """##
        XCTAssertEqual(sample(schema), #"{"name":"string","tag":"string","id":0}"#)
        // The first choice also matches the second: oneOf needs exactly one, so the second is used.
        XCTAssertEqual(
            sample(#"{"oneOf": [{"type": "number"}, {"type": "integer"}, {"type": "string"}]}"#),
            #""string""#
        )
        XCTAssertEqual(sample(#"{"anyOf": [{"type": "integer"}, {"type": "string"}]}"#), "0")
        XCTAssertEqual(
            sample(
                #"""
                {"type": "object", "properties": {"a": {"type": "integer"}}, "oneOf": [{"required": ["a"]}, \#
                {"required": ["b"]}]}
                """#
            ),
            #"{"a":0}"#
        )
    }

    func testAChoiceBehindAReferenceIsSampledFromOneBranch() {
        // 2020-12 keeps a `$ref`'s siblings: the referring schema is a part of its own value,
        // and taking a branch must not meet its target again as a cycle (it gave `{}`).
        let enumeration = ##"""
            {"type": "object", "required": ["kind"], "properties": {"kind": {"$ref": "#/$defs/Kind"}, \##
            "locale": {"$ref": "#/$defs/Locale", "description": "with a sibling"}},
             "$defs": {"Kind": {"type": "integer", "oneOf": [{"title": "A", "const": 0}, {"const": 1}]},
                       "Locale": {"type": "string", "oneOf": [{"const": "en-GB"}, {"const": "fr"}]}}}
            """##
        XCTAssertEqual(sample(enumeration), #"{"kind":0,"locale":"en-GB"}"#)
    }

    func testAChoiceTakesTheFirstBranchValidOnItsOwnAndNeverAMerge() {
        // Branches that admit nothing are passed over.
        XCTAssertEqual(
            sample(#"{"oneOf": [false, {"type": "string", "minLength": 3, "maxLength": 2}, {"type": "boolean"}]}"#),
            "true"
        )
        // Four branches that also match the catch-all fifth: only the fifth's own sample is one
        // of exactly one (it was the first branch's, valid against two).
        let catchAll = ##"""
            {"type": "object", "oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {"$ref": "#/$defs/C"}, \##
            {"$ref": "#/$defs/D"}, {"type": "object"}],
             "$defs": {"A": {"required": ["a"], "properties": {"a": {"type": "string"}}},
                       "B": {"required": ["b"], "properties": {"b": {"type": "string"}}},
                       "C": {"required": ["c"], "properties": {"c": {"type": "string"}}},
                       "D": {"required": ["d"], "properties": {"d": {"type": "string"}}}}}
            """##
        XCTAssertEqual(sample(catchAll), "{}")
        // anyOf: the first branch alone, not the properties of both.
        XCTAssertEqual(
            sample(
                #"""
                {"anyOf": [{"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}, \#
                "additionalProperties": false}, {"type": "object", "properties": {"b": {"type": "integer"}}}]}
                """#
            ),
            #"{"a":"string"}"#
        )
    }

    func testAnAllOfInsideABranchIsMergedAndTheDiscriminatorNamesTheBranch() {
        func pets(discriminator: String) -> String {
            ##"""
            {"$ref": "#/$defs/Pet", "$defs": {
              "Pet": {"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}], "discriminator": \##(discriminator)},
              "Base": {"type": "object", "required": ["petType", "name"],
                       "properties": {"petType": {"type": "string"}, "name": {"type": "string"}}},
              "Cat": {"allOf": [{"$ref": "#/$defs/Base"}, {"allOf": [{"required": ["lives"],
                      "properties": {"lives": {"type": "integer", "minimum": 1}}}]}]},
              "Dog": {"allOf": [{"$ref": "#/$defs/Base"}, {"required": ["bark"],
                      "properties": {"bark": {"type": "boolean"}}}]}}}
            """##
        }
        let mapped = ##"{"propertyName": "petType", "mapping": {"dog": "#/$defs/Dog", "cat": "#/$defs/Cat"}}"##
        XCTAssertEqual(sample(pets(discriminator: mapped)), #"{"petType":"cat","name":"string","lives":1}"#)
        XCTAssertEqual(
            sample(pets(discriminator: mapped), .openAPI30),
            #"{"petType":"cat","name":"string","lives":1}"#,
            "OpenAPI 3.0 too"
        )
        // A mapping may name the schema rather than refer to it.
        let byName = #"{"propertyName": "petType", "mapping": {"feline": "Cat"}}"#
        XCTAssertEqual(sample(pets(discriminator: byName)), #"{"petType":"feline","name":"string","lives":1}"#)
        // Without a mapping the value is the referenced schema's name.
        let unmapped = #"{"propertyName": "petType"}"#
        XCTAssertEqual(sample(pets(discriminator: unmapped)), #"{"petType":"Cat","name":"string","lives":1}"#)
    }

    func testAChoiceNoBranchOfWhichFitsIsNoted() {
        let schema = #"{"type": "integer", "oneOf": [{"type": "number"}, {"minimum": -5}]}"#
        let documents = DocumentSet(root: json(schema), displayName: "spec.json", path: nil)
        let sampler = SchemaSampler(documents: documents, dialect: .jsonSchema2020)
        XCTAssertEqual(JSONSerializer.string(sampler.sample(documents.root)), "0")
        XCTAssertEqual(sampler.notes.count, 1)
        XCTAssertTrue(sampler.notes.first?.message.contains("no branch of this choice") == true)
    }

    func testNullableAndTypeArraysTakeTheFirstNonNullType() {
        XCTAssertEqual(sample(#"{"type": "string", "nullable": true}"#, .openAPI30), #""string""#)
        XCTAssertEqual(sample(#"{"type": ["null", "integer"]}"#), "0")
        XCTAssertEqual(sample(#"{"type": "null"}"#), "null")
    }

    func testRecursionStopsAtTheFirstRepetition() {
        let tree =
            ##"""
            {"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object", "required": ["name"],
             "properties": {"name": {"type": "string"}, "parent": {"$ref": "#/$defs/Node"},
                            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}
            """##
        XCTAssertEqual(sample(tree), #"{"name":"string","children":[]}"#)
        let mutual =
            ##"""
            {"$ref": "#/$defs/A", "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                                            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}}}
            """##
        XCTAssertEqual(sample(mutual), #"{"b":{}}"#)
    }

    func testOptionalNestingStopsSixLevelsDownButRequiredPropertiesDoNot() {
        // L0 → L1 → ... → L9, each with a required id and an optional next level.
        let levels = (0..<10).map { level in
            let next = level == 9 ? "" : ##", "next": {"$ref": "#/$defs/L\##(level + 1)"}"##
            return
                #"""
                "L\#(level)": {"type": "object", "required": ["id"], "properties": {"id": {"type": \#
                "integer"}\#(next)}}
                """#
        }
        let schema = ##"{"$ref": "#/$defs/L0", "$defs": {\##(levels.joined(separator: ", "))}}"##
        XCTAssertEqual(
            sample(schema),
            #"{"id":0,"next":{"id":0,"next":{"id":0,"next":{"id":0,"next":{"id":0,"next":{"id":0,"next":{"id":0}}}}}}}"#
        )
        let required =
            ##"""
            {"type": "object", "required": ["a"], "properties": {"a": {"type": "object", "required": ["b"], \##
            "properties": {"b": {"type": "object", "required": ["c"], "properties": {"c": {"type": "object", \##
            "required": ["d"], "properties": {"d": {"type": "object", "required": ["e"], "properties": {"e": \##
            {"type": "object", "required": ["f"], "properties": {"f": {"type": "object", "required": ["g"], \##
            "properties": {"g": {"type": "integer"}}}}}}}}}}}}}}}
            """##
        XCTAssertEqual(sample(required), #"{"a":{"b":{"c":{"d":{"e":{"f":{"g":0}}}}}}}"#)
    }

    func testWideDeepSchemasStayBounded() {
        // Ten properties, each an object of the next level, twelve levels: 10^12 values unbounded.
        var levels: [String] = []
        for level in 0..<12 {
            let next = level == 11 ? #"{"type": "string"}"# : ##"{"$ref": "#/$defs/L\##(level + 1)"}"##
            let properties = (0..<10).map { #""p\#($0)": \#(next)"# }.joined(separator: ", ")
            levels.append(#""L\#(level)": {"type": "object", "properties": {\#(properties)}}"#)
        }
        let schema = ##"{"$ref": "#/$defs/L0", "$defs": {\##(levels.joined(separator: ", "))}}"##
        let documents = DocumentSet(root: json(schema), displayName: "spec.json", path: nil)
        let value = SchemaSampler(documents: documents, dialect: .jsonSchema2020).sample(documents.root)
        XCTAssertLessThan(JSONSerializer.bytes(value).count, 200_000)
    }
}

/// Strings for the patterns APIs write, checked against the real regular expression.
final class PatternSamplerTests: XCTestCase {
    func testSamplesMatchTheirPatterns() throws {
        let patterns = [
            #"^E[0-9]{3}$"#, #"^C-\d{6}$"#, #"^[A-Z]{2}-\d+$"#, #"^(ab|cd)+x?$"#, #"^[^@\s]+@[^@\s]+\.[a-z]{2,}$"#,
            #"^\+?[1-9]\d{1,14}$"#, #"^(?:[a-z0-9]+(?:-[a-z0-9]+)*)$"#, #"^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$"#,
            #"^[a-f0-9]{8}-[a-f0-9]{4}$"#, #"\w{3,}"#, #"^x{0,2}$"#, #"^a{2,}$"#, #"^#[0-9a-fA-F]{6}$"#, #"^[\w.-]+$"#,
        ]
        for pattern in patterns {
            let sample = try XCTUnwrap(PatternSampler.sample(pattern), pattern)
            let regex = try NSRegularExpression(pattern: pattern)
            XCTAssertNotNil(
                regex.firstMatch(in: sample, range: NSRange(sample.startIndex..., in: sample)),
                "\(pattern): \(sample.debugDescription)"
            )
        }
        XCTAssertEqual(PatternSampler.sample(#"^E[0-9]{3}$"#), "E000")
        for unsupported in [#"^(?=a)b$"#, #"(a)\1"#, "(unclosed", #"^\p{L}+$"#] {
            XCTAssertNil(PatternSampler.sample(unsupported), unsupported)
        }
    }
}
