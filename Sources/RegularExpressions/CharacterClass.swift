/// One consuming step that tests a single scalar: explicit characters and ranges, plus named
/// sets (\d, \p{L}, [:alpha:]) each possibly negated, the whole possibly negated.
///
/// Case-insensitive classes follow ICU: the explicit characters are closed over case at compile
/// time; a named set inside the class is closed at match time by trying the other members of
/// the scalar's case orbit (so nothing has to enumerate \p{L}). A negated \P{..} or [:^..:]
/// under (?i) is the complement of the closed set, and [^...] complements after closing.
struct CharacterClass: Sendable {
    struct Item: Sendable, Equatable {
        let set: NamedSet
        let negated: Bool
        /// Closed over case before `negated` applies (\p and POSIX classes under (?i)).
        let caseClosed: Bool
    }

    let explicit: ScalarSet
    let items: [Item]
    /// The whole class is closed over case (a case-insensitive [...]).
    let closedOverCase: Bool
    let negated: Bool
    /// Membership of the 128 ASCII scalars, computed once: most text is ASCII.
    private let asciiLow: UInt64
    private let asciiHigh: UInt64

    init(explicit: ScalarSet, items: [Item] = [], closedOverCase: Bool = false, negated: Bool = false) {
        self.explicit = explicit
        self.items = items
        self.closedOverCase = closedOverCase
        self.negated = negated
        var low: UInt64 = 0
        var high: UInt64 = 0
        for v in UInt32(0)..<128 where Self.slowContains(v, explicit, items, closedOverCase, negated) {
            if v < 64 { low |= 1 << UInt64(v) } else { high |= 1 << UInt64(v - 64) }
        }
        asciiLow = low
        asciiHigh = high
    }

    /// A class of exactly these scalars.
    init(scalars: [UInt32]) { self.init(explicit: ScalarSet(scalars: scalars)) }

    @inline(__always)
    func contains(_ v: UInt32) -> Bool {
        if v < 64 { return asciiLow & (1 << UInt64(v)) != 0 }
        if v < 128 { return asciiHigh & (1 << UInt64(v - 64)) != 0 }
        return Self.slowContains(v, explicit, items, closedOverCase, negated)
    }

    private static func slowContains(
        _ v: UInt32,
        _ explicit: ScalarSet,
        _ items: [Item],
        _ closedOverCase: Bool,
        _ negated: Bool
    ) -> Bool {
        var hit = explicit.contains(v)
        if !hit, !items.isEmpty {
            hit =
                closedOverCase
                ? CaseFolding.shared.anyInOrbit(of: v) { m in items.contains { holds($0, m) } }
                : items.contains { holds($0, v) }
        }
        return hit != negated
    }

    private static func holds(_ item: Item, _ v: UInt32) -> Bool {
        guard let s = Unicode.Scalar(v) else { return item.negated }
        let base =
            item.caseClosed
            ? CaseFolding.shared.anyInOrbit(of: v) { Unicode.Scalar($0).map(item.set.contains) ?? false }
            : item.set.contains(s)
        return base != item.negated
    }
}
