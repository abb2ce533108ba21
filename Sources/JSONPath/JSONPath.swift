import JSON

/// A JSONPath expression (Jayway's dialect, the one WireMock uses), compiled once at load into
/// segments: evaluating it walks a parsed body with no parsing, no regex compilation and a
/// bounded amount of work, so a request body cannot make one expression expensive.
///
/// Supported: `$` (or `@`, or nothing: `name` reads as `$.name`, as in Jayway), `.name`,
/// `['name']`, `['a','b']`, `.*`, `[*]`, `[0]`, `[-1]`, `[0,2]`, `[1:3]`, `[-2:]`, `[:2]`,
/// `..name`, `..*`, `..[0]`, a dot before a bracket (`$.[0]`, `$.[?(...)]`), filters `[?(...)]`
/// (see `JSONPathFilter`), and the functions of `JSONPathFunction` anywhere in the path.
package struct JSONPath: Sendable {
    package let source: String
    let segments: [Segment]

    /// A definite path names at most one value (no wildcard, deep scan, filter, index union,
    /// slice, or a name union that is not the last step): Jayway returns that value itself, or
    /// fails when it is missing; an indefinite path returns a list, empty when nothing matched.
    package let isDefinite: Bool

    enum Segment: Sendable {
        /// `.name`, `['name']`, and `['a','b']` before another step (each name in turn).
        case names([String])
        /// `['a','b']` as the last step: one object of the members found (Jayway merges them).
        case mergedNames([String])
        /// `[0]`, `[-1]`, `[0,2]`.
        case indices([Int])
        case slice(start: Int?, end: Int?, step: Int)
        /// `.*`, `[*]`: every member value or element.
        case wildcard
        /// `..`: the node and every descendant, before the selector that follows it.
        case descendants
        case filter(JSONPathFilter)
        /// `.length()`, `.sum(1, $.x)`: applied to each value that reaches it.
        case function(JSONPathFunction)
    }

    /// Parses and compiles; throws with a message and the character offset of the problem.
    package init(_ source: String) throws(JSONPathError) {
        var parser = JSONPathParser(source)
        self.init(source: source, segments: try parser.parseTopLevelPath())
    }

    init(source: String, segments: [Segment]) {
        self.source = source
        self.segments = segments
        self.isDefinite = segments.allSatisfy(\.isDefinite)
    }

    /// Whether the path has a function anywhere (its values need not be nodes of the document).
    var hasFunction: Bool {
        segments.contains { if case .function = $0 { true } else { false } }
    }

    /// What an evaluation found.
    package enum Result: Sendable {
        /// A definite path's value.
        case value(JSONNode)
        /// A definite path whose value is not there (Jayway's PathNotFoundException), or an
        /// evaluation Jayway abandons with an error (`first()` of an empty array, `max()` of no
        /// numbers).
        case missing
        /// An indefinite path's values, in document order (empty when none, or on an error).
        case list([JSONNode])
    }

    /// Evaluates against a document. Work is bounded by `budget` node visits: past it, nothing
    /// more is collected (a hostile body cannot make `$..*..*` quadratic in time).
    package func evaluate(_ document: JSONNode, budget: Int = JSONPath.defaultBudget) -> Result {
        var visits = 0
        return evaluate(document, budget: budget, visits: &visits)
    }

    /// As above, also adding the node visits it made to `visits` (the template renderer counts
    /// them against its own bound).
    package func evaluate(_ document: JSONNode, budget: Int, visits: inout Int) -> Result {
        var evaluator = JSONPathEvaluator(root: document, budget: budget)
        defer { visits += budget - max(evaluator.budget, 0) }
        let nodes = evaluator.select(segments, from: [document])
        if evaluator.failed { return isDefinite ? .missing : .list([]) }
        if isDefinite { return nodes.first.map(Result.value) ?? .missing }
        return .list(nodes)
    }

    /// Node visits one evaluation may make.
    package static let defaultBudget = 1_000_000
}

extension JSONPath.Segment {
    var isDefinite: Bool {
        switch self {
        case .names(let names): names.count == 1
        case .indices(let indices): indices.count == 1
        case .mergedNames, .function: true
        case .slice, .wildcard, .descendants, .filter: false
        }
    }
}

/// Why an expression did not compile: a message and the character offset (0-based) in the
/// expression; the description gives it as a 1-based column, as editors count.
package struct JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    package let offset: Int

    package var description: String { "\(message) (at column \(offset + 1) of the expression)" }
}

extension JSONPath.Result {
    /// WireMock's test for `"matchesJsonPath": "$.x"`: something is there, and it is not null,
    /// an empty array or an empty object.
    package var isPresentAndNotEmpty: Bool {
        switch self {
        case .missing: return false
        case .list(let nodes): return !nodes.isEmpty
        case .value(let node):
            switch node.value {
            case .null: return false
            case .array(let elements): return !elements.isEmpty
            case .object(let members): return !members.isEmpty
            default: return true
            }
        }
    }
}
