/// What one budgeted match decided.
package enum RegexVerdict: Sendable, Equatable {
    case match
    case noMatch
    /// The step budget ran out before the engine could decide.
    case aborted
}

/// A pattern that needs backtracking (look-around, back-references, atomic groups, possessive
/// quantifiers), compiled once and run by `BacktrackingVM` with a hard step budget per call, so
/// that no text can hold a thread for longer than the budget allows, whatever the pattern.
/// A call that reaches the budget answers `aborted`, never a guess.
///
/// Semantics are ICU's (NSRegularExpression) and Java's on the supported syntax, as for
/// `LinearRegex`, whose parser and compiler it shares: `matchesWhole` is `\A(?:PATTERN)\z`.
package struct BacktrackingRegex: Sendable {
    /// Steps one call may take: every instruction executed, entry undone and character
    /// compared counts one. About 4 ms on the development machine (docs/reliability.md).
    package static let defaultBudget = 1_000_000

    package let pattern: String
    package let caseInsensitive: Bool
    package let groupNames: [String: Int]
    /// What needs backtracking in it, in pattern order ("negative look-ahead (?!...)").
    package let constructs: [BacktrackingConstruct]
    package let budget: Int
    let program: RegexProgram

    package init(_ pattern: String, caseInsensitive: Bool = false, budget: Int = defaultBudget) throws(RegexSyntaxError)
    {
        try self.init(try ParsedPattern(pattern, caseInsensitive: caseInsensitive), budget: budget)
    }

    package init(_ parsed: ParsedPattern, budget: Int = defaultBudget) throws(RegexSyntaxError) {
        pattern = parsed.pattern
        caseInsensitive = parsed.caseInsensitive
        groupNames = parsed.groupNames
        constructs = parsed.backtrackingConstructs
        self.budget = max(1, budget)
        program = try RegexCompiler.compile(parsed.root, captureGroupCount: parsed.captureCount)
    }

    package var captureGroupCount: Int { program.captureGroupCount }

    /// Whether the whole text matches (ICU: `\A(?:PATTERN)\z`), or `aborted`.
    package func matchesWhole(_ text: String) -> RegexVerdict {
        var stats = RegexRunStats()
        return matchesWhole(text, stats: &stats)
    }

    /// `budget`: a smaller one than the pattern's, for a caller that has less left.
    package func matchesWhole(_ text: String, budget: Int? = nil, stats: inout RegexRunStats) -> RegexVerdict {
        var copy = text
        let limit = min(budget ?? self.budget, self.budget)
        let outcome = copy.withUTF8 { buffer in
            BacktrackingVM.run(program, text: buffer, whole: true, budget: limit, steps: &stats.steps)
        }
        switch outcome {
        case .matched: return .match
        case .noMatch: return .noMatch
        case .aborted: return .aborted
        }
    }

    /// The leftmost match and its groups (ICU's), `.noMatch` as nil, or `aborted`.
    package func firstMatch(in text: String) -> RegexSearch {
        var stats = RegexRunStats()
        return firstMatch(in: text, stats: &stats)
    }

    package func firstMatch(in text: String, stats: inout RegexRunStats) -> RegexSearch {
        var copy = text
        let outcome = copy.withUTF8 { buffer in
            BacktrackingVM.run(program, text: buffer, whole: false, budget: budget, steps: &stats.steps)
        }
        switch outcome {
        case .matched(let slots):
            return .found(RegexMatch(slots: slots, groupCount: program.captureGroupCount, in: text))
        case .noMatch: return .found(nil)
        case .aborted: return .aborted
        }
    }
}

/// The answer of a budgeted search: the match (nil when there is none), or `aborted`.
package enum RegexSearch: Sendable, Equatable {
    case found(RegexMatch?)
    case aborted
}
