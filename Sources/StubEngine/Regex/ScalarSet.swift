/// A set of Unicode scalar values as sorted, disjoint, non-adjacent closed ranges, stored flat
/// as [lo0, hi0, lo1, hi1, ...]. Built at compile time; `contains` is a binary search, so a
/// class costs the same per character however many ranges it has.
struct ScalarSet: Sendable, Equatable {
    static let maxScalar: UInt32 = 0x10FFFF

    private(set) var bounds: [UInt32] = []

    init() {}

    init(_ scalar: UInt32) { bounds = [scalar, scalar] }

    init<S: Sequence>(scalars: S) where S.Element == UInt32 {
        var pending: [ClosedRange<UInt32>] = []
        for s in scalars { pending.append(s...s) }
        self.init(ranges: pending)
    }

    init(ranges: [ClosedRange<UInt32>]) {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var out: [UInt32] = []
        out.reserveCapacity(sorted.count * 2)
        for r in sorted {
            // Merge with the previous range when they overlap or touch.
            if let last = out.last, r.lowerBound <= last || r.lowerBound - last == 1 {
                out[out.count - 1] = max(last, r.upperBound)
            } else {
                out.append(r.lowerBound)
                out.append(r.upperBound)
            }
        }
        bounds = out
    }

    var isEmpty: Bool { bounds.isEmpty }

    var ranges: [ClosedRange<UInt32>] {
        stride(from: 0, to: bounds.count, by: 2).map { bounds[$0]...bounds[$0 + 1] }
    }

    /// The only member when the set has exactly one.
    var singleScalar: UInt32? {
        bounds.count == 2 && bounds[0] == bounds[1] ? bounds[0] : nil
    }

    func contains(_ scalar: UInt32) -> Bool {
        // Binary search for the last range whose lower bound is <= scalar.
        var low = 0, high = bounds.count / 2
        while low < high {
            let mid = (low + high) / 2
            if bounds[mid * 2] <= scalar { low = mid + 1 } else { high = mid }
        }
        return low > 0 && scalar <= bounds[(low - 1) * 2 + 1]
    }

    func union(_ other: ScalarSet) -> ScalarSet {
        if other.isEmpty { return self }
        if isEmpty { return other }
        return ScalarSet(ranges: ranges + other.ranges)
    }

    /// Everything in 0...0x10FFFF that is not in the set.
    func inverted() -> ScalarSet {
        var out: [UInt32] = []
        var next: UInt32 = 0
        for r in ranges {
            if r.lowerBound > next { out.append(next); out.append(r.lowerBound - 1) }
            next = r.upperBound + 1 // upper bounds are <= 0x10FFFF: no overflow
        }
        if next <= Self.maxScalar { out.append(next); out.append(Self.maxScalar) }
        var copy = ScalarSet()
        copy.bounds = out
        return copy
    }
}
