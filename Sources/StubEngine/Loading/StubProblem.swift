import JSON

/// A problem in a stub folder or an admin body: the JSON module's `DocumentProblem`, so the
/// importers and the schema documents under them report in the same type and format.
package typealias StubProblem = DocumentProblem

extension StubProblem {
    /// At most this many problems are reported for one admin request (then "and N more"), each
    /// in at most `reportedBytes`: an error answer stays small whatever the body held (a key
    /// of a megabyte is echoed in its message).
    package static let reportLimit = 100
    package static let reportedBytes = 1024
    /// Where a reader of an admin body stops: one short of `reportLimit`, so the line that
    /// says where it stopped is reported too.
    package static let decodingErrorLimit = reportLimit - 1

    /// `description`, cut to `reportedBytes` with the full length said.
    package var reportedDescription: String { Self.bounded(description) }

    /// Cut to `reportedBytes` (on a character boundary) with the full length said.
    package static func bounded(_ text: String) -> String {
        let size = text.utf8.count
        guard size > reportedBytes else { return text }
        var kept = ""
        var keptBytes = 0
        for character in text {
            let length = character.utf8.count
            guard keptBytes + length <= reportedBytes else { break }
            kept.append(character)
            keptBytes += length
        }
        return kept + "... (cut: \(size) bytes in all)"
    }

    /// The first `reportLimit` of `problems`, each bounded, then "and N more" if there are more.
    package static func reported(_ problems: [StubProblem]) -> [String] {
        var lines = problems.prefix(reportLimit).map(\.reportedDescription)
        if problems.count > reportLimit { lines.append("and \(problems.count - reportLimit) more") }
        return lines
    }
}
