#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import RegularExpressions

/// A JSON Schema validator over `JSONNode`s, for checking stubs against an OpenAPI document:
/// JSON Schema 2020-12 (OpenAPI 3.1) and OpenAPI 3.0's Schema Object (see `SchemaDialect`).
///
/// Every failure names the value (JSON path and position) and the keyword that failed (its
/// location in the documents). `$ref`s resolve through the `DocumentSet`; one that cannot is
/// recorded there and accepts anything here. A schema that applies itself to the same value again
/// (`A: {allOf: [{$ref: A}]}`) is cut at the repetition. Formats are checked loosely for the
/// common ones (`SchemaFormats`); `$dynamicRef` is read as `$ref`, and `$id` does not change
/// the base of references.
///
/// A class because it caches compiled patterns and shares the document set; used from one thread.
package final class SchemaValidator {
    package let documents: DocumentSet
    package let dialect: SchemaDialect
    /// Strings containing `{{` (stub templates) are accepted by any schema: what they become is
    /// known only per request.
    package var acceptsTemplateStrings = false
    package var checksFormats = true

    /// Which side of an exchange values come from: OpenAPI's `readOnly` properties are not
    /// required in a request, `writeOnly` ones not in a response.
    package enum Direction {
        case any
        case request
        case response
    }

    package var direction = Direction.any

    private var patterns: [String: LinearRegex?] = [:]
    /// Schemas `prepare` has walked, and `$ref`s resolved once (`cachedReference`).
    var prepared: Set<NodeLocation> = []
    var preparedCount = 0
    var references: [NodeLocation: LocatedNode?] = [:]
    /// (schema, value) pairs being evaluated, to cut a schema that reapplies itself to one value.
    private var active: Set<String> = []
    private var depth = 0
    static let maximumDepth = 300

    package init(documents: DocumentSet, dialect: SchemaDialect) {
        self.documents = documents
        self.dialect = dialect
    }

    /// Every failure of `instance` against `schema`; `path` names the instance in findings.
    package func validate(_ instance: JSONNode, against schema: LocatedNode, at path: String = "$") -> [SchemaFailure] {
        evaluate(instance, schema, path).failures
    }

    package func isValid(_ instance: JSONNode, against schema: LocatedNode) -> Bool {
        evaluate(instance, schema, "$").isValid
    }

    func evaluate(_ instance: JSONNode, _ schema: LocatedNode, _ path: String) -> SchemaEvaluation {
        if let flag = schema.node.bool {
            guard !flag else { return SchemaEvaluation() }
            return failed(instance, path, schema.location, "no value is allowed here (the schema is false)")
        }
        guard schema.isObject else { return SchemaEvaluation() }
        if acceptsTemplateStrings, let s = instance.string, s.contains("{{") { return SchemaEvaluation() }
        let key = "\(schema.location)|\(path)"
        guard depth < Self.maximumDepth, !active.contains(key) else { return SchemaEvaluation() }
        active.insert(key)
        depth += 1
        defer {
            active.remove(key)
            depth -= 1
        }

        var result = SchemaEvaluation()
        if let target = referencedSchema(schema) {
            if let target { result.absorb(evaluate(instance, target, path)) }
            if dialect.refReplacesSiblings && schema["$ref"] != nil { return result }
        }
        if dialect.hasNullable, instance.value.isNull, schema["nullable"]?.node.bool == true {
            return result
        }
        checkType(instance, schema, path, &result)
        checkValues(instance, schema, path, &result)
        switch instance.value {
        case .number: checkNumber(instance, schema, path, &result)
        case .string(let s): checkString(s, instance, schema, path, &result)
        case .array(let elements): checkArray(elements, instance, schema, path, &result)
        case .object(let members): checkObject(members, instance, schema, path, &result)
        default: break
        }
        applyCombinators(instance, schema, path, &result)
        // After every in-place applicator: they decide what counts as evaluated.
        if case .array(let elements) = instance.value { checkUnevaluatedItems(elements, schema, path, &result) }
        if case .object(let members) = instance.value { checkUnevaluatedProperties(members, schema, path, &result) }
        return result
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

    func failed(_ instance: JSONNode, _ path: String, _ location: NodeLocation, _ message: String) -> SchemaEvaluation {
        var result = SchemaEvaluation()
        result.failures.append(
            SchemaFailure(instancePath: path, position: instance.position, schemaLocation: location, message: message)
        )
        return result
    }

    func fail(
        _ result: inout SchemaEvaluation,
        _ instance: JSONNode,
        _ path: String,
        _ location: NodeLocation,
        _ message: String,
        position: SourcePosition? = nil
    ) {
        result.failures.append(
            SchemaFailure(
                instancePath: path,
                position: position ?? instance.position,
                schemaLocation: location,
                message: message
            )
        )
    }

    // MARK: allOf, anyOf, oneOf, not, if/then/else, dependentSchemas

    private func applyCombinators(
        _ instance: JSONNode,
        _ schema: LocatedNode,
        _ path: String,
        _ result: inout SchemaEvaluation
    ) {
        if let all = schema["allOf"]?.elements {
            for sub in all { result.absorb(evaluate(instance, sub, path)) }
        }
        if let anyOf = schema["anyOf"], let branches = anyOf.elements, !branches.isEmpty {
            let evaluations = branches.map { evaluate(instance, $0, path) }
            if evaluations.contains(where: \.isValid) {
                for evaluation in evaluations { result.absorbAnnotations(evaluation) }
            } else {
                fail(&result, instance, path, anyOf.location, noneMatched("anyOf", branches, evaluations))
            }
        }
        if let oneOf = schema["oneOf"], let branches = oneOf.elements, !branches.isEmpty {
            let evaluations = branches.map { evaluate(instance, $0, path) }
            let valid = evaluations.indices.filter { evaluations[$0].isValid }
            if valid.count == 1 {
                result.absorbAnnotations(evaluations[valid[0]])
            } else if valid.isEmpty {
                fail(&result, instance, path, oneOf.location, noneMatched("oneOf", branches, evaluations))
            } else {
                fail(
                    &result,
                    instance,
                    path,
                    oneOf.location,
                    """
                    matches \(valid.count) of oneOf's \(branches.count) schemas \
                    (\(valid.map { branches[$0].location.description }.joined(separator: ", "))); exactly one \
                    must match
                    """
                )
            }
        }
        if let not = schema["not"], evaluate(instance, not, path).isValid {
            fail(&result, instance, path, not.location, "matches the schema under \"not\", which it must not")
        }
        if let condition = schema["if"] {
            let test = evaluate(instance, condition, path)
            result.absorbAnnotations(test)
            if let branch = test.isValid ? schema["then"] : schema["else"] {
                result.absorb(evaluate(instance, branch, path))
            }
        }
        if case .object(let members) = instance.value, let dependent = schema["dependentSchemas"]?.members {
            for (name, sub) in dependent where members.contains(where: { $0.key == name }) {
                result.absorb(evaluate(instance, sub, path))
            }
        }
    }

    /// "matches none of anyOf's 2 schemas (closest, #/...: missing required property "id")".
    private func noneMatched(_ keyword: String, _ branches: [LocatedNode], _ evaluations: [SchemaEvaluation]) -> String
    {
        var message = "matches none of \(keyword)'s \(SchemaWording.plural(branches.count, "schema"))"
        // A choice of another type entirely is further than one that fails on a detail.
        func distance(_ evaluation: SchemaEvaluation) -> Int {
            evaluation.failures.count
                + (evaluation.failures.contains { $0.schemaLocation.pointer.hasSuffix("/type") } ? 1_000 : 0)
        }
        if let closest = evaluations.indices.min(by: { distance(evaluations[$0]) < distance(evaluations[$1]) }),
            let first = evaluations[closest].failures.first
        {
            let place = first.instancePath == "$" ? "" : first.instancePath + ": "
            message += " (closest, \(branches[closest].location): \(place)\(first.message))"
        }
        return message
    }

    // MARK: Patterns

    /// ECMA-262 patterns through the engine's linear-time regex (the syntax specs use; no
    /// backreferences or lookaround), so a hostile document cannot stall `validate --openapi`
    /// or an import; searched, not anchored, as JSON Schema says. A pattern it cannot compile is
    /// reported once and accepts anything.
    func pattern(_ source: String, at location: LocatedNode) -> LinearRegex? {
        if let cached = patterns[source] { return cached }
        let compiled = try? LinearRegex(source)
        if compiled == nil {
            documents.report(
                .warning,
                """
                pattern \(JSONSerializer.quoted(source)) is not a regular expression stubserver can compile; it \
                is not checked
                """,
                at: location
            )
        }
        patterns[source] = compiled
        return compiled
    }

    func matches(_ regex: LinearRegex, _ s: String) -> Bool {
        regex.firstMatch(in: s) != nil
    }
}

extension JSONNode.Value {
    package var isNull: Bool { if case .null = self { true } else { false } }
}
