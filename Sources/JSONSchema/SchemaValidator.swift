#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import RegularExpressions

/// A JSON Schema validator over `JSONNode`s, for checking stubs against an OpenAPI document
/// and requests against it while serving: JSON Schema 2020-12 (OpenAPI 3.1) and OpenAPI 3.0's
/// Schema Object (see `SchemaDialect`).
///
/// Every failure names the value (JSON path and position) and the keyword that failed (its
/// location in the documents). `$ref`s resolve through the `DocumentSet`; one that cannot is
/// recorded there and accepts anything here. A schema that applies itself to the same value again
/// (`A: {allOf: [{$ref: A}]}`) is cut at the repetition. Formats are checked loosely for the
/// common ones (`SchemaFormats`); `$dynamicRef` is read as `$ref`, and `$id` does not change
/// the base of references.
///
/// Schemas are compiled once (`compile`, or on first use): a validation walks `CompiledSchema`s
/// and the value, and first only asks whether the value is valid. Paths, locations and messages
/// are built only for a value that is not, by a second walk that collects them.
///
/// A class because it keeps the compiled schemas and shares the document set; used from one
/// thread (or under one lock) at a time, so the fields a request's check reads go without the
/// run-time exclusivity check (about 90 instructions a read).
package final class SchemaValidator {
    package let documents: DocumentSet
    package let dialect: SchemaDialect
    /// Strings containing `{{` (stub templates) are accepted by any schema: what they become is
    /// known only per request.
    @exclusivity(unchecked) package var acceptsTemplateStrings = false
    @exclusivity(unchecked) package var checksFormats = true

    /// Which side of an exchange values come from: OpenAPI's `readOnly` properties are not
    /// required in a request, `writeOnly` ones not in a response.
    package enum Direction {
        case any
        case request
        case response
    }

    package var direction: Direction {
        get { currentDirection }
        set { currentDirection = newValue }
    }
    /// Behind accessors: `@exclusivity(unchecked)` holds only for accesses from this module, and a
    /// contract sets the direction on every check.
    @exclusivity(unchecked) private var currentDirection = Direction.any

    private var patterns: [String: LinearRegex?] = [:]
    /// Every schema compiled so far, by number, and the numbers by place.
    @exclusivity(unchecked) var compiled: [CompiledSchema] = []
    /// What `JSONTextCheck` reads of `compiled`, as plain values (`textCheckPlan()`).
    @exclusivity(unchecked) var textPlan = JSONTextPlan()
    var compiledIndex: [NodeLocation: Int] = [:]
    /// The compiled schemas before this one are filled in; the rest wait for `compile`.
    var filledCount = 0
    /// `$ref`s resolved once per place.
    var references: [NodeLocation: LocatedNode?] = [:]
    /// Some compiled schema has `unevaluatedProperties` or `unevaluatedItems`: only then do
    /// evaluations keep which properties and items they have looked at.
    var tracksAnnotations = false
    static let maximumDepth = 300

    package init(documents: DocumentSet, dialect: SchemaDialect) {
        self.documents = documents
        self.dialect = dialect
    }

    /// Every failure of `instance` against `schema`; `path` names the instance in findings.
    package func validate(_ instance: JSONNode, against schema: LocatedNode, at path: String = "$") -> [SchemaFailure] {
        validate(instance, against: compile(schema), at: path)
    }

    package func isValid(_ instance: JSONNode, against schema: LocatedNode) -> Bool {
        isValid(instance, against: compile(schema))
    }

    /// Every failure of `instance` against a schema compiled before; none is the common case,
    /// and then no path or message is built.
    package func validate(
        _ instance: JSONNode,
        against schema: CompiledSchemaID,
        at path: String = "$"
    ) -> [SchemaFailure] {
        guard !isValid(instance, against: schema) else { return [] }
        var run = SchemaRun(validator: self, collecting: true)
        return run.evaluate(instance, schema.index, path, level: 0).failures
    }

    package func isValid(_ instance: JSONNode, against schema: CompiledSchemaID) -> Bool {
        var run = SchemaRun(validator: self, collecting: false)
        return run.evaluate(instance, schema.index, "", level: 0).isValid
    }

    /// nil when the schema has no reference; .some(nil) when it has one that does not resolve.
    func referencedSchema(_ schema: LocatedNode) -> LocatedNode?? {
        if schema.node["$ref"] != nil { return .some(cachedReference(schema)) }
        guard schema.node["$dynamicRef"] != nil, let dynamic = schema["$dynamicRef"] else { return nil }
        // Read as a plain reference: enough for the recursive schemas specs write.
        let member = JSONNode.Member(key: "$ref", keyPosition: dynamic.node.position, value: dynamic.node)
        return .some(
            documents.resolveReference(
                of: LocatedNode(JSONNode(.object([member]), at: schema.node.position), schema.location)
            )
        )
    }

    // MARK: Patterns

    /// ECMA-262 patterns through the engine's linear-time regex (the syntax specs use; no
    /// backreferences or lookaround), so a hostile document cannot stall `validate --openapi`
    /// or an import; searched, not anchored, as JSON Schema says. A pattern it cannot compile is
    /// reported once and accepts anything.
    func pattern(_ source: String, at location: LocatedNode) -> LinearRegex? {
        if let cached = patterns[source] { return cached }
        let regex = try? LinearRegex(source)
        if regex == nil {
            documents.report(
                .warning,
                """
                pattern \(JSONSerializer.quoted(source)) is not a regular expression stubserver can compile; it \
                is not checked
                """,
                at: location
            )
        }
        patterns[source] = regex
        return regex
    }

    func matches(_ regex: LinearRegex, _ s: String) -> Bool {
        regex.firstMatch(in: s) != nil
    }
}

/// A schema compiled by a `SchemaValidator`, to validate with it again and again.
package struct CompiledSchemaID: Sendable, Hashable {
    let index: Int
}

extension JSONNode.Value {
    package var isNull: Bool { if case .null = self { true } else { false } }
}
