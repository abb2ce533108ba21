/// Recursive descent over the pattern's scalars; each scalar is looked at a bounded number of
/// times, so parsing is linear. Recursion depth is bounded by `RegexLimits.maxNesting`.
/// Escapes and classes are in RegexParser+Escapes.swift.
struct RegexParser {
    struct Flags: Equatable {
        var caseInsensitive: Bool
        var multiline = false
        var dotAll = false
    }

    /// A node and an upper bound of the instructions it compiles to (at least 1, so that
    /// repeating nodes that compile to nothing still counts as work).
    struct Parsed {
        var node: RegexNode
        var cost: Int
    }

    let scalars: [Unicode.Scalar]
    /// Character offset of each scalar (and of the end), for error positions.
    private let characterOffsets: [Int]
    var pos = 0
    var flags: Flags
    private(set) var captureCount = 0
    private(set) var groupNames: [String: Int] = [:]
    private var depth = 0

    init(_ pattern: String, caseInsensitive: Bool) {
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        var character = 0
        for ch in pattern {
            for s in ch.unicodeScalars { scalars.append(s); offsets.append(character) }
            character += 1
        }
        offsets.append(character)
        self.scalars = scalars
        self.characterOffsets = offsets
        self.flags = Flags(caseInsensitive: caseInsensitive)
    }

    func error(_ message: String, at index: Int) -> RegexSyntaxError {
        RegexSyntaxError(offset: characterOffsets[min(max(index, 0), characterOffsets.count - 1)], message: message)
    }

