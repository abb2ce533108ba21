/// The parsed pattern. Literal characters are gathered into runs the way ICU gathers them
/// (a quantifier takes only the last character; groups, classes, anchors and flag changes end a
/// run; comments do not), because a case-insensitive run matches by full case folding.
indirect enum RegexNode: Sendable {
    case empty
    case literal([UInt32], caseInsensitive: Bool)
    case characterClass(CharacterClass)
    /// `.`; with (?s) it matches everything, a CR LF pair as one character, as ICU does.
    case dot(dotAll: Bool)
    /// `\R`: CR LF as a unit, or one of LF VT FF CR NEL LS PS.
    case lineBreak
    case assertion(Assertion)
    case capture(Int, RegexNode)
    case concat([RegexNode])
    case alternation([RegexNode])
    /// `bodyFirst`: ICU compiles the body first with nothing before it (`+`, `+?`, `{1}`), which
    /// matters only to `searchesLineStartsOnly`; `{n,}` and `{n,m}` start with a counter instead.
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool, bodyFirst: Bool)
    // Constructs only the backtracking engine runs (see `BacktrackingConstruct`).
    /// `(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`.
    case lookaround(RegexNode, behind: Bool, negative: Bool)
    /// `\1`, `\k<name>`: the text the group last matched, again.
    case backReference(Int, caseInsensitive: Bool)
    /// `(?>...)`, and a possessive quantifier's loop: once it matched, never tried another way.
    case atomic(RegexNode)

    /// Whether the node can match without consuming anything (an over-approximation is
    /// harmless: it only adds the empty-iteration check to a loop).
    var canBeEmpty: Bool {
        switch self {
        case .empty, .assertion: return true
        case .literal(let s, _): return s.isEmpty
        case .characterClass, .dot, .lineBreak: return false
        case .capture(_, let n): return n.canBeEmpty
        case .concat(let ns): return ns.allSatisfy(\.canBeEmpty)
        case .alternation(let ns): return ns.contains(where: \.canBeEmpty)
        case .repetition(let n, let min, _, _, _): return min == 0 || n.canBeEmpty
        case .lookaround, .backReference: return true
        case .atomic(let n): return n.canBeEmpty
        }
    }

    /// A zero-width test: a quantifier after it has nothing to repeat.
    var isZeroWidthAssertion: Bool {
        switch self {
        case .assertion, .lookaround: return true
        default: return false
        }
    }

    /// The most scalars a match can take, or nil when unbounded (a look-behind needs a bound:
    /// it is tried from each of that many places before its position).
    var maxLength: Int? {
        let cap = 1 << 20
        switch self {
        case .empty, .assertion, .lookaround: return 0
        case .literal(let s, let caseInsensitive):
            // Each scalar of the text takes at least one scalar of the folded run.
            return caseInsensitive ? s.reduce(0) { $0 + CaseFolding.shared.fold($1).count } : s.count
        case .characterClass: return 1
        case .dot(let dotAll): return dotAll ? 2 : 1
        case .lineBreak: return 2
        case .backReference: return nil
        case .capture(_, let n), .atomic(let n): return n.maxLength
        case .concat(let items):
            var total = 0
            for item in items {
                guard let n = item.maxLength else { return nil }
                total = Swift.min(total + n, cap)
            }
            return total
        case .alternation(let branches):
            var longest = 0
            for branch in branches {
                guard let n = branch.maxLength else { return nil }
                longest = Swift.max(longest, n)
            }
            return longest
        case .repetition(let body, _, let max, _, _):
            guard let n = body.maxLength else { return nil }
            guard let max else { return n == 0 ? 0 : nil }
            return Swift.min(n * max, cap)
        }
    }

    /// Whether ICU's search would try this pattern only at line starts (its START_LINE start
    /// type), which differs from trying every position in one way: never between a CR and its
    /// LF, although (?m)^ holds there. ICU's analysis walks the compiled pattern: groups,
    /// nothing-nodes and zero-width assertions keep it "at the start", `+` and `{1}` begin with
    /// their body, anything else ends it; a (?m)^ reached at the start makes it START_LINE,
    /// unless the only thing a match can begin with is one case-sensitive literal of two or
    /// more characters (START_STRING, which then tries wherever that literal occurs).
    var searchesLineStartsOnly: Bool {
        guard case .found = Self.walk([self]) else { return false }
        let rest = Self.afterLineStart([self])
        guard case .literal(let s, caseInsensitive: false)? = rest, s.count >= 2 else { return true }
        return false
    }

    private enum Walk { case found, stopped, exhausted }

    /// Depth-first over the leading items for a (?m)^ reached "at the start".
    private static func walk(_ nodes: [RegexNode]) -> Walk {
        for node in nodes {
            switch node {
            case .assertion(.startOfLine): return .found
            case .assertion, .empty: continue
            case .capture(_, let body):
                let w = walk([body])
                if case .exhausted = w { continue }
                return w
            case .concat(let items):
                let w = walk(items)
                if case .exhausted = w { continue }
                return w
            case .repetition(let body, _, _, _, true):
                let w = walk([body])
                if case .exhausted = w { continue }
                return w
            default:
                return .stopped
            }
        }
        return .exhausted
    }

    /// The first consuming node after the leading (?m)^, when it must begin every match: a
    /// literal there is ICU's single initial string. Nil when anything optional comes first.
    private static func afterLineStart(_ nodes: [RegexNode]) -> RegexNode? {
        var seenLineStart = false
        func first(_ nodes: [RegexNode]) -> (RegexNode?, done: Bool) {
            for node in nodes {
                switch node {
                case .assertion(.startOfLine): seenLineStart = true
                case .assertion, .empty: continue
                case .capture(_, let body):
                    let r = first([body])
                    if r.done { return r }
                case .concat(let items):
                    let r = first(items)
                    if r.done { return r }
                case .repetition(let body, let min, _, _, _) where min >= 1:
                    let r = first([body])
                    if r.done { return r }
                default:
                    return (seenLineStart ? node : nil, true)
                }
            }
            return (nil, false)
        }
        return first(nodes).0
    }

    private var compilesToNothing: Bool {
        switch self {
        case .empty: return true
        case .capture(_, let n): return n.compilesToNothing
        case .concat(let items): return items.allSatisfy(\.compilesToNothing)
        default: return false
        }
    }
}

/// Zero-width assertions, with ICU's meanings.
enum Assertion: Int32, Sendable {
    /// `\A`, and `^` without (?m).
    case startOfText
    /// `^` with (?m): the start, or after a line terminator that is not the last character.
    case startOfLine
    /// `\z`.
    case endOfText
    /// `$` without (?m), and `\Z`: the end, or before a line terminator (or CR LF) that ends the text.
    case endOfTextOrFinalTerminator
    /// `$` with (?m): the end, or before any line terminator (not between CR and LF).
    case endOfLine
    /// `\b`: word and non-word on either side, skipping combining marks and format characters.
    case wordBoundary
    case notWordBoundary
}
