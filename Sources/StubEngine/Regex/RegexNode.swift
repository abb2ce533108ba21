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
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool)

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
        case .repetition(let n, let min, _, _): return min == 0 || n.canBeEmpty
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
