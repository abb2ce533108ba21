import HTTP1
import JSON
import SystemSupport
import RegularExpressions

/// Why no stub answered a request: the closest stubs and, for each, what differed.
/// Clearer than a diff of whole requests: one line per failed condition, expected against actual.
package struct NearMissReport: Sendable {
    package struct Candidate: Sendable {
        /// The stub's id, for the admin API (the inspector fetches the stub to make a new one).
        package let id: String
        package let name: String
        package let source: String
        package let mismatches: [Mismatch]
    }

    package let method: String
    package let target: String
    package let candidates: [Candidate]
    package let stubCount: Int
    /// For a report computed off the event loop: filled before the 404 goes out, so whoever
    /// looks at the outcome once it is answered (journal, log) reads the real report.
    private let later: Locked<NearMissReport?>?

    init(method: String, target: String, candidates: [Candidate], stubCount: Int, later: Locked<NearMissReport?>? = nil)
    {
        self.method = method
        self.target = target
        self.candidates = candidates
        self.stubCount = stubCount
        self.later = later
    }

    /// The report itself: the one computed later, once it is.
    package var resolved: NearMissReport { later?.value ?? self }

    /// A report to be computed off the loop, and the box it goes in.
    static func pending(for request: IncomingRequest, stubCount: Int) -> (NearMissReport, Locked<NearMissReport?>) {
        let box = Locked<NearMissReport?>(nil)
        return (
            NearMissReport(
                method: request.method,
                target: request.target,
                candidates: [],
                stubCount: stubCount,
                later: box
            ), box
        )
    }

    /// The up to `limit` stubs that came closest, fewest and least important failures first.
    /// Stubs that may backtrack are scored against the request's regex budget (its verdicts
    /// and aborts, from matching), so a pattern runs once per value however often it is asked.
    package static func build(
        for facts: RequestFacts,
        in catalog: StubCatalog,
        scenarioStates: [String: String] = [:],
        limit: Int = 3,
        budget: RegexBudgetLog? = nil
    ) -> NearMissReport {
        guard catalog.mayBacktrack else { return score(facts, catalog, scenarioStates, limit, budget: nil) }
        let log = budget ?? facts.regexBudget()
        return RegexBudget.$current.withValue(log) { score(facts, catalog, scenarioStates, limit, budget: log) }
    }

    private static func score(
        _ facts: RequestFacts,
        _ catalog: StubCatalog,
        _ scenarioStates: [String: String],
        _ limit: Int,
        budget: RegexBudgetLog?
    ) -> NearMissReport {
        let path = facts.request.path
        func score(_ m: Mismatch, _ stub: Stub) -> Double {
            weight(of: m, patternPath: stub.request.path, requestPath: path)
        }
        var scored: [(score: Double, farOff: Bool, stub: Stub, mismatches: [Mismatch])] = []
        scored.reserveCapacity(min(catalog.count, fullyScored))
        for stub in shortlist(facts, catalog) {
            let stubBudget = stub.mayBacktrack ? budget : nil
            stubBudget?.matching(ruleID: stub.id, name: stub.name)
            var mismatches = RequestMatcher.mismatches(stub.request, facts, budget: stubBudget)
            if let rule = stub.scenario, let when = rule.when {
                let current = scenarioStates[rule.name] ?? ScenarioRule.initialState
                if current != when {
                    mismatches.append(
                        Mismatch(
                            condition: "scenario.\(rule.name)",
                            expected: "state \"\(when)\"",
                            actual: "\"\(current)\""
                        )
                    )
                }
            }
            guard !mismatches.isEmpty else { continue }
            let farOff =
                mismatches.contains { $0.condition == "method" } && mismatches.contains { $0.condition == "path" }
            scored.append((mismatches.reduce(0) { $0 + score($1, stub) }, farOff, stub, mismatches))
        }
        // Another method on another path is not "close" once anything closer exists.
        if scored.contains(where: { !$0.farOff }) { scored.removeAll { $0.farOff } }
        scored.sort { $0.score != $1.score ? $0.score < $1.score : $0.stub.rank < $1.stub.rank }
        let closest = scored.prefix(limit)
        return NearMissReport(
            method: facts.request.method,
            target: facts.request.target,
            candidates: closest.map {
                Candidate(
                    id: $0.stub.id,
                    name: $0.stub.name,
                    source: $0.stub.source.description,
                    mismatches: $0.mismatches
                )
            },
            stubCount: catalog.count
        )
    }
    /// How much a failed condition counts against closeness. A wrong method weighs more than a
    /// missing header: a stub for the right endpoint with the wrong header is what the user most
    /// likely meant. A wrong path weighs by how far it is from the request's (a typo in one
    /// segment is close; another endpoint is far).
    package static func weight(of mismatch: Mismatch, patternPath: PathPattern?, requestPath: String) -> Double {
        switch mismatch.condition {
        case "method": return 3
        case "path":
            let source = patternPath?.source ?? ""
            let distance =
                Double(Suggestion.editDistance(source, requestPath)) / Double(max(source.count, requestPath.count, 1))
            return 1 + 5 * distance
        default: return 1
        }
    }

    /// Stubs scored condition by condition per unmatched request; above this, a cheap first pass
    /// (method and path segments only, no regex, no body) picks which ones. Scoring every stub of
    /// 10,000 once took 55 ms per unmatched request.
    static let fullyScored = 64
    /// Stubs the cheap pass looks at, at most: the request path's index buckets first.
    static let roughlyScored = 20_000

    private static func shortlist(_ facts: RequestFacts, _ catalog: StubCatalog) -> [Stub] {
        guard catalog.count > fullyScored else { return catalog.stubs }
        let method = facts.request.method
        let segments = facts.segments
        var rough: [(score: Double, index: Int)] = []
        let candidates = catalog.nearMissCandidates(
            path: facts.request.path,
            firstSegment: facts.firstSegment,
            limit: roughlyScored
        )
        rough.reserveCapacity(candidates.count)
        for i in candidates {
            let request = catalog.stubs[i].request
            var score = 0.0
            if let methods = request.methods, !methods.contains(method) { score += 3 }
            if let path = request.path { score += 5 * path.roughDistance(segments) }
            rough.append((score, i))
        }
        // Only the best `fullyScored` are needed, in any order: a partial sort would do, but
        // a sort of 20,000 pairs is well under a millisecond.
        rough.sort { $0.score != $1.score ? $0.score < $1.score : $0.index < $1.index }
        return rough.prefix(fullyScored).map { catalog.stubs[$0.index] }
    }

    /// For the console and for clients that do not accept JSON.
    package var text: String {
        var lines = ["No stub matched \(method) \(target)"]
        if candidates.isEmpty {
            lines.append(stubCount == 0 ? "There are no stubs loaded." : "No stub came close.")
        } else {
            lines.append("Closest stubs, and what differed:")
            for (i, candidate) in candidates.enumerated() {
                lines.append(
                    candidate.name == candidate.source
                        ? "  \(i + 1). \(candidate.source)"
                        : "  \(i + 1). \"\(candidate.name)\" (\(candidate.source))"
                )
                for m in candidate.mismatches {
                    lines.append(
                        "       \(m.condition): expected \(m.expected), got \(m.actual)"
                            + (m.aborted.map { " (aborted: \($0))" } ?? "")
                    )
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    package var json: String {
        let quoted = JSONSerializer.quoted
        var out = "{\"error\":\"no stub matched\","
        out += "\"request\":{\"method\":\(quoted(method)),\"target\":\(quoted(target))},\"closest\":["
        out += candidates.map { c in
            "{\"name\":\(quoted(c.name)),\"source\":\(quoted(c.source)),\"mismatches\":["
                + c.mismatches.map { m in
                    "{\"condition\":\(quoted(m.condition)),\"expected\":\(quoted(m.expected)),"
                        + "\"actual\":\(quoted(m.actual))"
                        + (m.aborted.map { ",\"aborted\":\(JSONSerializer.quoted($0))" } ?? "") + "}"
                }.joined(separator: ",") + "]}"
        }.joined(separator: ",")
        return out + "]}"
    }

    /// JSON when the client says it accepts JSON, text otherwise.
    func response(for request: IncomingRequest) -> OutgoingResponse {
        var headers = HeaderFields()
        let wantsJSON = request.headers.values("Accept").contains { $0.lowercased().contains("json") }
        headers.add("Content-Type", wantsJSON ? "application/json" : "text/plain; charset=utf-8")
        headers.add("X-Stubserver-Match", "none")
        return OutgoingResponse(status: 404, headers: headers, body: Array((wantsJSON ? json : text).utf8))
    }
}

extension Engine {
    /// The stubs closest to matching a request, in the engine's state now (WireMock's admin API
    /// asks for a request that was never sent).
    package func nearMisses(for request: IncomingRequest) -> NearMissReport {
        let (catalog, scenarios) = state.withLock { ($0.catalog, $0.scenarios) }
        return NearMissReport.build(for: RequestFacts(request), in: catalog, scenarioStates: scenarios)
    }
}
