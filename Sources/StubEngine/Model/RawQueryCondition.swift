/// `rawQuery`: the query exactly as sent (after `?`, not percent-decoded, in its order) against
/// a matcher; `{"absent": true}` holds only for a request without a query. `query` checks named
/// parameters and lets others through; this is for when the whole query must be what it is (an
/// imported WireMock `url`, which compares path and query as sent).
package struct RawQueryCondition: RequestCondition {
    let matcher: ValueMatcher

    package func holds(_ facts: RequestFacts, captures: [String: String]) -> Bool {
        matcher.matches(Self.values(facts))
    }

    package func mismatch(_ facts: RequestFacts, captures: [String: String]) -> Mismatch {
        let actual = RequestMatcher.describe(Self.values(facts))
        return Mismatch(condition: "rawQuery", expected: matcher.description, actual: actual)
    }

    package func encode(into request: inout EncodedRequest) {
        request.rawQuery = EncodedRequest.matcher(matcher)
    }

    /// The query as the one value the matcher sees, or none when the target has no `?`.
    private static func values(_ facts: RequestFacts) -> [String] {
        facts.request.rawQuery.map { [$0] } ?? []
    }

    package init(matcher: ValueMatcher) {
        self.matcher = matcher
    }
}
