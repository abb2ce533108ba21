import JSON

/// A condition on one JSON value: what a `json` body pattern compiles to, and what each entry
/// of a `jsonPointer` condition holds.
///
/// A pattern is written as the JSON it expects, with a matcher object at any place where a
/// literal value will not do (`{"title": {"matches": ".+"}, "age": {"atLeast": 18}}`). An object
/// whose keys are all matcher keys (`equals`, `contains`, `matches`, `present`, `absent`,
/// `greaterThan`, `atLeast`, `lessThan`, `atMost`, and `caseInsensitive`) is a matcher; any other
/// object is a literal that expects those keys. `{"equals": VALUE}` compares VALUE as written,
/// matcher-shaped objects and all: the way to expect a literal `{"present": true}`.
///
/// Compiled at load (regular expressions included) and shared by every request. A way of
/// selecting values other than a pointer (JSONPath, say) can reuse it for each value it selects.
package indirect enum JSONCondition: Sendable {
    /// A scalar written as is: equal by JSON's rules (numbers by value).
    case literal(JSONNode)
    /// Every named member present and matching its condition (or absent, for `absent`); other
    /// members are allowed.
    case object([(key: String, condition: JSONCondition)])
    /// As many elements, each matching the condition at its index.
    case array([JSONCondition])
    case matcher(JSONValueMatcher)
}

/// A matcher object inside a JSON pattern.
package struct JSONValueMatcher: Sendable {
    package enum Kind: Sendable {
        /// `{"equals": VALUE}`: equal to VALUE as written (no matchers inside it).
        case equals(JSONNode)
        /// `contains`, `matches`, and `equals` of a string with `caseInsensitive`: a string
        /// value the matcher holds for.
        case text(ValueMatcher)
        /// There is a value at this place (any value, `null` included).
        case present
        /// There is no value at this place (the object has no member of this name).
        case absent
        /// A number within the bounds.
        case number(NumberBounds)
    }

    package let kind: Kind

    package init(_ kind: Kind) { self.kind = kind }
}

/// `greaterThan` or `atLeast`, and `lessThan` or `atMost`: one bound, or one of each.
package struct NumberBounds: Sendable, Equatable {
    package struct Bound: Sendable, Equatable {
        package let value: Double
        /// The number as written, for reports.
        package let text: String
        package let inclusive: Bool

        package init(value: Double, text: String, inclusive: Bool) {
            self.value = value
            self.text = text
            self.inclusive = inclusive
        }
    }

    package let lower: Bound?
    package let upper: Bound?

    package func contains(_ n: Double) -> Bool {
        if let lower, lower.inclusive ? n < lower.value : n <= lower.value { return false }
        if let upper, upper.inclusive ? n > upper.value : n >= upper.value { return false }
        return true
    }

    /// `a number > 0`, `a number >= 1 and < 10`.
    package var description: String {
        let parts = [
            lower.map { ($0.inclusive ? ">= " : "> ") + $0.text },
            upper.map { ($0.inclusive ? "<= " : "< ") + $0.text },
        ]
        return "a number " + parts.compactMap { $0 }.joined(separator: " and ")
    }

    package init(lower: Bound? = nil, upper: Bound? = nil) {
        self.lower = lower
        self.upper = upper
    }
}
