#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON

/// Checking what a client sent: the journal entries a request pattern matches, and for a check
/// that failed, the entries that came closest and what differed (a near-miss report turned
/// around: one pattern against the requests, instead of one request against the stubs).
extension Engine {
    /// The journal entries a request matcher (the `request` object of a stub, as JSON) matches.
    /// With the journal off it throws: nothing recorded must not read as "never called".
    package func journalEntries(
        matching json: [UInt8],
        label: String = "request body"
    ) throws(StubProblems) -> [JournalEntry] {
        let pattern = try requestPattern(json, label: label)
        return journal.clientEntries.filter { RequestMatcher.match(pattern, RequestFacts($0.request)) != nil }
    }

    /// One journal entry a pattern did not match, and the conditions it failed.
    package struct CloseEntry: Sendable {
        package let entry: JournalEntry
        package let mismatches: [Mismatch]
    }

    /// The up to `limit` journal entries closest to matching a pattern, fewest and least
    /// important failures first (weighed as near-miss reports weigh them), newest first among equals.
    package func closestEntries(
        to json: [UInt8],
        limit: Int = 3,
        label: String = "request body"
    ) throws(StubProblems) -> [CloseEntry] {
        let pattern = try requestPattern(json, label: label)
        var scored: [(score: Double, close: CloseEntry)] = []
        for entry in journal.clientEntries.reversed() {
            let mismatches = RequestMatcher.mismatches(pattern, RequestFacts(entry.request))
            guard !mismatches.isEmpty else { continue }
            let score = mismatches.reduce(0) {
                $0 + NearMissReport.weight(of: $1, patternPath: pattern.path, requestPath: entry.path)
            }
            scored.append((score, CloseEntry(entry: entry, mismatches: mismatches)))
        }
        // A stable sort keeps the newest first among equal scores.
        return Array(
            scored.enumerated().sorted { ($0.element.score, $0.offset) < ($1.element.score, $1.offset) }.prefix(limit)
                .map(\.element.close)
        )
    }

    private func requestPattern(_ json: [UInt8], label: String) throws(StubProblems) -> RequestPattern {
        guard journal.isEnabled else {
            throw StubProblems(problems: [StubProblem(.error, file: label, message: Journal.offMessage)])
        }
        return try options.stubDecoder.decodeRequest(json, label: label).get()
    }
}
