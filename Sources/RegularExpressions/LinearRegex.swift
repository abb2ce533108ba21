/// A regular expression whose matching time is linear in the text: parsed and compiled once to
/// an automaton (Thompson NFA), run by a Pike VM with no backtracking, so a request can never
/// make a stub's pattern take exponential time.
///
/// Semantics follow NSRegularExpression (ICU) on the supported subset: matching is over Unicode
/// scalars, alternatives and quantifiers have Perl's leftmost-first priorities (the match and
/// the captures are the ones ICU reports), and `matchesWhole` is ICU with the pattern wrapped as
/// `\A(?:PATTERN)\z`. Constructs that need backtracking (back-references, look-around, atomic
/// groups, possessive quantifiers) are refused here; `BacktrackingRegex` runs those within a
/// step budget. The syntax is documented in docs/stub-format.md, "Regular expressions".
package struct LinearRegex: Sendable {
    package let pattern: String
    package let caseInsensitive: Bool
    /// Group number by name, for `(?<name>...)`.
    package let groupNames: [String: Int]
    let program: RegexProgram
    /// The whole pattern when it is a case-sensitive literal: compared directly, no VM.
    private let literal: [UInt8]?
    /// The whole pattern when it is a case-insensitive ASCII literal (compared directly with
    /// ASCII text; other text can fold onto ASCII, as the Kelvin sign onto k, so it runs the VM).
    private let asciiFoldedLiteral: [UInt8]?
    /// UTF-8 bytes every match begins with (a leading case-sensitive literal).
    private let prefix: [UInt8]

    package init(_ pattern: String, caseInsensitive: Bool = false) throws(RegexSyntaxError) {
        try self.init(try ParsedPattern(pattern, caseInsensitive: caseInsensitive))
    }

    /// Refuses the first construct that needs backtracking, with its place in the pattern.
    package init(_ parsed: ParsedPattern) throws(RegexSyntaxError) {
        if let first = parsed.backtrackingConstructs.first { throw first.refusal }
        let root = parsed.root
        pattern = parsed.pattern
        caseInsensitive = parsed.caseInsensitive
        groupNames = parsed.groupNames
        program = try RegexCompiler.compile(root, captureGroupCount: parsed.captureCount)

        var literal: [UInt8]? = nil
        var asciiFolded: [UInt8]? = nil
        var prefix: [UInt8] = []
        switch root {
        case .empty:
            literal = []
        case .literal(let scalars, caseInsensitive: false):
            literal = Self.utf8(scalars)
            prefix = literal ?? []
        case .literal(let scalars, caseInsensitive: true) where scalars.allSatisfy({ $0 < 0x80 }):
            asciiFolded = scalars.map { Self.asciiLowercase(UInt8($0)) }
        case .concat(let items):
            if case .literal(let scalars, caseInsensitive: false)? = items.first { prefix = Self.utf8(scalars) }
        default:
            break
        }
        self.literal = literal
        self.asciiFoldedLiteral = asciiFolded
        self.prefix = prefix
    }

    package var captureGroupCount: Int { program.captureGroupCount }
    /// Instructions in the compiled program.
    package var programSize: Int { program.instructions.count }
    /// States the VM can visit per position (instructions, some counted once per enclosing
    /// loop whose body can match empty): the "program size" of the linear bound.
    package var stateCount: Int { program.stateCount }

    /// The most steps one call may take on a text of `scalarCount` scalars: each position
    /// visits each state at most once, and each visit or thread step is one step.
    package static func maxSteps(stateCount: Int, scalarCount: Int) -> Int {
        let (perPosition, o1) = (stateCount + 1).multipliedReportingOverflow(by: 4)
        let (total, o2) = perPosition.multipliedReportingOverflow(by: scalarCount + 1)
        return o1 || o2 ? Int.max : total
    }

    /// Whether the whole text matches (ICU: `\A(?:PATTERN)\z`).
    package func matchesWhole(_ text: String) -> Bool {
        var stats = RegexRunStats()
        return matchesWhole(text, stats: &stats)
    }

    package func matchesWhole(_ text: String, stats: inout RegexRunStats) -> Bool {
        if let literal {
            stats.steps += literal.count + 1
            return text.utf8.elementsEqual(literal)
        }
        if let asciiFoldedLiteral, text.utf8.count == asciiFoldedLiteral.count, text.utf8.allSatisfy({ $0 < 0x80 }) {
            stats.steps += asciiFoldedLiteral.count + 1
            return zip(text.utf8, asciiFoldedLiteral).allSatisfy { Self.asciiLowercase($0) == $1 }
        }
        if !prefix.isEmpty, !text.utf8.starts(with: prefix) { return false }
        var copy = text
        return copy.withUTF8 { buffer in
            PikeVM.run(program, text: buffer, mode: .whole, captures: false, steps: &stats.steps) != nil
        }
    }

    /// The leftmost match, with ICU's choice among the matches starting there, and its groups.
    package func firstMatch(in text: String) -> RegexMatch? {
        var stats = RegexRunStats()
        return firstMatch(in: text, stats: &stats)
    }

    package func firstMatch(in text: String, stats: inout RegexRunStats) -> RegexMatch? {
        var copy = text
        let slots: [Int]? = copy.withUTF8 { buffer in
            if let literal {
                stats.steps += buffer.count + 1
                guard let at = Self.find(literal, in: buffer) else { return nil }
                return [at, at + literal.count] + [Int](repeating: -1, count: 2 * program.captureGroupCount)
            }
            return PikeVM.run(
                program,
                text: buffer,
                mode: .first,
                captures: true,
                firstByte: prefix.first,
                steps: &stats.steps
            )
        }
        return slots.flatMap { RegexMatch(slots: $0, groupCount: program.captureGroupCount, in: text) }
    }

    // MARK: - helpers

    private static func utf8(_ scalars: [UInt32]) -> [UInt8] {
        var s = String.UnicodeScalarView()
        for v in scalars { if let u = Unicode.Scalar(v) { s.append(u) } }
        return Array(String(s).utf8)
    }

    private static func asciiLowercase(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b + 0x20 : b }

    /// First occurrence of `needle` in `haystack` (a UTF-8 needle only matches at scalar
    /// boundaries, since it starts with a lead byte). O(len × needle), within the linear bound.
    private static func find(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !needle.isEmpty else { return 0 }
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            var j = 1
            while j < needle.count, haystack[i + j] == needle[j] { j += 1 }
            if j == needle.count { return i }
        }
        return nil
    }
}

/// A match: its range in the text and each group's (groups[0] is group 1; nil when the group
/// took no part in the match).
package struct RegexMatch: Sendable, Equatable {
    package let range: Range<String.Index>
    package let groups: [Range<String.Index>?]

    package init(range: Range<String.Index>, groups: [Range<String.Index>?]) {
        self.range = range
        self.groups = groups
    }

    /// From an engine's slots (UTF-8 offsets, two per group, group 0 first, -1 when unset).
    init?(slots: [Int], groupCount: Int, in text: String) {
        guard slots.count >= 2 * (groupCount + 1), slots[0] >= 0, slots[1] >= slots[0] else { return nil }
        let utf8 = text.utf8
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        var groups: [Range<String.Index>?] = []
        for g in stride(from: 1, through: groupCount, by: 1) {
            let (start, end) = (slots[2 * g], slots[2 * g + 1])
            groups.append(start >= 0 && end >= start ? index(start)..<index(end) : nil)
        }
        self.init(range: index(slots[0])..<index(slots[1]), groups: groups)
    }
}