    func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        pos + ahead < scalars.count ? scalars[pos + ahead] : nil
    }

    mutating func parse() throws(RegexSyntaxError) -> Parsed {
        let result = try parseAlternation()
        if pos < scalars.count {
            // parseAlternation stops only at the end or at a ')' it did not open.
            throw error("unmatched ')': there is no '(' for it; write \\) for a literal parenthesis", at: pos)
        }
        if result.cost > RegexLimits.maxInstructions {
            throw error("pattern too large: it would compile to more than \(RegexLimits.maxInstructions) instructions", at: 0)
        }
        return result
    }

    static func add(_ a: Int, _ b: Int) -> Int { min(a &+ b, 1 << 40) }
    static func multiply(_ a: Int, _ b: Int) -> Int {
        let (p, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? 1 << 40 : min(p, 1 << 40)
    }

    mutating func parseAlternation() throws(RegexSyntaxError) -> Parsed {
        var branches = [try parseConcat()]
        while peek() == "|" {
            pos += 1
            branches.append(try parseConcat())
        }
        if branches.count == 1 { return branches[0] }
        let cost = branches.reduce(2) { Self.add($0, Self.add($1.cost, 2)) }
        return Parsed(node: .alternation(branches.map(\.node)), cost: cost)
    }

    /// What one step of a concatenation produced.
    enum Atom {
        case literal([UInt32])
        case node(Parsed, repeatable: Bool)
        /// `(?#...)`: invisible, even to a quantifier after it (ICU: a(?#x)* is a*).
        case comment
        /// `(?i)` and friends: the rest of the enclosing group uses these flags.
        case flags(Flags)
    }

    mutating func parseConcat() throws(RegexSyntaxError) -> Parsed {
        var items: [Parsed] = []
        var run: [UInt32] = []
        var runCaseInsensitive = false
        var lastIsRunScalar = false   // a quantifier now applies to run.last
        var repeatable = false         // a quantifier now applies to items.last (or run.last)
        var lastWasAssertion = false

        func flush(_ items: inout [Parsed], _ run: inout [UInt32], _ ci: Bool) {
            guard !run.isEmpty else { return }
            let cost = ci ? run.count * 3 + 1 : run.count
            items.append(Parsed(node: .literal(run, caseInsensitive: ci), cost: cost))
            run = []
        }

        while let c = peek(), c != "|", c != ")" {
            if c == "*" || c == "+" || c == "?" || c == "{" {
                let start = pos
                guard repeatable else {
                    throw error(lastWasAssertion
                        ? "quantifier '\(c)' after an anchor or \\b: an assertion matches no characters, so there is nothing to repeat"
                        : "quantifier '\(c)' has nothing to repeat; write \\\(c) for a literal '\(c)'", at: start)
                }
                let (min, max, greedy) = try parseQuantifier()
                let bodyFirst = scalars[start] == "+" || (min == 1 && max == 1)
                var body: Parsed
                if lastIsRunScalar, let last = run.popLast() {
                    flush(&items, &run, runCaseInsensitive)
                    body = Parsed(node: .literal([last], caseInsensitive: runCaseInsensitive), cost: runCaseInsensitive ? 4 : 1)
                } else {
                    body = items.removeLast()
                }
                body = try repetition(body, min: min, max: max, greedy: greedy, bodyFirst: bodyFirst, at: start)
                items.append(body)
                repeatable = false
                lastIsRunScalar = false
                continue
            }
            switch try parseAtom() {
            case .literal(let scalars):
                guard !scalars.isEmpty else { continue } // an empty \Q\E changes nothing
                if !run.isEmpty, runCaseInsensitive != flags.caseInsensitive { flush(&items, &run, runCaseInsensitive) }
                if run.isEmpty { runCaseInsensitive = flags.caseInsensitive }
                run += scalars
                lastIsRunScalar = true
                repeatable = true
                lastWasAssertion = false
            case .node(let parsed, let canRepeat):
                flush(&items, &run, runCaseInsensitive)
                items.append(parsed)
                lastIsRunScalar = false
                repeatable = canRepeat
                if case .assertion = parsed.node { lastWasAssertion = true } else { lastWasAssertion = false }
            case .comment:
                continue
            case .flags(let new):
                flush(&items, &run, runCaseInsensitive)
                flags = new
                lastIsRunScalar = false
                repeatable = false
                lastWasAssertion = false
            }
        }
        flush(&items, &run, runCaseInsensitive)
        switch items.count {
        case 0: return Parsed(node: .empty, cost: 1)
        case 1: return items[0]
        default: return Parsed(node: .concat(items.map(\.node)), cost: items.reduce(0) { Self.add($0, $1.cost) })
        }
    }

    private func repetition(_ body: Parsed, min: Int, max: Int?, greedy: Bool, bodyFirst: Bool, at start: Int) throws(RegexSyntaxError) -> Parsed {
        // Mandatory copies cost the body; optional ones a split more; a loop adds its check.
        let cost: Int
        if let max {
            cost = Self.add(Self.add(Self.multiply(body.cost, min), Self.multiply(Self.add(body.cost, 1), max - min)), 1)
        } else {
            cost = Self.add(Self.multiply(Self.add(body.cost, 2), min <= 1 ? 1 : min + 1), 3)
        }
        if cost > RegexLimits.maxInstructions {
            throw error("pattern too large: this repetition would compile to more than \(RegexLimits.maxInstructions) instructions", at: start)
        }
        return Parsed(node: .repetition(body.node, min: min, max: max, greedy: greedy, bodyFirst: bodyFirst), cost: cost)
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally followed by `?` (lazy).
    mutating func parseQuantifier() throws(RegexSyntaxError) -> (Int, Int?, Bool) {
        let start = pos
        let c = scalars[pos]
        pos += 1
        var min = 0, max: Int? = nil
        switch c {
        case "*": break
        case "+": min = 1
        case "?": max = 1
        default:
            let limit = RegexLimits.maxRepeat
            let bad = "invalid counted repetition: write {n}, {n,} or {n,m} with whole numbers, or \\{ for a literal brace"
            guard let low = parseNumber() else { throw error(bad, at: start) }
            min = low
            if peek() == "," {
                pos += 1
                if peek() == "}" { max = nil } else {
                    guard let high = parseNumber() else { throw error(bad, at: start) }
                    max = high
                }
            } else {
                max = low
            }
            guard peek() == "}" else { throw error(bad, at: start) }
            pos += 1
            if min > limit || (max ?? 0) > limit {
                throw error("counted repetition above \(limit) is not supported", at: start)
            }
            if let max, max < min { throw error("invalid counted repetition: {\(min),\(max)} has its maximum below its minimum", at: start) }
        }
        var greedy = true
        if peek() == "?" {
            pos += 1
            greedy = false
        } else if peek() == "+" {
            throw error("possessive quantifiers (\(String(String.UnicodeScalarView(scalars[start...pos])))) are not supported: " +
                        "\(Refusal.linearTime) possessive matching does not fit; drop the '+'", at: start)
        }
        return (min, max, greedy)
    }

    /// Decimal digits, saturating above the repetition limit (the caller reports it).
    private mutating func parseNumber() -> Int? {
        var value = 0, digits = 0
        while let c = peek(), ("0"..."9").contains(c) {
            value = Swift.min(value * 10 + Int(c.value - 48), RegexLimits.maxRepeat + 1)
            digits += 1
            pos += 1
        }
        return digits > 0 ? value : nil
    }

    mutating func parseAtom() throws(RegexSyntaxError) -> Atom {
        let c = scalars[pos]
        switch c {
        case "(":
            return try parseGroup()
        case "[":
            let set = try parseClass()
            return .node(Parsed(node: .characterClass(set), cost: 1), repeatable: true)
        case ".":
            pos += 1
            return .node(Parsed(node: .dot(dotAll: flags.dotAll), cost: 2), repeatable: true)
        case "^":
            pos += 1
            return .node(Parsed(node: .assertion(flags.multiline ? .startOfLine : .startOfText), cost: 1), repeatable: false)
        case "$":
            pos += 1
            return .node(Parsed(node: .assertion(flags.multiline ? .endOfLine : .endOfTextOrFinalTerminator), cost: 1), repeatable: false)
        case "\\":
            return try parseEscape()
        case "}":
            throw error("unmatched '}'; write \\} for a literal brace", at: pos)
        default:
            pos += 1
            return .literal([c.value])
        }
    }

    mutating func parseGroup() throws(RegexSyntaxError) -> Atom {
        let start = pos
        pos += 1
        guard depth < RegexLimits.maxNesting else {
            throw error("groups nested more than \(RegexLimits.maxNesting) deep are not supported", at: start)
        }
        guard peek() == "?" else {
            captureCount += 1
            let index = captureCount // numbered by their '(', so before the groups inside
            let body = try parseGroupBody(start: start, flags: flags)
            return .node(Parsed(node: .capture(index, body.node), cost: Self.add(body.cost, 2)), repeatable: true)
        }
        pos += 1
        guard let c = peek() else { throw error("unterminated group '(?'", at: start) }
        let written = String(String.UnicodeScalarView(scalars[start...pos])) // "(?R", "(?P"
        switch c {
        case ":":
            pos += 1
            let body = try parseGroupBody(start: start, flags: flags)
            return .node(body, repeatable: true)
        case "#":
            while let d = peek(), d != ")" {
                // ICU reads \Q, \x, \u... even inside a comment ("(?#\Q)...\E)" ends elsewhere,
                // "(?#\x{E)" is an error), so a comment stays plain text.
                if d == "\\" { throw error("a backslash inside a (?#...) comment is not supported", at: pos) }
                pos += 1
            }
            guard peek() == ")" else { throw error("unterminated comment '(?#': it ends at the first ')'", at: start) }
            pos += 1
            return .comment
        case "=": throw error(Refusal.lookaround("look-ahead", "(?="), at: start)
        case "!": throw error(Refusal.lookaround("negative look-ahead", "(?!"), at: start)
        case ">": throw error("atomic groups (?>...) are not supported: \(Refusal.linearTime) atomic groups do not fit", at: start)
        case "(": throw error("conditionals (?(...)...) are not supported", at: start)
        case "'", "P": throw error("group syntax \(written)... is not supported; name a group with (?<name>...)", at: start)
        case "R", "&", "+", "0"..."9": throw error("recursion \(written)...) is not supported", at: start)
        case "|": throw error("branch reset groups (?|...) are not supported", at: start)
        case "<":
            if peek(1) == "=" { throw error(Refusal.lookaround("look-behind", "(?<="), at: start) }
            if peek(1) == "!" { throw error(Refusal.lookaround("negative look-behind", "(?<!"), at: start) }
            pos += 1
            return try parseNamedGroup(start: start)
        default:
            return try parseFlags(start: start)
        }
    }

    /// The inside of a group up to its ')'; flags changed inside end with the group.
    private mutating func parseGroupBody(start: Int, flags inner: Flags) throws(RegexSyntaxError) -> Parsed {
        let outer = flags
        flags = inner
        depth += 1
        let body = try parseAlternation()
        depth -= 1
        guard peek() == ")" else { throw error("missing ')' for the group opened here", at: start) }
        pos += 1
        flags = outer
        return body
    }

    /// `(?<name>...)`: an ASCII letter, then ASCII letters and digits (ICU's rule).
    private mutating func parseNamedGroup(start: Int) throws(RegexSyntaxError) -> Atom {
        var name = ""
        while let c = peek(), c.isASCII, c.properties.isAlphabetic || (!name.isEmpty && ("0"..."9").contains(c)) {
            name.unicodeScalars.append(c)
            pos += 1
        }
        guard !name.isEmpty, peek() == ">" else {
            throw error("invalid group name: write (?<name>...) with an ASCII letter followed by letters and digits", at: start)
        }
        pos += 1
        guard groupNames[name] == nil else { throw error("group name '\(name)' is used twice", at: start) }
        captureCount += 1
        let index = captureCount
        groupNames[name] = index
        let body = try parseGroupBody(start: start, flags: flags)
        return .node(Parsed(node: .capture(index, body.node), cost: Self.add(body.cost, 2)), repeatable: true)
    }

    /// `(?ims-ims)` for the rest of the enclosing group, or `(?ims-ims:...)` for its body.
    private mutating func parseFlags(start: Int) throws(RegexSyntaxError) -> Atom {
        var new = flags
        var on = true, sawAny = false
        while let c = peek() {
            pos += 1
            switch c {
            case "i": new.caseInsensitive = on
            case "m": new.multiline = on
            case "s": new.dotAll = on
            case "x": throw error("the (?x) flag (free spacing and # comments) is not supported", at: pos - 1)
            case "-":
                guard on else { throw error("a flag group has at most one '-'", at: pos - 1) }
                on = false
            case ")":
                guard sawAny || !on else { throw error("empty flag group '(?)'", at: start) }
                return .flags(new)
            case ":":
                let body = try parseGroupBody(start: start, flags: new)
                return .node(body, repeatable: true)
            default:
                throw error(c.properties.isAlphabetic
                    ? "unknown flag '\(c)': the supported flags are i, m and s"
                    : "unknown group syntax '(?\(c)'", at: pos - 1)
            }
            sawAny = true
        }
        throw error("unterminated flag group", at: start)
    }
}
