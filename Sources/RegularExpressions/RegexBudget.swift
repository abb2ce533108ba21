#if canImport(SystemSupport)
import SystemSupport
#endif

/// A regular-expression match that gave up: the backtracking engine reached its budget, so the
/// match counted as no match. Kept so that it is never silent: whoever matched says which of its
/// rules (to the engine: which stub's which matcher) gave up, and why.
package struct RegexAbort: Sendable, Equatable {
    /// The rule being checked when it happened (to the engine, a stub), nil when none was named.
    package var ruleID: String?
    package var ruleName: String?
    /// The condition, as the near-miss report names it (`header.X`, `body`), when known.
    package var condition: String?
    package let pattern: String
    package let reason: String
}

/// The backtracking budget of one request: the verdicts of its backtracking matches (each
/// pattern runs once per value, however many times matching and the near-miss report ask), the
/// steps spent (at most `requestBudget` in all, so that many such rules cannot add up to an
/// unbounded time), and the matches that gave up.
///
/// Bound for a request with `RegexBudget.$current` by whoever matches (the stub responder, the
/// near-miss report); `CompiledRegex` reads it. Without one, each match has its own budget.
package final class RegexBudgetLog: Sendable {
    private struct Key: Hashable {
        let regex: ObjectIdentifier
        let value: String
    }

    /// A decided match, and for an aborted one its place in `aborts`.
    private struct Decided {
        let verdict: RegexVerdict
        let abort: Int?
    }

    private struct State {
        var spent = 0
        var decided: [Key: Decided] = [:]
        var aborts: [RegexAbort] = []
        var abortEvents = 0
        var lastEvent: Int?
        var rule: (id: String, name: String)?
        var condition: String?
    }

    private let state = Locked(State())

    package init() {}

    /// Steps all the backtracking matches of one request may take together.
    package static let requestBudget = 4 * BacktrackingRegex.defaultBudget

    package var aborts: [RegexAbort] { state.withLock { $0.aborts } }
    /// Aborted answers given (a repeated one too): a check that saw this grow saw an abort.
    package var abortEvents: Int { state.withLock { $0.abortEvents } }
    /// Why the latest aborted answer gave up.
    package var lastEventReason: String? { state.withLock { s in s.lastEvent.map { s.aborts[$0].reason } } }

    /// The rule now being checked (to the engine, a stub), for the aborts to name.
    package func matching(ruleID: String, name: String) {
        state.withLock {
            $0.rule = (ruleID, name)
            $0.condition = nil
        }
    }

    /// The condition now being checked (nil: not known until it fails).
    package func matching(condition: String?) {
        state.withLock { $0.condition = condition }
    }

    /// Names the condition of the latest abort, when it was not known as it happened.
    package func nameLastAbort(condition: String) {
        state.withLock { s in
            guard let last = s.lastEvent, s.aborts[last].condition == nil else { return }
            s.aborts[last].condition = condition
        }
    }

    func verdict(
        _ regex: CompiledRegex,
        _ value: String,
        run: (_ budget: Int) -> (RegexVerdict, steps: Int)
    ) -> RegexVerdict {
        let key = Key(regex: ObjectIdentifier(regex), value: value)
        let known = state.withLock { s -> RegexVerdict? in
            guard let decided = s.decided[key] else { return nil }
            if let index = decided.abort {
                s.abortEvents += 1
                s.lastEvent = index
                // Asked again with more known (the near-miss report names the condition).
                if s.aborts[index].condition == nil { s.aborts[index].condition = s.condition }
            }
            return decided.verdict
        }
        if let known { return known }
        let remaining = state.withLock { Self.requestBudget - $0.spent }
        let (verdict, steps) = remaining > 0 ? run(remaining) : (.aborted, 0)
        state.withLock { s in
            s.spent += steps
            guard verdict == .aborted else {
                s.decided[key] = Decided(verdict: verdict, abort: nil)
                return
            }
            let reason =
                remaining < regex.budget
                ? "gave up: the request's budget of \(Self.requestBudget) backtracking steps was spent"
                : "gave up after \(regex.budget) backtracking steps"
            record(&s, regex, value, reason)
            s.decided[key] = Decided(verdict: verdict, abort: s.lastEvent)
        }
        return verdict
    }

    func recordFirstMatchAbort(_ regex: CompiledRegex, _ value: String) {
        state.withLock { record(&$0, regex, value, "gave up after \(regex.budget) backtracking steps") }
    }

    private func record(_ s: inout State, _ regex: CompiledRegex, _ value: String, _ reason: String) {
        s.abortEvents += 1
        s.aborts.append(
            RegexAbort(
                ruleID: s.rule?.id,
                ruleName: s.rule?.name,
                condition: s.condition,
                pattern: regex.pattern,
                reason: reason + " on a value of \(value.unicodeScalars.count) characters"
            )
        )
        s.lastEvent = s.aborts.count - 1
    }
}

/// Where `CompiledRegex` finds the request's budget.
package enum RegexBudget {
    @TaskLocal package static var current: RegexBudgetLog?

    /// The negation of a check that may run regexes: a check that gave up is not negated into
    /// a match (`doesNotMatch`, WireMock's `not`, JSONPath's `!`): an aborted match fails its
    /// condition whichever way the condition reads.
    package static func negation(of check: () -> Bool) -> Bool {
        if let log = current {
            let before = log.abortEvents
            let held = check()
            return log.abortEvents == before && !held
        }
        let log = RegexBudgetLog()
        let held = $current.withValue(log) { check() }
        return log.abortEvents == 0 && !held
    }
}
