/// One thing wrong (or worth a warning) in a stub folder: which file, where in it, what.
public struct StubProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }

    public let severity: Severity
    /// The file as the user would type it (relative to the working directory when possible).
    public let file: String
    /// Line and column, when known (always for syntax errors, usually for the rest).
    public let position: SourcePosition?
    /// `$.stubs[2].response.status`, for errors in well-formed JSON.
    public let jsonPath: String?
    public let message: String

    public init(_ severity: Severity, file: String, position: SourcePosition? = nil, jsonPath: String? = nil, message: String) {
        self.severity = severity
        self.file = file
        self.position = position
        self.jsonPath = jsonPath
        self.message = message
    }

    /// `stubs/login.json:12:5: error: $.response.status: expected ...`: the compiler format,
    /// so editors and terminals make it clickable.
    public var description: String {
        var s = file
        if let position { s += ":\(position.line):\(position.column)" }
        s += ": \(severity.rawValue): "
        if let jsonPath { s += "\(jsonPath): " }
        return s + message
    }
}

/// Suggestions for a mistyped key: the known key within two edits, or equal but for case.
enum Suggestion {
    static func closest(to word: String, among candidates: [String]) -> String? {
        var best: (String, Int)?
        for candidate in candidates {
            if candidate.lowercased() == word.lowercased() { return candidate }
            let d = editDistance(word.lowercased(), candidate.lowercased())
            let limit = max(1, min(2, candidate.count / 3))
            if d <= limit, d < (best?.1 ?? .max) { best = (candidate, d) }
        }
        return best?.0
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours ("reqeust") each count as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
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
