/// An immutable, indexed set of stubs: what one reload produces and requests read.
///
/// Matching must not slow down as a folder grows to thousands of stubs, so stubs are indexed:
/// a stub whose path is all literal is found by a dictionary lookup of the request path; one
/// whose path starts with a literal segment by that segment; only the rest (no path, a regex, a
/// leading `{name}`) are checked for every request. Each bucket is kept in selection order, so
/// the first match in a bucket is that bucket's best.
package struct StubCatalog: Sendable {
    package private(set) var stubs: [Stub]
    private var exact: [String: [Int]]
    private var byLeadingSegment: [String: [Int]]
    private var unindexed: [Int]
    /// The best rank of any stub outside the exact-path buckets: when an exact-path stub matches
    /// and outranks it, nothing else can win, and the request's path is never looked at again
    /// (the common case: a literal path, no competing patterns).
    private var bestOutsideExact: StubRank?

    package init(_ stubs: [Stub]) {
        self.stubs = stubs
        statefulCount = stubs.filter(\.isStateful).count
        var exact: [String: [Int]] = [:]
        var leading: [String: [Int]] = [:]
        var unindexed: [Int] = []
        for (i, stub) in stubs.enumerated() {
            if let literal = stub.request.path?.literalPath {
                exact[literal, default: []].append(i)
            } else if let first = stub.request.path?.leadingLiteral {
                leading[first, default: []].append(i)
            } else {
                unindexed.append(i)
            }
        }
        let ranks = stubs.map(\.rank)
        let byRank: (Int, Int) -> Bool = { ranks[$0] < ranks[$1] }
        self.exact = exact.mapValues { $0.sorted(by: byRank) }
        self.byLeadingSegment = leading.mapValues { $0.sorted(by: byRank) }
        self.unindexed = unindexed.sorted(by: byRank)
        self.bestOutsideExact = (leading.values.joined() + unindexed).map { ranks[$0] }.min()
    }

    package static let empty = StubCatalog([])

    /// Adds one stub without rebuilding: its index goes into its bucket at its rank (after any
    /// equal rank, so earlier additions keep winning ties). Adding 10,000 runtime stubs one
    /// request at a time once rebuilt and re-sorted everything each time (88 s in all).
    mutating func insert(_ stub: Stub) {
        let index = stubs.count
        stubs.append(stub)
        if stub.isStateful { statefulCount += 1 }
        func place(_ bucket: inout [Int]) {
            var low = 0, high = bucket.count
            while low < high {
                let mid = (low + high) / 2
                if stub.rank < stubs[bucket[mid]].rank { high = mid } else { low = mid + 1 }
            }
            bucket.insert(index, at: low)
        }
        if let literal = stub.request.path?.literalPath {
            place(&exact[literal, default: []])
        } else if let first = stub.request.path?.leadingLiteral {
            place(&byLeadingSegment[first, default: []])
            bestOutsideExact = min(bestOutsideExact ?? stub.rank, stub.rank)
        } else {
            place(&unindexed)
            bestOutsideExact = min(bestOutsideExact ?? stub.rank, stub.rank)
        }
    }

    /// Whether any stub has a sequence or a scenario: then matching needs the engine's state.
    package var isStateful: Bool { statefulCount > 0 }
    private var statefulCount: Int

    /// Indices of the stubs most likely to be near misses first (the request path's bucket, its
    /// leading segment's, the unindexed ones), then the rest: the near-miss report scores a
    /// bounded number of stubs in this order.
    func nearMissCandidates(path: String, firstSegment: String?, limit: Int) -> [Int] {
        var seen = Set<Int>()
        var order: [Int] = []
        func take(_ bucket: [Int]?) {
            for i in bucket ?? [] where order.count < limit && seen.insert(i).inserted { order.append(i) }
        }
        take(exact[path])
        if let firstSegment { take(byLeadingSegment[firstSegment]) }
        take(unindexed)
        if order.count < limit {
            for i in stubs.indices where order.count < limit && !seen.contains(i) { order.append(i) }
        }
        return order
    }

    package var count: Int { stubs.count }

    /// The stub that answers, with its path captures, or nil.
    /// `eligible` filters on state the catalog does not hold (scenario states).
    func bestMatch(_ facts: RequestFacts, eligible: ((Stub) -> Bool)? = nil) -> (stub: Stub, captures: [String: String])? {
        var best: (stub: Stub, captures: [String: String])?
        func consider(_ bucket: [Int]?) {
            guard let bucket else { return }
            for i in bucket {
                let stub = stubs[i]
                // Buckets are in rank order: nothing later in this one can beat the best so far.
                if let current = best, !(stub.rank < current.stub.rank) { return }
                if eligible?(stub) == false { continue }
                if let captures = RequestMatcher.match(stub.request, facts) {
                    best = (stub, captures)
                    return
                }
            }
        }
        consider(exact[facts.request.path])
        if let found = best, !(bestOutsideExact.map { $0 < found.stub.rank } ?? false) { return found }
        if !byLeadingSegment.isEmpty, let first = facts.firstSegment { consider(byLeadingSegment[first]) }
        consider(unindexed)
        return best
    }
}
