/// Recursive descent over the pattern's scalars; each scalar is looked at a bounded number of
/// times, so parsing is linear. Recursion depth is bounded by `RegexLimits.maxNesting`.
/// Escapes and classes are in RegexParser+Escapes.swift, groups in RegexParser+Groups.swift.
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
    var captureCount = 0
    var groupNames: [String: Int] = [:]
    /// The constructs met that only a backtracking engine can run, in pattern order.
    private(set) var backtrackingConstructs: [BacktrackingConstruct] = []
    /// Each `\N` read, with where it was: checked against the group count at the end.
    private var backReferences: [(group: Int, at: Int)] = []
    var depth = 0

    init(_ pattern: String, caseInsensitive: Bool) {
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        var character = 0
        for ch in pattern {
            for s in ch.unicodeScalars {
                scalars.append(s)
                offsets.append(character)
            }
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
            throw error(
                "pattern too large: it would compile to more than \(RegexLimits.maxInstructions) instructions",
                at: 0
            )
        }
        for reference in backReferences where reference.group > captureCount {
            throw error(
                "back-reference \\\(reference.group) names a group the pattern does not have "
                    + "(it has \(captureCount) capture group\(captureCount == 1 ? "" : "s"))",
                at: reference.at
            )
        }
        return result
    }

    /// Notes a construct that needs backtracking; `refusal` is what the linear engine says of it.
    mutating func noteBacktracking(_ name: String, refusal: String, at index: Int) {
        backtrackingConstructs.append(BacktrackingConstruct(name: name, refusal: error(refusal, at: index)))
    }

    mutating func noteBackReference(_ group: Int, written: String, at index: Int) {
        backReferences.append((group, index))
        noteBacktracking("back-reference \(written)", refusal: Refusal.backReference(written), at: index)
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
        var lastIsRunScalar = false  // a quantifier now applies to run.last
        var repeatable = false  // a quantifier now applies to items.last (or run.last)
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
                    throw error(
                        lastWasAssertion
                            ? """
                            quantifier '\(c)' after an anchor or \\b: an assertion matches no characters, so \
                            there is nothing to repeat
                            """
                            : "quantifier '\(c)' has nothing to repeat; write \\\(c) for a literal '\(c)'",
                        at: start
                    )
                }
                let (min, max, greedy, possessive) = try parseQuantifier()
                let bodyFirst = scalars[start] == "+" || (min == 1 && max == 1)
                var body: Parsed
                if lastIsRunScalar, let last = run.popLast() {
                    flush(&items, &run, runCaseInsensitive)
                    body = Parsed(
                        node: .literal([last], caseInsensitive: runCaseInsensitive),
                        cost: runCaseInsensitive ? 4 : 1
                    )
                } else {
                    body = items.removeLast()
                }
                body = try repetition(body, min: min, max: max, greedy: greedy, bodyFirst: bodyFirst, at: start)
                if possessive {
                    // X*+ is (?>X*): what the loop took is never given back.
                    body = Parsed(node: .atomic(body.node), cost: Self.add(body.cost, 2))
                }
                items.append(body)
                repeatable = false
                lastIsRunScalar = false
                continue
            }
            switch try parseAtom() {
            case .literal(let scalars):
                guard !scalars.isEmpty else { continue }  // an empty \Q\E changes nothing
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
                lastWasAssertion = parsed.node.isZeroWidthAssertion
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

    private func repetition(
        _ body: Parsed,
        min: Int,
        max: Int?,
        greedy: Bool,
        bodyFirst: Bool,
        at start: Int
    ) throws(RegexSyntaxError) -> Parsed {
        // Mandatory copies cost the body; optional ones a split more; a loop adds its check.
        let cost: Int
        if let max {
            cost = Self.add(
                Self.add(Self.multiply(body.cost, min), Self.multiply(Self.add(body.cost, 1), max - min)),
                1
            )
        } else {
            cost = Self.add(Self.multiply(Self.add(body.cost, 2), min <= 1 ? 1 : min + 1), 3)
        }
        if cost > RegexLimits.maxInstructions {
            throw error(
                """
                pattern too large: this repetition would compile to more than \(RegexLimits.maxInstructions) \
                instructions
                """,
                at: start
            )
        }
        return Parsed(
            node: .repetition(body.node, min: min, max: max, greedy: greedy, bodyFirst: bodyFirst),
            cost: cost
        )
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally followed by `?` (lazy) or `+`
    /// (possessive).
    mutating func parseQuantifier() throws(RegexSyntaxError) -> (Int, Int?, Bool, possessive: Bool) {
        let start = pos
        let c = scalars[pos]
        pos += 1
        var min = 0
        var max: Int? = nil
        switch c {
        case "*": break
        case "+": min = 1
        case "?": max = 1
        default:
            let limit = RegexLimits.maxRepeat
            let bad =
                "invalid counted repetition: write {n}, {n,} or {n,m} with whole numbers, or \\{ for a literal brace"
            guard let low = parseNumber() else { throw error(bad, at: start) }
            min = low
            if peek() == "," {
                pos += 1
                if peek() == "}" {
                    max = nil
                } else {
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
            if let max, max < min {
                throw error("invalid counted repetition: {\(min),\(max)} has its maximum below its minimum", at: start)
            }
        }
        var greedy = true
        var possessive = false
        if peek() == "?" {
            pos += 1
            greedy = false
        } else if peek() == "+" {
            let written = String(String.UnicodeScalarView(scalars[start...pos]))
            noteBacktracking(
                "possessive quantifier \(written)",
                refusal: "possessive quantifiers (\(written)) are not supported: "
                    + "\(Refusal.linearTime) possessive matching does not fit; drop the '+'",
                at: start
            )
            pos += 1
            possessive = true
        }
        return (min, max, greedy, possessive)
    }

    /// Decimal digits, saturating above the repetition limit (the caller reports it).
    private mutating func parseNumber() -> Int? {
        var value = 0
        var digits = 0
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
            return .node(
                Parsed(node: .assertion(flags.multiline ? .startOfLine : .startOfText), cost: 1),
                repeatable: false
            )
        case "$":
            pos += 1
            return .node(
                Parsed(node: .assertion(flags.multiline ? .endOfLine : .endOfTextOrFinalTerminator), cost: 1),
                repeatable: false
            )
        case "\\":
            return try parseEscape()
        case "}":
            throw error("unmatched '}'; write \\} for a literal brace", at: pos)
        default:
            pos += 1
            return .literal([c.value])
        }
    }
}
