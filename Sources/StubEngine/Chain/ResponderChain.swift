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

/// Wrappers (outermost first) around responders (first that answers wins) and a fallback.
///
/// A class, and its links are called in place: as a struct read from the engine, and with each
/// link copied out of its array before the call, every request retained and released every
/// link's fields (the c64 profile showed the copies), objects both event loops share.
package final class ResponderChain: Sendable {
    package let wrappers: [any ResponderWrapper]
    package let responders: [any Responder]
    package let fallback: any FallbackResponder

    package init(wrappers: [any ResponderWrapper], responders: [any Responder], fallback: any FallbackResponder) {
        self.wrappers = wrappers
        self.responders = responders
        self.fallback = fallback
    }

    package func respond(to facts: RequestFacts) -> Outcome {
        wrapped(facts, depth: 0)
    }

    private func wrapped(_ facts: RequestFacts, depth: Int) -> Outcome {
        guard depth < wrappers.count else { return answer(facts) }
        return wrappers.withUnsafeBufferPointer { links in
            links[depth].respond(to: facts) { self.wrapped($0, depth: depth + 1) }
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
