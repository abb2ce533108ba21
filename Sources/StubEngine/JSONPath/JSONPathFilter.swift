/// A filter, `[?(...)]`: relations between paths (`@.price`, `$.limit`) and literals, joined by
/// `&&`, `||` and `!`. Semantics follow Jayway: a number and a numeric string compare as
/// numbers; `<` and friends compare numbers with numbers and strings with strings; a relation
/// over a missing value is false, and `!=` is the negation of `==`.
indirect enum JSONPathFilter: Sendable {
    case or(JSONPathFilter, JSONPathFilter)
    case and(JSONPathFilter, JSONPathFilter)
    case not(JSONPathFilter)
    /// `[?(@.isbn)]`: the path names something.
    case exists(Operand)
    case compare(Operand, Operator, Operand)

    enum Operand: Sendable {
        /// `@...` (relative to the candidate) or `$...` (the document).
        case path(JSONPath, absolute: Bool)
        case literal(JSONNode)
        case regex(CompiledRegex)
    }

    enum Operator: Sendable, Equatable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual, matches
        case `in`, notIn, subsetOf, anyOf, noneOf, size, empty, contains

        /// Longest first, so `<=` is not read as `<`.
        static let spellings: [(String, Operator)] = [
            ("==", .equal), ("!=", .notEqual), ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("=~", .matches),
            ("<", .less), (">", .greater), ("subsetof", .subsetOf), ("anyof", .anyOf), ("noneof", .noneOf),
            ("contains", .contains), ("empty", .empty), ("size", .size), ("nin", .notIn), ("in", .in),
        ]
    }
}

extension JSONPathFilter {
    /// Whether `candidate` (an array element, or an object the filter is applied to) passes.
    func holds(for candidate: JSONNode, evaluator: inout JSONPathEvaluator) -> Bool {
        switch self {
        case .or(let a, let b): return a.holds(for: candidate, evaluator: &evaluator) || b.holds(for: candidate, evaluator: &evaluator)
        case .and(let a, let b): return a.holds(for: candidate, evaluator: &evaluator) && b.holds(for: candidate, evaluator: &evaluator)
        case .not(let inner): return !inner.holds(for: candidate, evaluator: &evaluator)
        case .exists(let operand): return value(of: operand, candidate, &evaluator) != nil
        case .compare(let left, let op, let right):
            if op == .notEqual {
                return !JSONPathFilter.compare(left, .equal, right).holds(for: candidate, evaluator: &evaluator)
            }
            guard let l = value(of: left, candidate, &evaluator) else { return false }
            if case .regex(let regex) = right {
                guard case .string(let s) = l.value else { return false }
                return regex.matchesWhole(s)
            }
            guard let r = value(of: right, candidate, &evaluator) else { return false }
            return Self.relate(l, op, r)
        }
    }

    private func value(of operand: Operand, _ candidate: JSONNode, _ evaluator: inout JSONPathEvaluator) -> JSONNode? {
        switch operand {
        case .literal(let node): return node
        case .regex: return nil
        case .path(let path, let absolute):
            let start = absolute ? evaluator.root : candidate
            let nodes = evaluator.select(path.segments, from: [start])
            if let function = path.function {
                return evaluator.apply(function, to: nodes, definite: path.segments.allSatisfy(\.isDefinite))
            }
            if path.isDefinite { return nodes.first }
            return .array(nodes)
        }
    }

    static func relate(_ l: JSONNode, _ op: Operator, _ r: JSONNode) -> Bool {
        switch op {
        case .equal: return loosely(l, equals: r)
        case .notEqual: return !loosely(l, equals: r)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order: Int
            if let a = l.number?.value, let b = r.number?.value {
                order = a < b ? -1 : (a > b ? 1 : 0)
            } else if let a = l.string, let b = r.string {
                order = a < b ? -1 : (a > b ? 1 : 0)
            } else {
                return false
            }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .in: return r.elements?.contains { loosely(l, equals: $0) } ?? false
        case .notIn: return !(r.elements?.contains { loosely(l, equals: $0) } ?? false)
        case .subsetOf:
            guard let left = l.elements, let right = r.elements else { return false }
            return left.allSatisfy { item in right.contains { loosely(item, equals: $0) } }
        case .anyOf:
            guard let left = l.elements, let right = r.elements else { return false }
            return left.contains { item in right.contains { loosely(item, equals: $0) } }
        case .noneOf:
            guard let left = l.elements, let right = r.elements else { return false }
            return !left.contains { item in right.contains { loosely(item, equals: $0) } }
        case .size:
            guard let expected = r.number?.value else { return false }
            if let s = l.string { return Double(s.count) == expected }
            if let e = l.elements { return Double(e.count) == expected }
            return false
        case .empty:
            guard let expected = r.bool else { return false }
            if let s = l.string { return s.isEmpty == expected }
            if let e = l.elements { return e.isEmpty == expected }
            return false
        case .contains:
            if let s = l.string, let part = r.string { return s.contains(part) }
            if let e = l.elements { return e.contains { loosely($0, equals: r) } }
            return false
        case .matches:
            return false
        }
    }

    /// Jayway's equality: a number equals a string that reads as the same number.
    static func loosely(_ a: JSONNode, equals b: JSONNode) -> Bool {
        switch (a.value, b.value) {
        case (.number(let n), .string(let s)), (.string(let s), .number(let n)):
            guard let value = Double(s) else { return false }
            return value == n.value
        default:
            return a.equals(b)
        }
    }
}
