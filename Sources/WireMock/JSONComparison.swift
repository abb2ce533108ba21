import JSON
import RegularExpressions
import StubEngine
/// WireMock's `equalToJson`, as JsonUnit compares: numbers by value, object key order ignored,
/// with `ignoreArrayOrder` and `ignoreExtraElements` (extra object keys and extra array items),
/// and JsonUnit's placeholders in the expected document: `${json-unit.ignore}`,
/// `${json-unit.ignore-element}`, `${json-unit.any-string}`, `${json-unit.any-number}`,
/// `${json-unit.any-boolean}` and `${json-unit.regex}PATTERN` (compiled at load).
package struct JSONExpectation: Sendable {
    /// The document as written, for reports, the admin API and the importer.
    package let source: JSONNode
    let root: Node

    indirect enum Node: Sendable {
        case scalar(JSONNode)
        case object([(key: String, value: Node)])
        case array([Node])
        case ignore
        case ignoreElement
        case anyString, anyNumber, anyBoolean
        case regex(CompiledRegex)
    }

    /// Throws the regular expression's error for a bad `${json-unit.regex}`.
    package init(_ source: JSONNode) throws {
        self.source = source
        root = try Self.compile(source, depth: 0)
    }

    /// Whether the document uses any placeholder (the importer cannot express them).
    package var usesPlaceholders: Bool { Self.hasPlaceholder(root) }

    private static func hasPlaceholder(_ node: Node) -> Bool {
        switch node {
        case .scalar: false
        case .object(let members): members.contains { hasPlaceholder($0.value) }
        case .array(let elements): elements.contains(where: hasPlaceholder)
        default: true
        }
    }

    private static let regexPrefix = "${json-unit.regex}"

    private static func compile(_ node: JSONNode, depth: Int) throws -> Node {
        switch node.value {
        case .string(let s) where s.hasPrefix("${json-unit."):
            switch s {
            case "${json-unit.ignore}": return .ignore
            case "${json-unit.ignore-element}": return .ignoreElement
            case "${json-unit.any-string}": return .anyString
            case "${json-unit.any-number}": return .anyNumber
            case "${json-unit.any-boolean}": return .anyBoolean
            default:
                if s.hasPrefix(regexPrefix) { return .regex(try CompiledRegex(String(s.dropFirst(regexPrefix.count)))) }
                return .scalar(node)
            }
        case .object(let members):
            return .object(try members.map { (key: $0.key, value: try compile($0.value, depth: depth + 1)) })
        case .array(let elements):
            return .array(try elements.map { try compile($0, depth: depth + 1) })
        default:
            return .scalar(node)
        }
    }
}

enum JSONComparison {
    static func matches(
        expected: JSONExpectation,
        actual: JSONNode,
        ignoreArrayOrder: Bool,
        ignoreExtraElements: Bool
    ) -> Bool {
        var comparison = Comparison(ignoreArrayOrder: ignoreArrayOrder, ignoreExtra: ignoreExtraElements)
        return comparison.equal(expected.root, actual)
    }

    private struct Comparison {
        let ignoreArrayOrder: Bool
        let ignoreExtra: Bool
        /// Element comparisons left: unordered arrays compare pairs, and a hostile body must not
        /// make that quadratic without end.
        var budget = 2_000_000

        mutating func equal(_ expected: JSONExpectation.Node, _ actual: JSONNode) -> Bool {
            budget -= 1
            guard budget > 0 else { return false }
            switch expected {
            case .ignore, .ignoreElement: return true
            case .anyString: if case .string = actual.value { return true } else { return false }
            case .anyNumber: if case .number = actual.value { return true } else { return false }
            case .anyBoolean: if case .bool = actual.value { return true } else { return false }
            case .regex(let regex):
                guard case .string(let s) = actual.value else { return false }
                return regex.matchesWhole(s)
            case .scalar(let node): return node.equals(actual)
            case .object(let members):
                guard case .object(let present) = actual.value else { return false }
                for member in members {
                    guard let value = present.last(where: { $0.key == member.key })?.value else {
                        if case .ignoreElement = member.value { continue }
                        return false
                    }
                    if !equal(member.value, value) { return false }
                }
                if !ignoreExtra {
                    let expectedKeys = Set(members.map(\.key))
                    if present.contains(where: { !expectedKeys.contains($0.key) }) { return false }
                }
                return true
            case .array(let elements):
                guard case .array(let items) = actual.value else { return false }
                if ignoreExtra ? items.count < elements.count : items.count != elements.count { return false }
                if !ignoreArrayOrder {
                    for (e, a) in zip(elements, items) where !equal(e, a) { return false }
                    return true
                }
                return unorderedMatch(elements, items)
            }
        }

        /// Each expected element paired with a distinct actual one (Kuhn's augmenting paths;
        /// placeholders can make a greedy pairing fail where a pairing exists).
        private mutating func unorderedMatch(_ expected: [JSONExpectation.Node], _ actual: [JSONNode]) -> Bool {
            var owner = [Int](repeating: -1, count: actual.count)
            for e in expected.indices {
                var visited = [Bool](repeating: false, count: actual.count)
                if !augment(e, expected, actual, &owner, &visited) { return false }
                if budget <= 0 { return false }
            }
            return true
        }

        private mutating func augment(
            _ e: Int,
            _ expected: [JSONExpectation.Node],
            _ actual: [JSONNode],
            _ owner: inout [Int],
            _ visited: inout [Bool]
        ) -> Bool {
            for a in actual.indices where !visited[a] {
                guard budget > 0 else { return false }
                guard equal(expected[e], actual[a]) else { continue }
                visited[a] = true
                if owner[a] == -1 || augment(owner[a], expected, actual, &owner, &visited) {
                    owner[a] = e
                    return true
                }
            }
            return false
        }
    }
}
