import JSON
import RegularExpressions
/// A filter, `[?(...)]`: relations between paths (`@.price`, `$.limit`), literals and regular
/// expressions, joined by `&&`, `||` and `!`. Semantics follow Jayway's evaluators: a relation
/// over a missing value is false (so `!=` over one is true: it is the negation of `==`); a
/// number equals a string that reads as the same decimal, and a string equals a number written
/// the same way; `<` and friends compare numbers with numbers and strings with strings; `=~`
/// reads numbers and booleans as their text, anything else as "", and holds for an array when
/// it holds for an element; `subsetof`, `anyof`, `noneof` and `empty` on a value that is not a
/// list (or with no boolean) abandon the whole evaluation, as Jayway throws there.
indirect enum JSONPathFilter: Sendable {
    case or(JSONPathFilter, JSONPathFilter)
    case and(JSONPathFilter, JSONPathFilter)
    case not(JSONPathFilter)
    /// `[?(@.isbn)]`: the path names something (null counts).
    case exists(Operand)
    case compare(Operand, Operator, Operand)

    enum Operand: Sendable {
        /// `@...` (relative to the candidate) or `$...` (the document).
        case path(JSONPath, absolute: Bool)
        case literal(JSONNode)
        case regex(CompiledRegex)
    }

    enum Operator: Sendable, Equatable {
        case equal, notEqual, typeSafeEqual, typeSafeNotEqual, less, lessOrEqual, greater, greaterOrEqual, matches
        case `in`, notIn, subsetOf, anyOf, noneOf, size, empty, contains

        /// Longest first, so `<=` is not read as `<`, nor `===` as `==`.
        static let spellings: [(String, Operator)] = [
            ("===", .typeSafeEqual), ("!==", .typeSafeNotEqual),
            ("==", .equal), ("!=", .notEqual), ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("=~", .matches),
            ("<", .less), (">", .greater), ("subsetof", .subsetOf), ("anyof", .anyOf), ("noneof", .noneOf),
            ("contains", .contains), ("empty", .empty), ("size", .size), ("nin", .notIn), ("in", .in),
        ]
    }

    /// One side of a relation once evaluated: nothing (a missing value), a JSON value, or a
    /// regular expression.
    enum Value {
        case undefined
        case json(JSONNode)
        case regex(CompiledRegex)

        var node: JSONNode? { if case .json(let node) = self { node } else { nil } }
    }
}

extension JSONPathFilter {
    /// Whether `candidate` (an array element, or an object the filter is applied to) passes.
    func holds(for candidate: JSONNode, evaluator: inout JSONPathEvaluator) -> Bool {
        if evaluator.failed { return false }
        switch self {
        case .or(let a, let b):
            return a.holds(for: candidate, evaluator: &evaluator) || b.holds(for: candidate, evaluator: &evaluator)
        case .and(let a, let b):
            return a.holds(for: candidate, evaluator: &evaluator) && b.holds(for: candidate, evaluator: &evaluator)
        case .not(let inner):
            return RegexBudget.negation { inner.holds(for: candidate, evaluator: &evaluator) }
        case .exists(let operand):
            return value(of: operand, candidate, &evaluator).node != nil
        case .compare(let left, let op, let right):
            let l = value(of: left, candidate, &evaluator)
            let r = value(of: right, candidate, &evaluator)
            guard let result = Self.relate(l, op, r) else {
                evaluator.failed = true
                return false
            }
            return result
        }
    }

    private func value(of operand: Operand, _ candidate: JSONNode, _ evaluator: inout JSONPathEvaluator) -> Value {
        switch operand {
        case .literal(let node): return .json(node)
        case .regex(let regex): return .regex(regex)
        case .path(let path, let absolute):
            let nodes = evaluator.select(path.segments, from: [absolute ? evaluator.root : candidate])
            if path.isDefinite { return nodes.first.map(Value.json) ?? .undefined }
            return .json(.array(nodes))
        }
    }

    /// The relation's truth, or nil where Jayway throws (the evaluation is abandoned).
    static func relate(_ l: Value, _ op: Operator, _ r: Value) -> Bool? {
        switch op {
        case .equal: return equals(l, r)
        case .notEqual: return !equals(l, r)
        case .typeSafeEqual: return sameKind(l, r) && equals(l, r)
        case .typeSafeNotEqual: return !(sameKind(l, r) && equals(l, r))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let order = order(l, r) else { return false }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .matches: return matches(l, r)
        case .in: return r.node?.elements?.contains { equals(l, .json($0)) } ?? false
        case .notIn: return !(r.node?.elements?.contains { equals(l, .json($0)) } ?? false)
        case .subsetOf, .anyOf, .noneOf: return setRelation(l, op, r)
        case .size:
            guard let expected = r.node?.number?.value else { return false }
            switch l.node?.value {
            case .string(let s)?: return s.utf16.count == Int(expected)
            case .array(let elements)?: return elements.count == Int(expected)
            case .object?: return Int(expected) == -1
            default: return false
            }
        case .empty:
            switch l.node?.value {
            case .string(let s)?:
                guard let expected = r.node?.bool else { return nil }
                return s.isEmpty == expected
            case .array(let elements)?:
                guard let expected = r.node?.bool else { return nil }
                return elements.isEmpty == expected
            case .object(let members)?:
                guard let expected = r.node?.bool else { return nil }
                return members.isEmpty == expected
            default: return false
            }
        case .contains:
            if let s = l.node?.string, let part = r.node?.string { return s.contains(part) }
            if let elements = l.node?.elements { return elements.contains { equals(r, .json($0)) } }
            return false
        }
    }

