import JSON
import StubEngine
import SystemSupport

/// The JSON body conditions: a `json` pattern (values written as is, matcher objects anywhere)
/// and `jsonPointer` (RFC 6901 pointers to patterns). See `JSONCondition` for what they mean.
enum JSONConditionDecoder {
    static let matcherKeys = StubFormat.jsonMatcherKeys
    static let textOperators = ["equals", "contains", "matches", "present", "absent"]
    static let numberOperators = ["greaterThan", "atLeast", "lessThan", "atMost"]

    /// An object whose keys are all matcher keys (at least one) is a matcher; any other object
    /// is a literal that expects its keys. Inside a pattern every key is data, so `_comment`
    /// makes an object a literal.
    static func isMatcher(_ node: JSONNode) -> Bool {
        guard let members = node.members, !members.isEmpty else { return false }
        return members.allSatisfy { matcherKeys.contains($0.key) }
    }

    /// `isMember`: the value is an object's member (or what a pointer selects), the one kind of
    /// place that may hold nothing, so the only one where `absent` can hold.
    static func decodePattern(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        isMember: Bool = false
    ) -> JSONCondition? {
        switch node.value {
        case .object(let members):
            if isMatcher(node) {
                guard let matcher = decodeMatcher(&c, node, path) else { return nil }
                if case .absent = matcher.kind, !isMember {
                    c.warning(
                        path,
                        node.position,
                        """
                        \"absent\" holds only for a member an object lacks; here there is always a value, so \
                        this never matches
                        """
                    )
                }
                return .matcher(matcher)
            }
            if members.count == 1, let key = members.first?.key,
                let suggestion = Suggestion.closest(to: key, among: matcherKeys)
            {
                c.warning(
                    path + DecodingContext.pathComponent(key),
                    members[0].keyPosition,
                    "\"\(key)\" is matched as a key of the body; did you mean the matcher \"\(suggestion)\"?"
                )
            }
            var conditions: [(key: String, condition: JSONCondition)] = []
            var complete = true
            for member in members {
                if let condition = decodePattern(
                    &c,
                    member.value,
                    path + DecodingContext.pathComponent(member.key),
                    isMember: true
                ) {
                    conditions.append((member.key, condition))
                } else {
                    complete = false
                }
            }
            return complete ? .object(conditions) : nil
        case .array(let elements):
            var conditions: [JSONCondition] = []
            for (i, element) in elements.enumerated() {
                guard let condition = decodePattern(&c, element, "\(path)[\(i)]") else { return nil }
                conditions.append(condition)
            }
            return .array(conditions)
        default:
            return .literal(node)
        }
    }

    static func decodeMatcher(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> JSONValueMatcher? {
        let operators = matcherKeys.filter { $0 != "caseInsensitive" && node[$0] != nil }
        if operators.contains(where: numberOperators.contains) {
            return decodeNumberMatcher(&c, node, path, operators)
        }
        guard operators.count == 1, let op = operators.first, let operand = node[op] else {
            c.error(
                path,
                node,
                operators.isEmpty
                    ? "a matcher needs one of: " + (textOperators + numberOperators).joined(separator: ", ")
                    : """
                    a matcher takes exactly one of \(operators.joined(separator: ", ")) (only a lower and an \
                    upper number bound go together)
                    """
            )
            return nil
        }
        let caseInsensitive = RequestDecoder.decodeCaseInsensitive(&c, node, path)
        if node["caseInsensitive"] != nil,
            op == "present" || op == "absent" || (op == "equals" && operand.string == nil)
        {
            c.error(
                path + ".caseInsensitive",
                node["caseInsensitive"],
                "caseInsensitive applies to a string: equals (of a string), contains and matches"
            )
            return nil
        }
        switch op {
        case "present", "absent":
            guard RequestDecoder.decodePresence(&c, op, operand, path) != nil else { return nil }
            return JSONValueMatcher(op == "present" ? .present : .absent)
        case "equals" where !caseInsensitive:
            return JSONValueMatcher(.equals(operand))
        default:
            return RequestDecoder.decodeTextMatcher(&c, op, operand, path, caseInsensitive: caseInsensitive).map {
                JSONValueMatcher(.text($0))
            }
        }
    }

    /// `greaterThan` or `atLeast`, `lessThan` or `atMost`: one bound or one of each, numbers.
    static func decodeNumberMatcher(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        _ operators: [String]
    ) -> JSONValueMatcher? {
        let others =
            operators.filter { !numberOperators.contains($0) }
            + (node["caseInsensitive"] == nil ? [] : ["caseInsensitive"])
        if let other = others.first {
            c.error(
                path + "." + other,
                node[other],
                """
                \(other) does not go with a number bound \
                (\(operators.filter(numberOperators.contains).joined(separator: ", ")))
                """
            )
            return nil
        }
        if operators.contains("greaterThan") && operators.contains("atLeast")
            || operators.contains("lessThan") && operators.contains("atMost")
        {
            c.error(
                path,
                node,
                """
                a number matcher takes one lower bound (greaterThan or atLeast) and one upper bound (lessThan \
                or atMost)
                """
            )
            return nil
        }
        var bounds: [String: NumberBounds.Bound] = [:]
        for op in operators {
            guard let operand = node[op], let number = operand.number else {
                c.error(path + "." + op, node[op], "expected a number, found \(node[op]?.kindDescription ?? "nothing")")
                return nil
            }
            bounds[op] = NumberBounds.Bound(
                value: number.value,
                text: number.text,
                inclusive: op == "atLeast" || op == "atMost"
            )
        }
        let range = NumberBounds(
            lower: bounds["greaterThan"] ?? bounds["atLeast"],
            upper: bounds["lessThan"] ?? bounds["atMost"]
        )
        if let lower = range.lower, let upper = range.upper,
            lower.value > upper.value || (lower.value == upper.value && !(lower.inclusive && upper.inclusive))
        {
            c.warning(
                path,
                node.position,
                "no number is \(range.description.dropFirst("a number ".count)): this never matches"
            )
        }
        return JSONValueMatcher(.number(range))
    }

    /// `{"/user/name": PATTERN, ...}`: each pointer's value matches its pattern.
    static func decodePointers(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String
    ) -> [(pointer: JSONPointer, condition: JSONCondition)]? {
        guard let members = node.members, !members.isEmpty else {
            c.error(
                path,
                node,
                """
                expected an object of JSON pointer to pattern, such as {\"/user/name\": {\"matches\": \".+\"}}, \
                found \(node.kindDescription)
                """
            )
            return nil
        }
        var entries: [(pointer: JSONPointer, condition: JSONCondition)] = []
        var complete = true
        for member in members {
            let memberPath = path + DecodingContext.pathComponent(member.key)
            guard let pointer = JSONPointer(member.key) else {
                c.problem(
                    StubProblem(
                        .error,
                        file: c.displayPath,
                        position: member.keyPosition,
                        jsonPath: memberPath,
                        message: "\"\(member.key)\": " + (JSONPointer.problem(in: member.key) ?? "not a JSON pointer")
                    )
                )
                complete = false
                continue
            }
            // A pointer selects one place, which may hold nothing: "absent" makes sense there.
            if let condition = decodePattern(&c, member.value, memberPath, isMember: !pointer.tokens.isEmpty) {
                entries.append((pointer, condition))
            } else {
                complete = false
            }
        }
        return complete ? entries : nil
    }
}
