#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import JSONPath
import RegularExpressions
import StubEngine

/// Reads WireMock's value matchers (`{"equalTo": "x"}`, `{"matchesJsonPath": {...}}`,
/// `{"and": [...]}`...) into `ContentPattern`s, compiling what they need.
package enum WireMockPatternReader {
    package static let operators =
        [
            "equalTo", "contains", "doesNotContain", "matches", "doesNotMatch", "absent", "equalToJson",
            "matchesJsonPath", "binaryEqualTo", "and", "or", "not", "anything",
        ] + ContentPattern.NumberComparison.allCases.map(\.rawValue)
    /// Operators WireMock has and stubserver refuses, with why.
    package static let unsupportedOperators: [String: String] = [
        "equalToXml": "XML comparison is not implemented",
        "matchesXPath": "XPath is not implemented",
        "matchesJsonSchema": "JSON Schema validation is not implemented",
        "before": "date comparisons are not implemented",
        "after": "date comparisons are not implemented",
        "equalToDateTime": "date comparisons are not implemented",
    ]
    static let modifiers = [
        "caseInsensitive", "ignoreArrayOrder", "ignoreExtraElements", "expression",
        "actualFormat", "truncateExpected", "truncateActual", "enablePlaceholders",
        "placeholderOpeningDelimiterRegex", "placeholderClosingDelimiterRegex", "namespaceAwareness",
        "xPathNamespaces", "schemaVersion",
    ]

    /// A name's pattern where a name may repeat: one pattern, or `hasExactly` / `includes`.
    static func multiValue(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> MultiValuePattern? {
        for key in ["hasExactly", "includes"] {
            guard let list = node[key] else { continue }
            guard let elements = list.elements, !elements.isEmpty else {
                c.error(path + "." + key, list, "expected an array of matchers, such as [{\"equalTo\": \"a\"}]")
                return nil
            }
            let patterns = elements.enumerated().compactMap { pattern(&c, $0.element, "\(path).\(key)[\($0.offset)]") }
            guard patterns.count == elements.count else { return nil }
            return key == "hasExactly" ? .hasExactly(patterns) : .includes(patterns)
        }
        return pattern(&c, node, path).map { .single($0) }
    }

    static func pattern(_ c: inout WireMockContext, _ node: JSONNode, _ path: String, depth: Int = 0) -> ContentPattern?
    {
        guard depth < 32 else {
            c.error(path, node, "matchers are nested too deeply")
            return nil
        }
        guard let members = node.members else {
            c.error(path, node, "expected a matcher such as {\"equalTo\": \"value\"}, found \(node.kindDescription)")
            return nil
        }
        let named = members.filter { operators.contains($0.key) || unsupportedOperators[$0.key] != nil }
        guard named.count == 1, let op = named.first else {
            c.error(
                path,
                node,
                named.isEmpty
                    ? "a matcher needs one of: " + operators.joined(separator: ", ")
                    : "a matcher takes one operator, found " + named.map(\.key).joined(separator: ", ")
                        + "; combine them with \"and\""
            )
            return nil
        }
        for member in members where member.key != op.key && !modifiers.contains(member.key) {
            c.warning(
                path + DocumentProblem.pathComponent(member.key),
                member.keyPosition,
                "unknown key \"\(member.key)\" in a matcher; it is ignored"
            )
        }
        let operand = op.value
        let operandPath = path + "." + op.key
        if let why = unsupportedOperators[op.key] {
            c.warning(
                operandPath,
                op.keyPosition,
                "\"\(op.key)\" is not supported (\(why)); this condition never matches, so the mapping never answers"
            )
            return .unsupported(op.key)
        }
        switch op.key {
        case "equalTo", "contains", "doesNotContain":
            guard let s = WireMockScalars.string(operand) else { return expectedString(&c, operandPath, operand) }
            let caseInsensitive = node["caseInsensitive"].flatMap(WireMockScalars.bool) ?? false
            switch op.key {
            case "equalTo": return .equalTo(caseInsensitive ? s.lowercased() : s, caseInsensitive: caseInsensitive)
            case "contains": return .contains(s)
            default: return .doesNotContain(s)
            }
        case "matches", "doesNotMatch":
            guard let s = operand.string else { return expectedString(&c, operandPath, operand) }
            guard let regex = compile(&c, s, operand, operandPath) else { return nil }
            return op.key == "matches" ? .matches(regex) : .doesNotMatch(regex)
        case "absent":
            guard let flag = WireMockScalars.bool(operand) else {
                c.error(operandPath, operand, "expected true or false, found \(operand.kindDescription)")
                return nil
            }
            // {"absent": false} is WireMock's way to say "present".
            return flag ? .absent : .not(.absent)
        case "anything":
            return .anything
        case "binaryEqualTo":
            guard let s = operand.string, let data = Data(base64Encoded: s) else {
                c.error(operandPath, operand, "expected the bytes as a base64 string")
                return nil
            }
            return .binaryEqualTo(Array(data))
        case "equalToJson":
            return equalToJson(&c, node, operand, operandPath)
        case "matchesJsonPath":
            return jsonPath(&c, operand, operandPath, depth: depth)
        case "and", "or":
            guard let elements = operand.elements, !elements.isEmpty else {
                c.error(operandPath, operand, "expected an array of matchers")
                return nil
            }
            let patterns = elements.enumerated().compactMap {
                pattern(&c, $0.element, "\(operandPath)[\($0.offset)]", depth: depth + 1)
            }
            guard patterns.count == elements.count else { return nil }
            return op.key == "and" ? .and(patterns) : .or(patterns)
        case "not":
            return pattern(&c, operand, operandPath, depth: depth + 1).map { .not($0) }
        default:
            guard let comparison = ContentPattern.NumberComparison(rawValue: op.key),
                let n = WireMockScalars.number(operand)
            else {
                c.error(operandPath, operand, "expected a number, found \(operand.kindDescription)")
                return nil
            }
            return .number(comparison, n)
        }
    }

    private static func expectedString(_ c: inout WireMockContext, _ path: String, _ node: JSONNode) -> ContentPattern?
    {
        c.error(path, node, "expected a string, found \(node.kindDescription)")
        return nil
    }

    /// A regular expression: the linear-time engine, or for Java's look-around, back-references,
    /// atomic groups and possessive quantifiers the backtracking one within its budget
    /// (docs/wiremock.md). Not a warning here: WireMock folders use them as a matter of course.
    static func compile(
        _ c: inout WireMockContext,
        _ source: String,
        _ node: JSONNode,
        _ path: String
    ) -> CompiledRegex? {
        do {
            return try CompiledRegex(source)
        } catch let syntax as RegexSyntaxError {
            c.error(path, node, "regular expression \"\(source)\": \(syntax.message) (at character \(syntax.offset))")
        } catch {
            c.error(path, node, "regular expression \"\(source)\": \(error)")
        }
        return nil
    }

    private static func equalToJson(
        _ c: inout WireMockContext,
        _ node: JSONNode,
        _ operand: JSONNode,
        _ path: String
    ) -> ContentPattern? {
        var document = operand
        if let text = operand.string {
            // A string holds the JSON as text (the form the Java client writes).
            do {
                document = try JSONParser.parse(Array(text.utf8))
            } catch {
                c.error(
                    path,
                    operand,
                    "the JSON in this string does not parse: \(error.message) (at \(error.position) of the string)"
                )
                return nil
            }
        }
        let flags = ["ignoreArrayOrder", "ignoreExtraElements"].map { key -> Bool in
            guard let flag = node[key] else { return false }
            guard let b = WireMockScalars.bool(flag) else {
                c.error(path.replacing(".equalToJson", with: ".\(key)"), flag, "expected true or false")
                return false
            }
            return b
        }
        do {
            return .equalToJson(
                try JSONExpectation(document),
                ignoreArrayOrder: flags[0],
                ignoreExtraElements: flags[1]
            )
        } catch let syntax as RegexSyntaxError {
            c.error(path, operand, "${json-unit.regex}: \(syntax.message) (at character \(syntax.offset))")
        } catch {
            c.error(path, operand, "\(error)")
        }
        return nil
    }

    private static func jsonPath(
        _ c: inout WireMockContext,
        _ operand: JSONNode,
        _ path: String,
        depth: Int
    ) -> ContentPattern? {
        let expressionNode: JSONNode?
        var nested: ContentPattern?
        if operand.string != nil {
            expressionNode = operand
        } else if let members = operand.members {
            expressionNode = operand["expression"]
            let rest = JSONNode(.object(members.filter { $0.key != "expression" }), at: operand.position)
            if rest.members?.isEmpty == false {
                nested = pattern(&c, rest, path, depth: depth + 1)
                if nested == nil { return nil }
            }
        } else {
            expressionNode = nil
        }
        guard let expressionNode, let source = expressionNode.string else {
            c.error(path, operand, "expected a JSONPath (\"$.name\") or {\"expression\": \"$.name\", \"equalTo\": ...}")
            return nil
        }
        do {
            return .matchesJsonPath(try JSONPath(source), nested)
        } catch {
            c.error(path, expressionNode, "JSONPath \"\(source)\": \(error)")
            return nil
        }
    }
}
