#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import RegularExpressions
import StubEngine

/// The request conditions of a stub: method, path (see `PathDecoder`), host, query, headers,
/// body, and the string matchers they use.
package enum RequestDecoder {
    static let requestKeys = StubFormat.requestKeys
    static let matcherKeys = StubFormat.matcherKeys
    static let bodyMatcherKeys = StubFormat.bodyMatcherKeys

    static func decodeRequest(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> RequestPattern? {
        guard c.checkKeys(node, path, allowed: Self.requestKeys, what: "the request conditions") else { return nil }
        var methods: [String]?
        if let m = node["method"] { methods = decodeMethods(&c, m, path + ".method") }
        var pathPattern: PathPattern?
        if let p = node["path"], let q = node["pathPattern"] {
            _ = p
            c.error(path + ".pathPattern", q, "use either \"path\" or \"pathPattern\", not both")
        } else if let p = node["path"] {
            pathPattern = PathDecoder.decodePath(&c, p, path + ".path")
        } else if let q = node["pathPattern"] {
            if let source = q.string {
                pathPattern = compileRegex(&c, source, q, path + ".pathPattern").map { .regex($0) }
            } else {
                c.error(
                    path + ".pathPattern",
                    q,
                    "expected a regular expression as a string, found \(q.kindDescription)"
                )
            }
        }
        let host = node["host"].flatMap { decodeMatcher(&c, $0, path + ".host") }
        let query = node["query"].map { decodeMatcherMap(&c, $0, path + ".query", what: "query parameters") } ?? []
        let headers = node["headers"].map { decodeMatcherMap(&c, $0, path + ".headers", what: "request headers") } ?? []
        for (name, _) in headers where !DecodingContext.isToken(name) {
            c.error(
                path + ".headers" + DecodingContext.pathComponent(name),
                node["headers"],
                "\"\(name)\" is not a valid header name"
            )
        }
        let body = node["body"].flatMap { decodeBodyMatcher(&c, $0, path + ".body") }
        let rawQuery = node["rawQuery"].flatMap { decodeMatcher(&c, $0, path + ".rawQuery") }
        let conditions: [any RequestCondition] = rawQuery.map { [RawQueryCondition(matcher: $0)] } ?? []
        return RequestPattern(
            methods: methods,
            path: pathPattern,
            host: host,
            query: query,
            headers: headers,
            body: body,
            conditions: conditions
        )
    }

    static func decodeMethods(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> [String]? {
        if let s = node.string {
            if s == "ANY" { return nil }
            guard DecodingContext.isToken(s) else {
                c.error(path, node, "\"\(s)\" is not an HTTP method (a token such as GET or POST)")
                return nil
            }
            if s != s.uppercased(),
                ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].contains(s.uppercased())
            {
                c.warning(
                    path,
                    node.position,
                    "methods are case-sensitive: \"\(s)\" will not match \(s.uppercased()) requests"
                )
            }
            return [s]
        }
        if let elements = node.elements, !elements.isEmpty {
            var methods: [String] = []
            for (i, element) in elements.enumerated() {
                guard let s = element.string, DecodingContext.isToken(s), s != "ANY" else {
                    c.error(
                        "\(path)[\(i)]",
                        element,
                        "expected an HTTP method such as \"GET\", found \(element.kindDescription)"
                    )
                    continue
                }
                methods.append(s)
            }
            return methods
        }
        c.error(
            path,
            node,
            """
            expected a method (\"GET\"), an array of methods ([\"GET\", \"HEAD\"]) or \"ANY\", found \
            \(node.kindDescription)
            """
        )
        return nil
    }

    static func compileRegex(
        _ c: inout DecodingContext,
        _ source: String,
        _ node: JSONNode,
        _ path: String,
        caseInsensitive: Bool = false
    ) -> CompiledRegex? {
        do {
            let regex = try CompiledRegex(source, caseInsensitive: caseInsensitive)
            if let construct = regex.backtrackingConstructs.first {
                // Allowed: the budget bounds what a request can cost. Said, because such a
                // pattern can give up where the linear engine never does.
                c.warning(
                    path,
                    node.position,
                    "regular expression \"\(source)\" uses a \(construct.name) "
                        + "(at character \(construct.offset)), which needs the backtracking engine: "
                        + "a match that takes more than \(regex.budget) steps gives up, counts as no match "
                        + "and is journaled as aborted"
                )
            }
            return regex
        } catch let syntax as RegexSyntaxError {
            c.error(
                path,
                node,
                "invalid regular expression \"\(source)\": \(syntax.message) (at character \(syntax.offset))"
            )
            return nil
        } catch {
            c.error(path, node, "invalid regular expression \"\(source)\": \(error)")
            return nil
        }
    }

    static func decodeMatcherMap(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        what: String
    ) -> [(name: String, matcher: ValueMatcher)] {
        guard let members = node.members else {
            c.error(path, node, "expected an object of \(what), name to matcher, found \(node.kindDescription)")
            return []
        }
        var result: [(name: String, matcher: ValueMatcher)] = []
        // Names here are data (a query parameter may well start with "_"), not comments.
        for member in members {
            if let matcher = decodeMatcher(&c, member.value, path + DecodingContext.pathComponent(member.key)) {
                result.append((member.key, matcher))
            }
        }
        return result
    }

    /// A string (exact) or an object with exactly one of the matcher keys.
    static func decodeMatcher(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> ValueMatcher? {
        if let s = node.string { return ValueMatcher(.equals(s)) }
        guard node.members != nil else {
            c.error(
                path,
                node,
                "expected a string or a matcher such as {\"contains\": \"json\"}, found \(node.kindDescription)"
            )
            return nil
        }
        guard c.checkKeys(node, path, allowed: Self.matcherKeys, what: "a matcher") else { return nil }
        let caseInsensitive = decodeCaseInsensitive(&c, node, path)
        let operators = Self.matcherKeys.filter { $0 != "caseInsensitive" && node[$0] != nil }
        guard operators.count == 1, let op = operators.first, let operand = node[op] else {
            c.error(
                path,
                node,
                operators.isEmpty
                    ? "a matcher needs one of: equals, contains, matches, present, absent"
                    : """
                    a matcher takes exactly one of \(operators.joined(separator: ", ")); split it into separate \
                    stubs or use \"matches\"
                    """
            )
            return nil
        }
        switch op {
        case "present", "absent": return decodePresence(&c, op, operand, path).map { ValueMatcher($0) }
        default: return decodeTextMatcher(&c, op, operand, path, caseInsensitive: caseInsensitive)
        }
    }

    /// `"present": true` or `"absent": true`; any other operand is an error.
    static func decodePresence(
        _ c: inout DecodingContext,
        _ op: String,
        _ operand: JSONNode,
        _ path: String
    ) -> ValueMatcher.Kind? {
        guard operand.bool == true else {
            c.error(
                path + "." + op,
                operand,
                """
                expected true, found \(operand.kindDescription); use \(op == "present" ? "absent" : "present"): \
                true for the opposite
                """
            )
            return nil
        }
        return op == "present" ? .present : .absent
    }

    /// `equals`, `contains` or `matches` of a string (a regular expression compiled now).
    static func decodeTextMatcher(
        _ c: inout DecodingContext,
        _ op: String,
        _ operand: JSONNode,
        _ path: String,
        caseInsensitive: Bool
    ) -> ValueMatcher? {
        guard let s = operand.string else {
            c.error(path + "." + op, operand, "expected a string, found \(operand.kindDescription)")
            return nil
        }
        switch op {
        case "equals": return ValueMatcher(.equals(s), caseInsensitive: caseInsensitive)
        case "contains": return ValueMatcher(.contains(s), caseInsensitive: caseInsensitive)
        default:
            return compileRegex(&c, s, operand, path + ".matches", caseInsensitive: caseInsensitive)
                .map { ValueMatcher(.matches($0), caseInsensitive: caseInsensitive) }
        }
    }

    static func decodeCaseInsensitive(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> Bool {
        guard let flag = node["caseInsensitive"] else { return false }
        guard let b = flag.bool else {
            c.error(path + ".caseInsensitive", flag, "expected true or false, found \(flag.kindDescription)")
            return false
        }
        return b
    }

    static func decodeBodyMatcher(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> BodyMatcher? {
        guard node.members != nil else {
            c.error(
                path,
                node,
                """
                expected a body matcher such as {\"json\": {...}} or {\"contains\": \"text\"}, found \
                \(node.kindDescription)
                """
            )
            return nil
        }
        guard c.checkKeys(node, path, allowed: Self.bodyMatcherKeys, what: "a body matcher") else { return nil }
        let operators = Self.bodyMatcherKeys.filter { $0 != "caseInsensitive" && node[$0] != nil }
        guard operators.count == 1, let op = operators.first, let operand = node[op] else {
            c.error(
                path,
                node,
                operators.isEmpty
                    ? "a body matcher needs one of: "
                        + Self.bodyMatcherKeys.filter { $0 != "caseInsensitive" }.joined(separator: ", ")
                    : "a body matcher takes exactly one of \(operators.joined(separator: ", "))"
            )
            return nil
        }
        switch op {
        case "json", "jsonEquals", "jsonPointer":
            if node["caseInsensitive"] != nil {
                c.error(
                    path + ".caseInsensitive",
                    node["caseInsensitive"],
                    "caseInsensitive applies to equals, contains and matches, not to \(op); put it on a matcher inside"
                )
            }
            switch op {
            case "json": return JSONConditionDecoder.decodePattern(&c, operand, path + ".json").map { .json($0) }
            case "jsonPointer":
                return JSONConditionDecoder.decodePointers(&c, operand, path + ".jsonPointer").map { .jsonPointer($0) }
            default: return .jsonEquals(operand)
            }
        case "form":
            if node["caseInsensitive"] != nil {
                c.error(
                    path + ".caseInsensitive",
                    node["caseInsensitive"],
                    "put caseInsensitive on each field's matcher inside \"form\""
                )
            }
            return .form(decodeMatcherMap(&c, operand, path + ".form", what: "form fields"))
        case "multipart":
            if node["caseInsensitive"] != nil {
                c.error(
                    path + ".caseInsensitive",
                    node["caseInsensitive"],
                    "put caseInsensitive on each matcher inside \"multipart\""
                )
            }
            return MultipartDecoder.decode(&c, operand, path + ".multipart").map { .multipart($0) }
        default:
            var textNode: [JSONNode.Member] = [JSONNode.Member(key: op, keyPosition: node.position, value: operand)]
            if let flag = node["caseInsensitive"] {
                textNode.append(JSONNode.Member(key: "caseInsensitive", keyPosition: flag.position, value: flag))
            }
            return decodeMatcher(&c, JSONNode(.object(textNode), at: node.position), path).map { .text($0) }
        }
    }
}
