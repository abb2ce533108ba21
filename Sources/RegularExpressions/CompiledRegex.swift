/// A regular expression compiled once at load, matched against whole values. A pattern the
/// linear-time engine can run (LinearRegex: an automaton, no backtracking) runs there, in time
/// linear in the value whatever the pattern. One that needs backtracking (look-around,
/// back-references, atomic groups, possessive quantifiers: Java constructs real WireMock
/// folders use) runs on BacktrackingRegex with a step budget per match and per request
/// (`RegexBudgetLog`): a match that reaches it counts as no match and is recorded, never silent.
package final class CompiledRegex: Sendable {
    package let pattern: String
    private let engine: Engine

    private enum Engine: Sendable {
        case linear(LinearRegex)
        case backtracking(BacktrackingRegex)
    }

    /// Throws a `RegexSyntaxError` (message and character offset) when the pattern is invalid
    /// or uses a construct that is not supported.
    package init(_ pattern: String, caseInsensitive: Bool = false) throws {
        self.pattern = pattern
        let parsed = try ParsedPattern(pattern, caseInsensitive: caseInsensitive)
        engine =
            parsed.needsBacktracking ? .backtracking(try BacktrackingRegex(parsed)) : .linear(try LinearRegex(parsed))
    }

    /// What needs backtracking in the pattern (empty when the linear engine runs it).
    package var backtrackingConstructs: [BacktrackingConstruct] {
        if case .backtracking(let regex) = engine { regex.constructs } else { [] }
    }

    package var needsBacktracking: Bool { !backtrackingConstructs.isEmpty }

    /// The step budget of one match (backtracking patterns only).
    package var budget: Int {
        if case .backtracking(let regex) = engine { regex.budget } else { 0 }
    }

    /// Whether the whole value matches, as the contract says ("matches" means the whole value).
    /// A backtracking match that gave up is false.
    package func matchesWhole(_ value: String) -> Bool {
        verdict(value) == .match
    }

    /// Whether the whole value does not match: a match that gave up is false here too.
    package func doesNotMatchWhole(_ value: String) -> Bool {
        verdict(value) == .noMatch
    }

    package func verdict(_ value: String) -> RegexVerdict {
        switch engine {
        case .linear(let regex):
            return regex.matchesWhole(value) ? .match : .noMatch
        case .backtracking(let regex):
            func run(_ budget: Int) -> (RegexVerdict, steps: Int) {
                var stats = RegexRunStats()
                let verdict = regex.matchesWhole(value, budget: budget, stats: &stats)
                return (verdict, stats.steps)
            }
            guard let log = RegexBudget.current else { return run(regex.budget).0 }
            return log.verdict(self, value, run: run)
        }
    }

    /// The leftmost match and its groups (Java's `find`), for extracting parts of a value.
    /// A backtracking search that gave up is nil, and recorded.
    package func firstMatch(in value: String) -> RegexMatch? {
        switch engine {
        case .linear(let regex):
            return regex.firstMatch(in: value)
        case .backtracking(let regex):
            switch regex.firstMatch(in: value) {
            case .found(let match): return match
            case .aborted:
                RegexBudget.current?.recordFirstMatchAbort(self, value)
                return nil
            }
        }
    }
}
