import Foundation
import JSON
@testable import JSONSchema
import XCTest

/// The JSON Schema Test Suite against `SchemaValidator`: draft 2020-12 (OpenAPI 3.1) and
/// draft 4 (OpenAPI 3.0's dialect). The suite is not in `../shared/corpora`:
/// `scripts/schema-conformance` fetches it (inside the `jsonschema` source package, with pip)
/// and runs this test with `JSON_SCHEMA_TEST_SUITE` set to its `tests` folder. Without it the
/// test skips. Cases that need what the validator leaves out on purpose are skipped by the list
/// below, each with its reason; the test fails when an entry goes stale (the case now passes, or
/// is gone).
final class SchemaSuiteConformanceTests: XCTestCase {
    enum Reason: String {
        case identifiers =
            """
            $id, URN and remote references: references resolve by location (JSON pointer, $anchor, relative \
            file); $id does not change the base, and nothing is fetched
            """
        case dynamic = "$dynamicRef is read as a plain $ref (no dynamic scope)"
        case metaschema = "$vocabulary and validating against metaschemas"
    }

    /// Files skipped as a whole, by suite folder.
    static let skippedFiles: [String: [String: Reason]] = [
        "draft2020-12": ["refRemote.json": .identifiers, "dynamicRef.json": .dynamic],
        "draft4": ["refRemote.json": .identifiers],
    ]

    /// `file: group description` of single groups skipped, by suite folder.
    static let skippedGroups: [String: [String: Reason]] = [
        "draft2020-12": [
            "anchor.json: Location-independent identifier with absolute URI": .identifiers,
            "anchor.json: Location-independent identifier with base URI change in subschema": .identifiers,
            "anchor.json: same $anchor with different base uri": .identifiers,
            "defs.json: validate definition against metaschema": .metaschema,
            "ref.json: $id must be resolved against nearest parent, not just immediate parent": .identifiers,
            "ref.json: Recursive references between schemas": .identifiers,
            "ref.json: URN base URI with URN and JSON pointer ref": .identifiers,
            "ref.json: URN base URI with URN and anchor ref": .identifiers,
            "ref.json: URN ref with nested pointer ref": .identifiers,
            "ref.json: order of evaluation: $id and $anchor and $ref": .identifiers,
            "ref.json: order of evaluation: $id and $ref": .identifiers,
            "ref.json: ref to else": .identifiers,
            "ref.json: ref to if": .identifiers,
            "ref.json: ref to then": .identifiers,
            "ref.json: ref with absolute-path-reference": .identifiers,
            "ref.json: refs with relative uris and defs": .identifiers,
            "ref.json: relative refs with absolute uris and defs": .identifiers,
            "ref.json: remote ref, containing refs itself": .identifiers,
            "ref.json: simple URN base URI with $ref via the URN": .identifiers,
            "unevaluatedItems.json: unevaluatedItems with $dynamicRef": .dynamic,
            "unevaluatedProperties.json: unevaluatedProperties with $dynamicRef": .dynamic,
            "vocabulary.json: schema that uses custom metaschema with with no validation vocabulary": .metaschema,
        ],
        "draft4": [
            "definitions.json: validate definition against metaschema": .metaschema,
            "ref.json: $ref prevents a sibling id from changing the base uri": .identifiers,
            "ref.json: Location-independent identifier": .identifiers,
            "ref.json: Location-independent identifier with base URI change in subschema": .identifiers,
            "ref.json: Recursive references between schemas": .identifiers,
            "ref.json: id must be resolved against nearest parent, not just immediate parent": .identifiers,
            "ref.json: remote ref, containing refs itself": .identifiers,
        ],
    ]

    /// OpenAPI 3.1 schemas are JSON Schema 2020-12.
    func testDraft2020_12() throws {
        try run("draft2020-12", .jsonSchema2020)
    }

    /// OpenAPI 3.0's Schema Object is draft 4 (wright-00) with `nullable` and a `$ref` that
    /// replaces its siblings: the draft 4 suite holds for that dialect too.
    func testDraft4AsOpenAPI30() throws {
        try run("draft4", .openAPI30)
    }

    private func run(_ suite: String, _ dialect: SchemaDialect) throws {
        guard let path = ProcessInfo.processInfo.environment["JSON_SCHEMA_TEST_SUITE"], !path.isEmpty else {
            throw XCTSkip("JSON_SCHEMA_TEST_SUITE is not set (scripts/schema-conformance sets it): conformance skipped")
        }
        let folder = URL(fileURLWithPath: path).appendingPathComponent(suite)
        let skippedFiles = Self.skippedFiles[suite] ?? [:]
        let skippedGroups = Self.skippedGroups[suite] ?? [:]
        var passed = 0
        var failed: [String] = []
        var skippedCases = 0
        var failingSkips = Set<String>()
        var seenSkips = Set<String>()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where name.hasSuffix(".json") {
            let root = try JSONParser.parse(Array(Data(contentsOf: folder.appendingPathComponent(name))))
            for group in root.elements ?? [] {
                let label = "\(name): \(group["description"]?.string ?? "")"
                let skip = skippedFiles[name] != nil ? name : skippedGroups[label] != nil ? label : nil
                let documents = DocumentSet(root: group["schema"] ?? .object([]), displayName: name, path: nil)
                let validator = SchemaValidator(documents: documents, dialect: dialect)
                // In these drafts format is an annotation; the loose checks have their own tests.
                validator.checksFormats = false
                for test in group["tests"]?.elements ?? [] {
                    guard let data = test["data"], let valid = test["valid"]?.bool else { continue }
                    let agrees = validator.isValid(data, against: documents.root) == valid
                    if let skip {
                        seenSkips.insert(skip)
                        skippedCases += 1
                        if !agrees { failingSkips.insert(skip) }
                    } else if agrees {
                        passed += 1
                    } else {
                        failed.append(
                            """
                            \(suite)/\(label) / \(test["description"]?.string ?? ""): expected \
                            \(valid ? "valid" : "invalid")
                            """
                        )
                    }
                }
            }
        }
        for skip in Array(skippedFiles.keys) + Array(skippedGroups.keys) {
            if !seenSkips.contains(skip) {
                XCTFail("stale skip: \(suite)/\(skip) is not in the suite")
            } else if !failingSkips.contains(skip) {
                XCTFail("stale skip: \(suite)/\(skip) passes now; take it off the list")
            }
        }
        print(
            """
            JSON Schema Test Suite \(suite) as \(dialect): \(passed) cases pass, \(failed.count) fail, \
            \(skippedCases) skipped (\(skippedFiles.count) files, \(skippedGroups.count) groups)
            """
        )
        for failure in failed { XCTFail(failure) }
    }
}
