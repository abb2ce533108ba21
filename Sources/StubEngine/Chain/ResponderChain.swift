import HTTP1

// The links are classes (`AnyObject`): calling one through its existential is then a call on a
// reference. A struct link was copied out of its box to open it for the call, retaining and
// releasing each of its fields on every request (0.8% of samples at c64).

/// One link of the chain: answers a request, or passes (nil) to the next.
/// Where to add one: a new kind of answer (a proxy, a dialect's admin API) is a `Responder`
/// placed before the fallback in `Engine.makeChain`.
package protocol Responder: AnyObject, Sendable {
    func respond(to facts: RequestFacts) -> Outcome?
}

/// The last link: always answers (the near-miss 404 today).
package protocol FallbackResponder: AnyObject, Sendable {
    func respond(to facts: RequestFacts) -> Outcome
}

/// Wraps everything inside it: sees the request before and the outcome after (the journal,
/// the request log, the global delay, CORS headers). It must keep the outcome's kind.
package protocol ResponderWrapper: AnyObject, Sendable {
    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome
}

/// A wrapper with nothing to do before the request is answered: it only adjusts the outcome
/// (the webhooks, the global delay). The chain calls `adjust` on the outcome where it lies,
/// with no closure for the rest of the chain and no copy of the outcome through one more
/// return: as plain wrappers, the two cost some 400 instructions per request doing nothing.
package protocol OutcomeAdjuster: ResponderWrapper {
    func adjust(_ outcome: inout Outcome, for facts: RequestFacts)
}

extension OutcomeAdjuster {
    package func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        var outcome = next(facts)
        adjust(&outcome, for: facts)
        return outcome
    }
}

/// Wrappers (outermost first) around responders (first that answers wins) and a fallback.
///
/// A class, and its links are called in place: as a struct read from the engine, and with each
/// link copied out of its array before the call, every request retained and released every
/// link's fields (the c64 profile showed the copies), objects both event loops share.
package final class ResponderChain: Sendable {
    package let wrappers: [any ResponderWrapper]
    package let responders: [any Responder]
    package let fallback: any FallbackResponder

    /// `wrappers` as levels, told apart once here rather than cast per request: level `n` is
    /// the adjusters that follow the `n`th plain wrapper (level 0: those before any), applied
    /// innermost first to the outcome of `plain[n]` (past the last: of the responders).
    private let plain: [any ResponderWrapper]
    private let adjusters: [any OutcomeAdjuster]
    /// Where each level's adjusters start in `adjusters`, and past the last level, their end.
    private let levelStarts: [Int]

    package init(wrappers: [any ResponderWrapper], responders: [any Responder], fallback: any FallbackResponder) {
        self.wrappers = wrappers
        self.responders = responders
        self.fallback = fallback
        var plain: [any ResponderWrapper] = []
        var adjusters: [any OutcomeAdjuster] = []
        var levelStarts = [0]
        for wrapper in wrappers {
            if let adjuster = wrapper as? any OutcomeAdjuster {
                adjusters.append(adjuster)
            } else {
                plain.append(wrapper)
                levelStarts.append(adjusters.count)
            }
        }
        levelStarts.append(adjusters.count)
        self.plain = plain
        self.adjusters = adjusters
        self.levelStarts = levelStarts
    }

    package func respond(to facts: RequestFacts) -> Outcome {
        level(0, facts)
    }

    private func level(_ level: Int, _ facts: RequestFacts) -> Outcome {
        var outcome = level < plain.count ? wrapped(level, facts) : answer(facts)
        // No closure captures `outcome`: one that did made the compiler copy it out and back.
        let start = levelStarts[level]
        var index = levelStarts[level + 1]
        while index > start {
            index -= 1
            adjusters[index].adjust(&outcome, for: facts)
        }
        return outcome
    }

    private func wrapped(_ level: Int, _ facts: RequestFacts) -> Outcome {
        plain.withUnsafeBufferPointer { plain in
            plain[level].respond(to: facts) { self.level(level + 1, $0) }
        }
    }

    private func answer(_ facts: RequestFacts) -> Outcome {
        let answered = responders.withUnsafeBufferPointer { links -> Outcome? in
            for index in links.indices {
                if let outcome = links[index].respond(to: facts) { return outcome }
            }
            return nil
        }
        // Not `??`: its autoclosure copied the fallback on every request, answered or not.
        if let answered { return answered }
        return fallback.respond(to: facts)
    }
}
