/// "Did you mean": the known word within two edits, or equal but for case. The one edit
/// distance of the package (stub keys, template variables, command-line flags, near misses).
package enum Suggestion {
    package static func closest(to word: String, among candidates: [String]) -> String? {
        var best: (String, Int)?
        let lowered = word.lowercased()
        for candidate in candidates {
            if candidate.lowercased() == lowered { return candidate }
            let limit = max(1, min(2, candidate.count / 3))
            // The distance is at least the difference in length: a key of a megabyte (an admin
            // body) is no near miss, and its distance table took seconds to fill.
            guard abs(lowered.utf8.count - candidate.utf8.count) <= limit else { continue }
            let d = editDistance(lowered, candidate.lowercased())
            if d <= limit, d < (best?.1 ?? .max) { best = (candidate, d) }
        }
        return best?.0
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours ("reqeust") each count as one edit.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
