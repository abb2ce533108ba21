/// Parses Jayway JSONPath text into `JSONPath` segments and filter expressions. Runs at load
/// only. Nesting (filters inside filters, parentheses) is bounded so a hostile expression
/// cannot exhaust the stack.
struct JSONPathParser {
    enum Root { case dollar, at }

    private let scalars: [Unicode.Scalar]
    private(set) var index = 0
    private var depth = 0
    static let maximumDepth = 32

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    private var atEnd: Bool { index >= scalars.count }
    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    private func peek(_ offset: Int = 1) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

    func fail(_ message: String, at offset: Int? = nil) -> JSONPathError {
        JSONPathError(message: message, offset: offset ?? index)
    }

    private mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" || c == "\n" || c == "\r" { index += 1 }
    }

    /// A whole path (`$...` at the top; `@...` or `$...` inside a filter). At the top the text
    /// must end with it; inside a filter it ends where the next token starts.
    mutating func parsePath(root: Root) throws(JSONPathError) -> (segments: [JSONPath.Segment], function: JSONPath.Function?) {
        skipSpaces()
        let expected: Unicode.Scalar = root == .dollar ? "$" : "@"
        guard current == expected || (root == .at && current == "$") else {
            throw fail(root == .dollar ? "a JSONPath starts with $, as in $.name" : "expected @ or $")
        }
        index += 1
        var segments: [JSONPath.Segment] = []
        var function: JSONPath.Function?
        while let c = current {
            if function != nil { break }
            if c == "." {
                if peek() == "." {
                    index += 2
                    segments.append(.descendants)
                    if current == "[" { segments.append(try bracket()); continue }
                    if current == "*" { index += 1; segments.append(.wildcard); continue }
                    let name = dottedName()
                    guard !name.isEmpty else { throw fail("expected a name, * or [ after ..") }
                    segments.append(.names([name]))
                    continue
                }
                index += 1
                if current == "*" { index += 1; segments.append(.wildcard); continue }
                let start = index
                let name = dottedName()
                guard !name.isEmpty else { throw fail("expected a name or * after .") }
                if current == "(" {
                    guard peek() == ")", let f = JSONPath.Function(rawValue: name) else {
                        throw fail("unknown function \(name)(); the functions are " + JSONPath.Function.allCases.map { "\($0.rawValue)()" }.joined(separator: ", "), at: start)
                    }
                    index += 2
                    function = f
                    continue
                }
                segments.append(.names([name]))
            } else if c == "[" {
                segments.append(try bracket())
            } else {
                break
            }
        }
        if root == .dollar {
            skipSpaces()
            if !atEnd { throw fail(function != nil ? "a function such as length() ends the path" : "unexpected \"\(current!)\"") }
        }
        return (segments, function)
    }

    private mutating func dottedName() -> String {
        var name = String.UnicodeScalarView()
        while let c = current, !Self.nameStops.contains(c) {
            name.append(c)
            index += 1
        }
        return String(name)
    }

    private static let nameStops: Set<Unicode.Scalar> = [".", "[", "]", "(", ")", "=", "<", ">", "!", "&", "|", ",", " ", "\t", "\n", "\r", "'", "\"", "~", "*"]

    private mutating func bracket() throws(JSONPathError) -> JSONPath.Segment {
        let open = index
        index += 1
        skipSpaces()
        let segment: JSONPath.Segment
        switch current {
        case "*"?:
            index += 1
            segment = .wildcard
        case "?"?:
            index += 1
            skipSpaces()
            guard current == "(" else { throw fail("a filter is written [?(...)]") }
            index += 1
            segment = .filter(try filterExpression())
            skipSpaces()
            guard current == ")" else { throw fail("expected ) to close the filter") }
            index += 1
        case "'"?, "\""?:
            var names: [String] = []
            repeat {
                skipSpaces()
                if current == "," { index += 1; skipSpaces() }
                names.append(try quoted())
                skipSpaces()
            } while current == ","
            segment = .names(names)
        case let c? where c == "-" || c == ":" || ("0"..."9").contains(c):
            segment = try indicesOrSlice()
        default:
            throw fail("expected a name in quotes, an index, a slice, * or a filter after [")
        }
        skipSpaces()
        guard current == "]" else { throw fail("expected ] to close the [ at character \(open)") }
        index += 1
        return segment
    }

    mutating func quoted() throws(JSONPathError) -> String {
        guard let quote = current, quote == "'" || quote == "\"" else { throw fail("expected a quoted string") }
        let start = index
        index += 1
        var text = String.UnicodeScalarView()
        while let c = current, c != quote {
            if c == "\\", let next = peek() {
                index += 2
                switch next {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                default: text.append(next)
                }
                continue
            }
            text.append(c)
            index += 1
        }
        guard current == quote else { throw fail("this string is not closed", at: start) }
        index += 1
        return String(text)
    }

    private mutating func integer() -> Int? {
        let start = index
        if current == "-" { index += 1 }
        while let c = current, ("0"..."9").contains(c) { index += 1 }
        guard index > start, index - start <= 10 else { index = start; return nil }
        return Int(String(String.UnicodeScalarView(scalars[start..<index])))
    }

    private mutating func indicesOrSlice() throws(JSONPathError) -> JSONPath.Segment {
        let first = integer()
        skipSpaces()
        if current == ":" {
            index += 1
            skipSpaces()
            let end = integer()
            skipSpaces()
            var step = 1
            if current == ":" {
                index += 1
                skipSpaces()
                guard let s = integer(), s > 0 else { throw fail("a slice's step is a whole number of 1 or more") }
                step = s
            }
            return .slice(start: first, end: end, step: step)
        }
        guard let first else { throw fail("expected an index such as [0] or [-1]") }
        var indices = [first]
        while current == "," {
            index += 1
            skipSpaces()
            guard let next = integer() else { throw fail("expected an index after ,") }
            indices.append(next)
            skipSpaces()
        }
        return .indices(indices)
    }

    // MARK: Filters

    mutating func filterExpression() throws(JSONPathError) -> JSONPathFilter {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw fail("the filter is nested too deeply") }
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
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { throw fail("the filter is nested too deeply") }
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
        let left = try operand()
        skipSpaces()
        guard let op = comparisonOperator() else {
            guard case .path = left else { throw fail("expected a comparison such as == after this value") }
            return .exists(left)
        }
        skipSpaces()
        let right: JSONPathFilter.Operand
        if op == .matches {
            right = try regexLiteral()
        } else {
            right = try operand()
        }
        return .compare(left, op, right)
    }

    private mutating func comparisonOperator() -> JSONPathFilter.Operator? {
        for (text, op) in JSONPathFilter.Operator.spellings {
            let symbols = Array(text.unicodeScalars)
            guard index + symbols.count <= scalars.count, Array(scalars[index..<index + symbols.count]) == symbols else { continue }
            // A word operator must stand alone: `@.size` is a path, not `@.` `size`.
            if let after = index + symbols.count < scalars.count ? scalars[index + symbols.count] : nil,
               text.first!.isLetter, after.properties.isAlphabetic || ("0"..."9").contains(after) { continue }
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
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { throw fail("the filter is nested too deeply") }
            let start = index
            let parsed = try parsePath(root: .at)
            let text = String(String.UnicodeScalarView(scalars[start..<index]))
            return .path(JSONPath(source: text, segments: parsed.segments, function: parsed.function), absolute: c == "$")
        case "'", "\"":
            return .literal(.string(try quoted()))
        case "[":
            return .literal(try literalList())
        default:
            if let node = try scalarLiteral() { return .literal(node) }
            throw fail("expected @, $, a string, a number, true, false, null or a [list]")
        }
    }

    private mutating func scalarLiteral() throws(JSONPathError) -> JSONNode? {
        for (word, node) in [("true", JSONNode.bool(true)), ("false", .bool(false)), ("null", .null)] {
            let symbols = Array(word.unicodeScalars)
            if index + symbols.count <= scalars.count, Array(scalars[index..<index + symbols.count]) == symbols {
                index += symbols.count
                return node
            }
        }
        let start = index
        if current == "-" { index += 1 }
        while let c = current, ("0"..."9").contains(c) || c == "." || c == "e" || c == "E" || ((c == "+" || c == "-") && (scalars[index - 1] == "e" || scalars[index - 1] == "E")) {
            index += 1
        }
        let text = String(String.UnicodeScalarView(scalars[start..<index]))
        guard index > start, text.count <= 64, let value = Double(text), value.isFinite else {
            index = start
            return nil
        }
        return JSONNode(.number(JSONNumber(text: text, value: value)))
    }

    private mutating func literalList() throws(JSONPathError) -> JSONNode {
        index += 1
        var elements: [JSONNode] = []
        skipSpaces()
        if current == "]" { index += 1; return .array([]) }
        while true {
            skipSpaces()
            if current == "'" || current == "\"" { elements.append(.string(try quoted())) }
            else if let node = try scalarLiteral() { elements.append(node) }
            else { throw fail("a list holds strings, numbers, true, false or null") }
            skipSpaces()
            if current == "," { index += 1; continue }
            guard current == "]" else { throw fail("expected , or ] in the list") }
            index += 1
            return .array(elements)
        }
    }

    private mutating func regexLiteral() throws(JSONPathError) -> JSONPathFilter.Operand {
        guard current == "/" else { throw fail("=~ takes a regular expression between slashes, as in =~ /^a.*/i") }
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
        while let c = current, c.properties.isAlphabetic {
            guard c == "i" else { throw fail("the only regular expression flag supported is i") }
            caseInsensitive = true
            index += 1
        }
        do {
            return .regex(try CompiledRegex(String(text), caseInsensitive: caseInsensitive))
        } catch let error as RegexSyntaxError {
            throw fail("invalid regular expression /\(String(text))/: \(error.message)", at: start)
        } catch {
            throw fail("invalid regular expression /\(String(text))/", at: start)
        }
    }
}
