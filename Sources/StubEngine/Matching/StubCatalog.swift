/// An immutable, indexed set of stubs: what one reload produces and requests read.
///
/// Matching must not slow down as a folder grows to thousands of stubs, so stubs are indexed:
/// a stub whose path is all literal is found by a dictionary lookup of the request path; one
/// whose path starts with a literal segment by that segment; only the rest (no path, a regex, a
/// leading `{name}`) are checked for every request. Each bucket is kept in selection order, so
/// the first match in a bucket is that bucket's best.
public struct StubCatalog: Sendable {
    public let stubs: [Stub]
    private let exact: [String: [Int]]
    private let byLeadingSegment: [String: [Int]]
    private let unindexed: [Int]

    public init(_ stubs: [Stub]) {
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
    }

    public static let empty = StubCatalog([])

    /// Whether any stub has a sequence or a scenario: then matching needs the engine's state.
    public var isStateful: Bool { statefulCount > 0 }
    private let statefulCount: Int

    public var count: Int { stubs.count }

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
        if !byLeadingSegment.isEmpty, let first = facts.firstSegment { consider(byLeadingSegment[first]) }
        consider(unindexed)
        return best
    }
}
