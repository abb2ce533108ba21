/// A set of Unicode scalar values as sorted, disjoint, non-adjacent closed ranges, stored flat
/// as [lo0, hi0, lo1, hi1, ...]. Built at compile time; `contains` is a binary search, so a
/// class costs the same per character however many ranges it has.
struct ScalarSet: Sendable, Equatable {
    private(set) var bounds: [UInt32] = []

    init() {}

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

    func contains(_ scalar: UInt32) -> Bool {
        // Binary search for the last range whose lower bound is <= scalar.
        var low = 0
        var high = bounds.count / 2
        while low < high {
            let mid = (low + high) / 2
            if bounds[mid * 2] <= scalar { low = mid + 1 } else { high = mid }
        }
        return low > 0 && scalar <= bounds[(low - 1) * 2 + 1]
    }
}
