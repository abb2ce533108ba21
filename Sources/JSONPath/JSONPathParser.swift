/// Parses Jayway JSONPath text into `JSONPath` segments. Runs at load only. Nesting (filters
/// inside filters, parentheses, paths in function arguments) is bounded so a hostile
/// expression cannot exhaust the stack. Filters and literals are read in
/// JSONPathFilterParser.swift.
struct JSONPathParser {
    let scalars: [Unicode.Scalar]
    var index = 0
    var depth = 0
    static let maximumDepth = 32

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    var atEnd: Bool { index >= scalars.count }
    var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    func peek(_ offset: Int = 1) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    func fail(_ message: String, at offset: Int? = nil) -> JSONPathError {
        JSONPathError(message: message, offset: offset ?? index)
    }

    func text(from start: Int) -> String {
        String(String.UnicodeScalarView(scalars[start..<index]))
    }

    mutating func skipSpaces() {
        while let c = current, c == " " || c == "\t" || c == "\n" || c == "\r" { index += 1 }
    }

    /// Counts one level of nesting; refuses past the bound.
    mutating func enter() throws(JSONPathError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("the expression is nested too deeply") }
    }

    /// The whole expression: `$...`, `@...`, or a bare `name...` or `[...]...` that Jayway reads
    /// as `$.name...` (so `concat("/", $.key)` is a function applied to the document).
    mutating func parseTopLevelPath() throws(JSONPathError) -> [JSONPath.Segment] {
        skipSpaces()
        let segments: [JSONPath.Segment]
        if current == "$" || current == "@" {
            segments = try parseRelativePath()
        } else if current == "[" {
            segments = try parseSteps(after: [])
        } else {
            guard let c = current, !Self.nameStops.contains(c) || c == "*" else {
                throw fail("a JSONPath starts with $, as in $.name")
            }
            var steps: [JSONPath.Segment] = []
            try dotStep(into: &steps)
            segments = try parseSteps(after: steps)
        }
        skipSpaces()
        if let c = current { throw fail("unexpected \"\(c)\"") }
        return Self.finished(segments)
    }

    /// A path that starts at `$` or `@` and ends where the next token starts (inside a filter or
    /// a function's arguments), finished as a whole path is.
    mutating func parseRelativePath() throws(JSONPathError) -> [JSONPath.Segment] {
        guard current == "$" || current == "@" else { throw fail("expected @ or $") }
        index += 1
        return Self.finished(try parseSteps(after: []))
    }

    private mutating func parseSteps(after first: [JSONPath.Segment]) throws(JSONPathError) -> [JSONPath.Segment] {
        var segments = first
        while let c = current {
            if c == "." {
                if peek() == "." {
                    index += 2
                    segments.append(.descendants)
                    guard let next = current, next != "." else { throw fail("expected a name, * or [ after ..") }
                    if next == "[" {
                        segments.append(try bracket())
                    } else {
                        try dotStep(into: &segments)
                    }
                    continue
                }
                index += 1
                // `$.[?(...)]`, `$.['a']`: Jayway reads a bracket after a dot as the bracket.
                if current == "[" {
                    segments.append(try bracket())
                } else {
                    try dotStep(into: &segments)
                }
            } else if c == "[" {
                segments.append(try bracket())
            } else {
                break
            }
        }
        return segments
    }

    /// What follows a dot: `*`, a name, or a function call `name(...)`.
    private mutating func dotStep(into segments: inout [JSONPath.Segment]) throws(JSONPathError) {
        if current == "*" {
            index += 1
            segments.append(.wildcard)
            return
        }
        let start = index
        let name = dottedName()
        guard !name.isEmpty else { throw fail("expected a name, * or [ after .") }
        if current == "(" {
            segments.append(.function(try functionCall(name, at: start)))
        } else {
            segments.append(.names([name]))
        }
    }

    /// Jayway's rewrites of a parsed path: a union of names as the last step merges into one
    /// object, and a deep scan from the root ending in a function (`$..price.max()`) becomes
    /// the function applied to the document with the scan as its argument (`$.max($..price)`).
    static func finished(_ parsed: [JSONPath.Segment]) -> [JSONPath.Segment] {
        var segments = mergingLastNames(parsed)
        guard case .descendants? = segments.first, case .function? = segments.last,
            let call = segments.firstIndex(where: { if case .function = $0 { true } else { false } }),
            case .function(let function) = segments[call]
        else { return segments }
        let scan = JSONPath(source: "", segments: mergingLastNames(Array(segments[..<call])))
        let inverted = JSONPathFunction(name: function.name, arguments: [.path(scan)])
        segments.replaceSubrange(...call, with: [.function(inverted)])
        return segments
    }

    private static func mergingLastNames(_ segments: [JSONPath.Segment]) -> [JSONPath.Segment] {
        guard case .names(let names)? = segments.last, names.count > 1 else { return segments }
        return segments.dropLast() + [.mergedNames(names)]
    }

    mutating func dottedName() -> String {
        var name = String.UnicodeScalarView()
        while let c = current, !Self.nameStops.contains(c) {
            name.append(c)
            index += 1
        }
        return String(name)
    }

    static let nameStops: Set<Unicode.Scalar> = [
        ".", "[", "]", "(", ")", "=", "<", ">", "!", "&", "|", ",", " ", "\t", "\n", "\r", "'", "\"", "~", "*",
    ]

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
                if current == "," {
                    index += 1
                    skipSpaces()
                }
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
        guard current == "]" else { throw fail("expected ] to close the [ at column \(open + 1)") }
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
        guard index > start, index - start <= 10 else {
            index = start
            return nil
        }
        return Int(text(from: start))
    }

    private mutating func indicesOrSlice() throws(JSONPathError) -> JSONPath.Segment {
        let start = index
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
            // Jayway refuses `[:]` and `[::2]`: a slice needs one of its ends.
            guard first != nil || end != nil else {
                throw fail("a slice needs a start or an end, as in [1:] or [:2]", at: start)
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

    // MARK: Functions

    /// `name(arguments)`, the current character being `(`. Arguments are paths (read from the
    /// document's root) or JSON values; Jayway drops the other kinds it does not recognise
    /// (single-quoted strings, lists, true, false, null), and so does this.
    private mutating func functionCall(_ name: String, at start: Int) throws(JSONPathError) -> JSONPathFunction {
        guard let function = JSONPathFunction.Name(rawValue: name) else {
            let known = JSONPathFunction.Name.allCases.map { "\($0.rawValue)()" }.joined(separator: ", ")
            throw fail("unknown function \(name)(); the functions are \(known)", at: start)
        }
        try enter()
        defer { depth -= 1 }
        index += 1
        var arguments: [JSONPathFunction.Argument] = []
        skipSpaces()
        if current == ")" {
            index += 1
            return JSONPathFunction(name: function, arguments: arguments)
        }
        while true {
            skipSpaces()
            if let argument = try functionArgument() { arguments.append(argument) }
            skipSpaces()
            if current == "," {
                index += 1
                continue
            }
            guard current == ")" else { throw fail("expected , or ) in the arguments of \(name)()") }
            index += 1
            return JSONPathFunction(name: function, arguments: arguments)
        }
    }

    private mutating func functionArgument() throws(JSONPathError) -> JSONPathFunction.Argument? {
        let start = index
        switch current {
        case "$"?, "@"?:
            let segments = try parseRelativePath()
            return .path(JSONPath(source: text(from: start), segments: segments))
        case "\""?, "{"?, "-"?:
            return .literal(try jsonLiteral())
        case let c? where ("0"..."9").contains(c):
            return .literal(try jsonLiteral())
        case "'"?, "["?, "t"?, "f"?, "n"?:
            _ = try jsonLiteral()
            return nil
        default:
            throw fail("expected a path, a number or a string in double quotes as an argument")
        }
    }
}
