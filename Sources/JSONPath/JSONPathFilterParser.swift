import JSON
import RegularExpressions
/// The filter part of the parser: `[?(...)]` expressions (`||` over `&&` over `!`, parentheses
/// and relations), their literals (strings in either quotes, numbers, true, false, null, JSON
/// lists and objects) and regular expressions `/.../flags`.
extension JSONPathParser {
    mutating func filterExpression() throws(JSONPathError) -> JSONPathFilter {
        try enter()
        defer { depth -= 1 }
        var left = try andExpression()
        while true {
            skipSpaces()
            guard current == "|", peek() == "|" else { return left }
            index += 2
            left = .or(left, try andExpression())
        }
    }

    private mutating func andExpression() throws(JSONPathError) -> JSONPathFilter {
        var left = try unary()
        while true {
            skipSpaces()
            guard current == "&", peek() == "&" else { return left }
            index += 2
            left = .and(left, try unary())
        }
    }

    private mutating func unary() throws(JSONPathError) -> JSONPathFilter {
        skipSpaces()
        if current == "!", peek() != "=" {
            index += 1
            try enter()
            defer { depth -= 1 }
            return .not(try unary())
        }
        if current == "(" {
            index += 1
            let inner = try filterExpression()
            skipSpaces()
            guard current == ")" else { throw fail("expected )") }
            index += 1
            return inner
        }
        return try relation()
    }

    private mutating func relation() throws(JSONPathError) -> JSONPathFilter {
        let start = index
        let left = try operand()
        skipSpaces()
        guard let op = comparisonOperator() else {
            guard case .path = left else {
                throw fail("expected a comparison such as == after this value", at: start)
            }
            return .exists(left)
        }
        skipSpaces()
        return .compare(left, op, try operand())
    }

    private mutating func comparisonOperator() -> JSONPathFilter.Operator? {
        for (text, op) in JSONPathFilter.Operator.spellings {
            let symbols = Array(text.unicodeScalars)
            guard index + symbols.count <= scalars.count,
                Array(scalars[index..<index + symbols.count]) == symbols
            else { continue }
            // A word operator must stand alone: `@.size` is a path, not `@.` `size`.
            if let after = peek(symbols.count), text.first!.isLetter,
                after.properties.isAlphabetic || ("0"..."9").contains(after)
            {
                continue
            }
            index += symbols.count
            return op
        }
        return nil
    }

    private mutating func operand() throws(JSONPathError) -> JSONPathFilter.Operand {
        skipSpaces()
        guard let c = current else { throw fail("expected a value") }
        switch c {
        case "@", "$":
            try enter()
            defer { depth -= 1 }
            let start = index
            let segments = try parseRelativePath()
            return .path(JSONPath(source: text(from: start), segments: segments), absolute: c == "$")
        case "/":
            return try regexLiteral()
        case "'", "\"", "[", "{":
            return .literal(try jsonLiteral())
        default:
            guard let node = scalarLiteral() else {
                throw fail("expected @, $, a string, a number, true, false, null, a [list] or a /regex/")
            }
            return .literal(node)
        }
    }

    /// A JSON value as Jayway's permissive reader takes it: strings in single or double quotes,
    /// numbers, true, false, null, and lists and objects of these.
    mutating func jsonLiteral() throws(JSONPathError) -> JSONNode {
        skipSpaces()
        switch current {
        case "'"?, "\""?:
            return .string(try quoted())
        case "["?:
            try enter()
            defer { depth -= 1 }
            index += 1
            var elements: [JSONNode] = []
            skipSpaces()
            if current == "]" {
                index += 1
                return .array([])
            }
            while true {
                elements.append(try jsonLiteral())
                skipSpaces()
                if current == "," {
                    index += 1
                    continue
                }
                guard current == "]" else { throw fail("expected , or ] in the list") }
                index += 1
                return .array(elements)
            }
        case "{"?:
            return try objectLiteral()
        default:
            guard let node = scalarLiteral() else {
                throw fail("expected a string, a number, true, false, null, a [list] or an {object}")
            }
            return node
        }
    }

    private mutating func objectLiteral() throws(JSONPathError) -> JSONNode {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSONNode.Member] = []
        skipSpaces()
        if current == "}" {
            index += 1
            return JSONNode(.object([]))
        }
        while true {
            skipSpaces()
            let key = try quoted()
            skipSpaces()
            guard current == ":" else { throw fail("expected : after the name in the object") }
            index += 1
            let value = try jsonLiteral()
            members.append(JSONNode.Member(key: key, keyPosition: value.position, value: value))
            skipSpaces()
            if current == "," {
                index += 1
                continue
            }
            guard current == "}" else { throw fail("expected , or } in the object") }
            index += 1
            return JSONNode(.object(members))
        }
    }

    private mutating func scalarLiteral() -> JSONNode? {
        for (word, node) in [("true", JSONNode.bool(true)), ("false", .bool(false)), ("null", .null)] {
            let symbols = Array(word.unicodeScalars)
            if index + symbols.count <= scalars.count, Array(scalars[index..<index + symbols.count]) == symbols {
                index += symbols.count
                return node
            }
        }
        let start = index
        if current == "-" { index += 1 }
        while let c = current, Self.isNumberScalar(c, after: index > start ? scalars[index - 1] : nil) {
            index += 1
        }
        let text = text(from: start)
        guard index > start, text.count <= 64, let value = Double(text), value.isFinite else {
            index = start
            return nil
        }
        return JSONNode(.number(JSONNumber(text: text, value: value)))
    }

    private static func isNumberScalar(_ c: Unicode.Scalar, after previous: Unicode.Scalar?) -> Bool {
        if ("0"..."9").contains(c) || c == "." || c == "e" || c == "E" { return true }
        return (c == "+" || c == "-") && (previous == "e" || previous == "E")
    }

    /// `/pattern/flags`. Flags as Java's: `i`, `m` and `s` change the match; `d`, `u` and `U`
    /// are accepted and change nothing here (lines end at \n; case folding is Unicode's).
    private mutating func regexLiteral() throws(JSONPathError) -> JSONPathFilter.Operand {
        let start = index
        index += 1
        var text = String.UnicodeScalarView()
        while let c = current, c != "/" {
            if c == "\\", let next = peek() {
                // \/ is a slash inside the literal; other escapes belong to the expression.
                if next != "/" { text.append(c) }
                text.append(next)
                index += 2
                continue
            }
            text.append(c)
            index += 1
        }
        guard current == "/" else { throw fail("the regular expression is not closed with /", at: start) }
        index += 1
        var caseInsensitive = false
        var inline = ""
        while let c = current, c.properties.isAlphabetic {
            switch c {
            case "i": caseInsensitive = true
            case "m", "s": inline += String(c)
            case "d", "u", "U": break
            default: throw fail("unknown regular expression flag \(c); the flags are i, m, s, d, u and U")
            }
            index += 1
        }
        let pattern = inline.isEmpty ? String(text) : "(?\(inline))" + String(text)
        do {
            return .regex(try CompiledRegex(pattern, caseInsensitive: caseInsensitive))
        } catch let error as RegexSyntaxError {
            // The engine's offset counts from the pattern's start, after the slash and any
            // inline flags this added.
            let offset = min(start + 1 + max(0, error.offset - (pattern.count - String(text).count)), scalars.count)
            throw fail("invalid regular expression /\(String(text))/: \(error.message)", at: offset)
        } catch {
            throw fail("invalid regular expression /\(String(text))/", at: start)
        }
    }
}
