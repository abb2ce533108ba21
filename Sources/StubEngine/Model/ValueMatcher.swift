import RegularExpressions
/// A condition on one string (a header, a query parameter, the host, a form field).
package struct ValueMatcher: Sendable {
    package enum Kind: Sendable {
        case equals(String)
        case contains(String)
        case matches(CompiledRegex)
        case present
        case absent
    }

    package let kind: Kind
    package let caseInsensitive: Bool

    package init(_ kind: Kind, caseInsensitive: Bool = false) {
        self.kind = kind
        self.caseInsensitive = caseInsensitive
        switch kind {
        case .equals(let s): foldedOperand = caseInsensitive ? s.lowercased() : s
        case .contains(let s): foldedOperand = caseInsensitive ? s.lowercased() : s
        default: foldedOperand = ""
        }
    }

    /// The operand lowercased once at load when the comparison ignores case.
    private let foldedOperand: String

    /// Whether the values a request carries for this name satisfy the matcher.
    /// A repeated name matches when any value does; `absent` holds only when there is none.
    package func matches(_ values: [String]) -> Bool {
        switch kind {
        case .present: return !values.isEmpty
        case .absent: return values.isEmpty
        default: return values.contains { matches($0) }
        }
    }

    package func matches(_ value: String) -> Bool {
        switch kind {
        case .equals:
            return caseInsensitive ? value.lowercased() == foldedOperand : value == foldedOperand
        case .contains:
            if foldedOperand.isEmpty { return true }
            return (caseInsensitive ? value.lowercased() : value).contains(foldedOperand)
        case .matches(let regex):
            return regex.matchesWhole(value)
        case .present:
            return true
        case .absent:
            return false
        }
    }

    /// How the expectation reads in a near-miss report.
    package var description: String {
        let suffix = caseInsensitive ? " (ignoring case)" : ""
        switch kind {
        case .equals(let s): return "\"\(s)\"\(suffix)"
        case .contains(let s): return "contains \"\(s)\"\(suffix)"
        case .matches(let r): return "matches /\(r.pattern)/\(suffix)"
        case .present: return "present"
        case .absent: return "absent"
        }
    }
}
