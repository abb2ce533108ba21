import JSON

/// Matching a JSON value against a `JSONCondition`, and saying where it first differs.
extension JSONCondition {
    /// Whether `value` (nil: there is no value at this place) meets the condition.
    package func holds(for value: JSONNode?) -> Bool {
        switch self {
        case .matcher(let matcher):
            return matcher.holds(for: value)
        case .literal(let expected):
            return value?.equals(expected) ?? false
        case .object(let members):
            guard case .object(let actual)? = value?.value else { return false }
            return members.allSatisfy { member in
                member.condition.holds(for: actual.last { $0.key == member.key }?.value)
            }
        case .array(let elements):
            guard case .array(let actual)? = value?.value, actual.count == elements.count else { return false }
            return zip(elements, actual).allSatisfy { $0.holds(for: $1) }
        }
    }

    /// Where a value first departs from the condition, so a near-miss report can say
    /// `body.user.name: expected "a", got "b"` instead of printing both documents. `path` is the
    /// place of `value`, written in `style` (`$.items[2]`, or `/items/2` below a pointer); nil
    /// when the condition holds.
    package func firstDifference(
        for value: JSONNode?,
        at path: String,
        style: JSONDifference.PathStyle = .jsonPath
    ) -> JSONDifference? {
        switch self {
        case .matcher(let matcher):
            return matcher.holds(for: value)
                ? nil : JSONDifference(path: path, expected: matcher.description, actual: Self.describe(value))
        case .literal(let expected):
            return value?.equals(expected) == true
                ? nil
                : JSONDifference(path: path, expected: JSONSerializer.string(expected), actual: Self.describe(value))
        case .object(let members):
            guard case .object(let actual)? = value?.value else {
                return JSONDifference(path: path, expected: "an object", actual: Self.describe(value))
            }
            for member in members {
                let child = actual.last { $0.key == member.key }?.value
                if let found = member.condition.firstDifference(
                    for: child,
                    at: style.member(member.key, of: path),
                    style: style
                ) {
                    return found
                }
            }
            return nil
        case .array(let elements):
            guard case .array(let actual)? = value?.value else {
                return JSONDifference(path: path, expected: "an array", actual: Self.describe(value))
            }
            guard actual.count == elements.count else {
                return JSONDifference(
                    path: path,
                    expected: "an array of \(elements.count)",
                    actual: "an array of \(actual.count)"
                )
            }
            for (i, (condition, element)) in zip(elements, actual).enumerated() {
                if let found = condition.firstDifference(for: element, at: style.element(i, of: path), style: style) {
                    return found
                }
            }
            return nil
        }
    }

    /// The value as a report shows it: `absent`, or its JSON (cut when long).
    static func describe(_ value: JSONNode?) -> String {
        guard let value else { return "absent" }
        return RequestMatcher.excerpt(JSONSerializer.string(value))
    }

    /// The pattern as JSON, as the stub wrote it (for near-miss reports of a whole body).
    package var summary: String {
        switch self {
        case .literal(let node): JSONSerializer.string(node)
        case .matcher(let matcher): matcher.description
        case .object(let members):
            "{" + members.map { JSONSerializer.quoted($0.key) + ": " + $0.condition.summary }.joined(separator: ", ")
                + "}"
        case .array(let elements): "[" + elements.map(\.summary).joined(separator: ", ") + "]"
        }
    }
}

/// Where a JSON value first departs from a condition: its path, and expected against actual.
package struct JSONDifference: Sendable, Equatable {
    package let path: String
    package let expected: String
    package let actual: String

    /// How a place in a document is written: the JSON path of `json` patterns and error
    /// messages (`$.items[2].id`), or a pointer, below a `jsonPointer` condition (`/items/2/id`).
    package enum PathStyle: Sendable {
        case jsonPath, pointer

        func member(_ key: String, of path: String) -> String {
            switch self {
            case .jsonPath: path + DocumentProblem.pathComponent(key)
            case .pointer: path + "/" + JSONPointer.escape(key)
            }
        }

        func element(_ index: Int, of path: String) -> String {
            switch self {
            case .jsonPath: "\(path)[\(index)]"
            case .pointer: "\(path)/\(index)"
            }
        }
    }
}

extension JSONValueMatcher {
    package func holds(for value: JSONNode?) -> Bool {
        switch kind {
        case .present: return value != nil
        case .absent: return value == nil
        case .equals(let expected): return value?.equals(expected) ?? false
        case .text(let matcher): return value?.string.map(matcher.matches) ?? false
        case .number(let bounds): return value?.number.map { bounds.contains($0.value) } ?? false
        }
    }

    /// How the expectation reads in a near-miss report.
    package var description: String {
        switch kind {
        case .present: "present"
        case .absent: "absent"
        case .equals(let node): JSONSerializer.string(node)
        case .text(let matcher): Self.describe(matcher)
        case .number(let bounds): bounds.description
        }
    }

    private static func describe(_ matcher: ValueMatcher) -> String {
        let suffix = matcher.caseInsensitive ? " (ignoring case)" : ""
        switch matcher.kind {
        case .equals(let s): return "a string equal to \(JSONSerializer.quoted(s))\(suffix)"
        case .contains(let s): return "a string containing \(JSONSerializer.quoted(s))\(suffix)"
        case .matches(let regex): return "a string matching /\(regex.pattern)/\(suffix)"
        case .present, .absent: return matcher.description
        }
    }
}