    /// `subsetof`, `anyof`, `noneof`: both sides lists. A right side that is not one is false; a
    /// left side that is not a JSON container (a string, a number, nothing) makes Jayway throw.
    private static func setRelation(_ l: Value, _ op: Operator, _ r: Value) -> Bool? {
        guard let rightNode = r.node, rightNode.elements != nil || rightNode.members != nil else { return nil }
        guard let right = rightNode.elements else { return false }
        guard let leftNode = l.node, leftNode.elements != nil || leftNode.members != nil else { return nil }
        guard let left = leftNode.elements else { return false }
        let shared = { (item: JSONNode) in right.contains { equals(.json(item), .json($0)) } }
        switch op {
        case .subsetOf: return left.allSatisfy(shared)
        case .anyOf: return left.contains(where: shared)
        default: return !left.contains(where: shared)
        }
    }

    /// Jayway's `==`: nothing equals nothing; numbers by value; a number on the left equals a
    /// string that reads as the same decimal, a string on the left a number written the same.
    static func equals(_ l: Value, _ r: Value) -> Bool {
        guard let a = l.node, let b = r.node else { return false }
        switch (a.value, b.value) {
        case (.number(let n), .string(let s)):
            guard let value = decimalValue(s) else { return false }
            return value == n.value
        case (.string(let s), .number(let n)):
            return s == n.text
        default:
            return a.equals(b)
        }
    }

    private static func sameKind(_ l: Value, _ r: Value) -> Bool {
        switch (l.node?.value, r.node?.value) {
        case (.null?, .null?), (.bool?, .bool?), (.number?, .number?), (.string?, .string?): return true
        case (.array?, .array?), (.object?, .object?), (.array?, .object?), (.object?, .array?): return true
        default: return false
        }
    }

    /// Numbers with numbers, strings with strings (by UTF-16 code units, as Java compares).
    private static func order(_ l: Value, _ r: Value) -> Int? {
        switch (l.node?.value, r.node?.value) {
        case (.number(let a)?, .number(let b)?):
            return a.value < b.value ? -1 : (a.value > b.value ? 1 : 0)
        case (.string(let a)?, .string(let b)?):
            if a == b { return 0 }
            return a.utf16.lexicographicallyPrecedes(b.utf16) ? -1 : 1
        default:
            return nil
        }
    }

    private static func matches(_ l: Value, _ r: Value) -> Bool {
        let regex: CompiledRegex
        let subject: Value
        switch (l, r) {
        case (.regex, .regex): return false
        case (.regex(let x), _): (regex, subject) = (x, r)
        case (_, .regex(let x)): (regex, subject) = (x, l)
        default: return false
        }
        if let elements = subject.node?.elements {
            return elements.contains { regex.matchesWhole(regexInput($0)) }
        }
        return regex.matchesWhole(subject.node.map(regexInput) ?? "")
    }

    /// What `=~` reads: a string, a number's text, true or false; "" for anything else.
    private static func regexInput(_ node: JSONNode) -> String {
        switch node.value {
        case .string(let s): return s
        case .number(let n): return n.text
        case .bool(let b): return b ? "true" : "false"
        default: return ""
        }
    }

    /// A string as Java's `BigDecimal` reads it: sign, digits with one optional point, optional
    /// exponent; nothing else (no spaces, no "NaN", no hexadecimal).
    static func decimalValue(_ s: String) -> Double? {
        var digits = 0
        var sawPoint = false
        var scalars = s.unicodeScalars[...]
        if let first = scalars.first, first == "+" || first == "-" { scalars = scalars.dropFirst() }
        while let c = scalars.first, ("0"..."9").contains(c) || (c == "." && !sawPoint) {
            if c == "." { sawPoint = true } else { digits += 1 }
            scalars = scalars.dropFirst()
        }
        guard digits > 0 else { return nil }
        if let e = scalars.first, e == "e" || e == "E" {
            scalars = scalars.dropFirst()
            if let sign = scalars.first, sign == "+" || sign == "-" { scalars = scalars.dropFirst() }
            guard let d = scalars.first, ("0"..."9").contains(d) else { return nil }
            while let c = scalars.first, ("0"..."9").contains(c) { scalars = scalars.dropFirst() }
        }
        guard scalars.isEmpty else { return nil }
        return Double(s)
    }
}
