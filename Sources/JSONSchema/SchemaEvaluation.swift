import JSON

/// What evaluating one schema against one value found: whether it failed and, when the run
/// collects them, the failures; and the annotations that `unevaluatedProperties` and
/// `unevaluatedItems` need (which properties and items some keyword of this schema, or of a
/// subschema applied in place, has already evaluated), when some schema has those keywords.
struct SchemaEvaluation {
    var failed = false
    var failures: [SchemaFailure] = []
    var evaluatedProperties: Set<String> = []
    var evaluatedItemPrefix = 0
    var evaluatedAllItems = false
    var evaluatedItemIndexes: Set<Int> = []

    var isValid: Bool { !failed }

    /// Takes over the failures of a subschema applied to a part of the value (a property, an item).
    mutating func absorbFailures(_ other: SchemaEvaluation) {
        guard other.failed else { return }
        failed = true
        failures += other.failures
    }

    /// Takes over another evaluation's annotations (only valid subschemas contribute them).
    mutating func absorbAnnotations(_ other: SchemaEvaluation) {
        guard !other.failed else { return }
        evaluatedProperties.formUnion(other.evaluatedProperties)
        evaluatedItemPrefix = max(evaluatedItemPrefix, other.evaluatedItemPrefix)
        evaluatedAllItems = evaluatedAllItems || other.evaluatedAllItems
        evaluatedItemIndexes.formUnion(other.evaluatedItemIndexes)
    }

    /// Takes over failures and annotations of a subschema that must hold (allOf, $ref, then).
    mutating func absorb(_ other: SchemaEvaluation) {
        absorbFailures(other)
        absorbAnnotations(other)
    }

    func isItemEvaluated(_ index: Int) -> Bool {
        evaluatedAllItems || index < evaluatedItemPrefix || evaluatedItemIndexes.contains(index)
    }
}

/// How values and types read in findings.
package enum SchemaWording {
    package static func article(_ type: String) -> String {
        switch type {
        case "object": "an object"
        case "array": "an array"
        case "string": "a string"
        case "number": "a number"
        case "integer": "an integer"
        case "boolean": "a boolean"
        case "null": "null"
        default: "a value of type \(type)"
        }
    }

    /// `an integer or null`, `a string, a number or null`.
    package static func types(_ types: [String]) -> String {
        let words = types.map(article)
        guard words.count > 1 else { return words.first ?? "nothing" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    /// A value as it reads in a message, short.
    package static func value(_ node: JSONNode) -> String {
        let text = JSONSerializer.string(node)
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }

    package static func number(_ node: JSONNode) -> String { node.number?.text ?? value(node) }

    package static func plural(_ n: Int, _ word: String) -> String {
        n == 1 ? "1 \(word)" : "\(n) \(word.hasSuffix("y") ? word.dropLast() + "ies" : word + "s")"
    }

    /// The path of a member below `path`, in the loader's notation.
    package static func child(_ path: String, _ key: String) -> String { path + DocumentProblem.pathComponent(key) }
    package static func child(_ path: String, _ index: Int) -> String { "\(path)[\(index)]" }
}
