import RegularExpressions
/// An immutable, indexed set of stubs: what one reload produces and requests read.
///
/// Matching must not slow down as a folder grows to thousands of stubs, so stubs are indexed:
/// a stub whose path is all literal is found by a lookup of the request path (`LiteralIndex`);
/// one whose path starts with a literal segment by that segment; only the rest (no path, a regex, a
/// leading `{name}`) are checked for every request. Each bucket is kept in selection order, so
/// the first match in a bucket is that bucket's best.
package struct StubCatalog: Sendable {
    /// Every request copies the catalog out of the engine's lock, on every event loop at once:
    /// one shared object costs that copy one retain, where five fields cost five, each an atomic
    /// on a cache line both loops touch (0.8% of the server's samples at c64).
    private final class Storage: @unchecked Sendable {
        // Changed only by `insert`, on a storage no other catalog shares (copied first if shared),
        // so no read can overlap a change: the runtime's exclusivity checks (two per request,
        // some 180 instructions) guard nothing here, and are off.
        @exclusivity(unchecked) var stubs: [Stub]
        // `let`s: the indexes change in place (their own storage), and a `let` is read without
        // the retain a variable holding an object cost on every request.
        let exact: LiteralIndex
        let byLeadingSegment: LiteralIndex
        @exclusivity(unchecked) var unindexed: [Int]
        /// The best rank of any stub outside the exact-path buckets: when an exact-path stub
        /// matches and outranks it, nothing else can win, and the request's path is never looked
        /// at again (the common case: a literal path, no competing patterns).
        @exclusivity(unchecked) var bestOutsideExact: StubRank?
        @exclusivity(unchecked) var statefulCount: Int
        @exclusivity(unchecked) var backtrackingCount: Int

        init(
            stubs: [Stub],
            exact: LiteralIndex,
            byLeadingSegment: LiteralIndex,
            unindexed: [Int],
            bestOutsideExact: StubRank?,
            statefulCount: Int,
            backtrackingCount: Int
        ) {
            self.stubs = stubs
            self.exact = exact
            self.byLeadingSegment = byLeadingSegment
            self.unindexed = unindexed
            self.bestOutsideExact = bestOutsideExact
            self.statefulCount = statefulCount
            self.backtrackingCount = backtrackingCount
        }

        func copy() -> Storage {
            Storage(
                stubs: stubs,
                exact: exact.copy(),
                byLeadingSegment: byLeadingSegment.copy(),
                unindexed: unindexed,
                bestOutsideExact: bestOutsideExact,
                statefulCount: statefulCount,
                backtrackingCount: backtrackingCount
            )
        }
    }

    private var storage: Storage

    package var stubs: [Stub] { storage.stubs }

    package init(_ stubs: [Stub]) {
        let exact = LiteralIndex()
        let leading = LiteralIndex()
        var unindexed: [Int] = []
        var outsideExact: [Int] = []
        for (i, stub) in stubs.enumerated() {
            if let literal = stub.request.path?.literalPath {
                exact.append(i, at: literal)
            } else if let first = stub.request.path?.leadingLiteral {
                leading.append(i, at: first)
                outsideExact.append(i)
            } else {
                unindexed.append(i)
                outsideExact.append(i)
            }
        }
        let ranks = stubs.map(\.rank)
        let byRank: (Int, Int) -> Bool = { ranks[$0] < ranks[$1] }
        exact.sortBuckets(by: byRank)
        leading.sortBuckets(by: byRank)
        storage = Storage(
            stubs: stubs,
            exact: exact,
            byLeadingSegment: leading,
            unindexed: unindexed.sorted(by: byRank),
            bestOutsideExact: outsideExact.map { ranks[$0] }.min(),
            statefulCount: stubs.filter(\.isStateful).count,
            backtrackingCount: stubs.filter(\.mayBacktrack).count
        )
    }

    package static let empty = StubCatalog([])

    /// Adds one stub without rebuilding: its index goes into its bucket at its rank (after any
    /// equal rank, so earlier additions keep winning ties). Adding 10,000 runtime stubs one
    /// request at a time once rebuilt and re-sorted everything each time (88 s in all).
    mutating func insert(_ stub: Stub) {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        let storage = storage
        let index = storage.stubs.count
        storage.stubs.append(stub)
        if stub.isStateful { storage.statefulCount += 1 }
        if stub.mayBacktrack { storage.backtrackingCount += 1 }
        let stubs = storage.stubs
        func place(_ bucket: inout [Int]) {
            var low = 0
            var high = bucket.count
            while low < high {
                let mid = (low + high) / 2
                if stub.rank < stubs[bucket[mid]].rank { high = mid } else { low = mid + 1 }
            }
            bucket.insert(index, at: low)
        }
        if let literal = stub.request.path?.literalPath {
            storage.exact.modifyBucket(literal, place)
        } else if let first = stub.request.path?.leadingLiteral {
            storage.byLeadingSegment.modifyBucket(first, place)
            storage.bestOutsideExact = min(storage.bestOutsideExact ?? stub.rank, stub.rank)
        } else {
            place(&storage.unindexed)
            storage.bestOutsideExact = min(storage.bestOutsideExact ?? stub.rank, stub.rank)
        }
    }

    /// Whether any stub has a sequence or a scenario: then matching needs the engine's state.
    package var isStateful: Bool { storage.statefulCount > 0 }

    /// Whether any stub may use the backtracking engine: then matching keeps the request's
    /// regex budget (`RegexBudgetLog`).
    package var mayBacktrack: Bool { storage.backtrackingCount > 0 }

    /// Indices of the stubs most likely to be near misses first (the request path's bucket, its
    /// leading segment's, the unindexed ones), then the rest: the near-miss report scores a
    /// bounded number of stubs in this order.
    func nearMissCandidates(path: String, firstSegment: String?, limit: Int) -> [Int] {
        var seen = Set<Int>()
        var order: [Int] = []
        func take(_ bucket: [Int]?) {
            for i in bucket ?? [] where order.count < limit && seen.insert(i).inserted { order.append(i) }
        }
        take(storage.exact.bucket(path))
        if let firstSegment { take(storage.byLeadingSegment.bucket(firstSegment)) }
        take(storage.unindexed)
        if order.count < limit {
            for i in storage.stubs.indices where order.count < limit && !seen.contains(i) { order.append(i) }
        }
        return order
    }

    package var count: Int { storage.stubs.count }

    /// The stub that answers, with its path captures, or nil.
    /// `eligible` filters on state the catalog does not hold (scenario states).
    /// With stubs that may backtrack, their matches run against the request's regex budget
    /// (`facts.regexBudget()`), and a match that gives up is recorded there with its stub.
    func bestMatch(
        _ facts: RequestFacts,
        eligible: ((Stub) -> Bool)? = nil
    ) -> (stub: Stub, captures: [String: String])? {
        guard mayBacktrack else { return bestMatch(facts, eligible, budget: nil) }
        let log = facts.regexBudget()
        return RegexBudget.$current.withValue(log) { bestMatch(facts, eligible, budget: log) }
    }

    private func bestMatch(
        _ facts: RequestFacts,
        _ eligible: ((Stub) -> Bool)?,
        budget: RegexBudgetLog?
    ) -> (stub: Stub, captures: [String: String])? {
        let storage = storage
        var best: Match?
        // The bucket's stubs have this very path: matching them checks the rest.
        Self.consider(storage.exact.bucket(facts.request.path), storage.stubs, facts, eligible, budget, &best, true)
        if let found = best, !(storage.bestOutsideExact.map { $0 < found.stub.rank } ?? false) { return found }
        if !storage.byLeadingSegment.isEmpty, let first = facts.firstSegment {
            Self.consider(storage.byLeadingSegment.bucket(first), storage.stubs, facts, eligible, budget, &best)
        }
        Self.consider(storage.unindexed, storage.stubs, facts, eligible, budget, &best)
        return best
    }

    private typealias Match = (stub: Stub, captures: [String: String])

    /// The first stub of `bucket` that matches and beats `best`. A static function taking `best`
    /// inout, not a nested one capturing it: a captured variable is boxed and every access to
    /// it checked for exclusivity at run time.
    private static func consider(
        _ bucket: [Int]?,
        _ stubs: [Stub],
        _ facts: RequestFacts,
        _ eligible: ((Stub) -> Bool)?,
        _ budget: RegexBudgetLog?,
        _ best: inout Match?,
        _ pathMatched: Bool = false
    ) {
        guard let bucket else { return }
        for i in bucket {
            let stub = stubs[i]
            // Buckets are in rank order: nothing later in this one can beat the best so far.
            if let rank = best?.stub.rank, !(stub.rank < rank) { return }
            if eligible?(stub) == false { continue }
            if let budget, stub.mayBacktrack { budget.matching(ruleID: stub.id, name: stub.name) }
            if let captures = stub.match(facts, pathMatched: pathMatched) {
                best = (stub, captures)
                return
            }
        }
    }
}
