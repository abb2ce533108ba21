import JSON

/// One thing wrong (or worth a warning) in a stub folder, or in what an import or a check read:
/// which file, where in it, what. Notes say what an import skipped on purpose, and why.
package struct StubProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Severity: String, Sendable { case error, warning, note }

    package let severity: Severity
    /// The file as the user would type it (relative to the working directory when possible).
    package let file: String
    /// Line and column, when known (always for syntax errors, usually for the rest).
    package let position: SourcePosition?
    /// `$.stubs[2].response.status`, for errors in well-formed JSON.
    package let jsonPath: String?
    package let message: String

    package init(
        _ severity: Severity,
        file: String,
        position: SourcePosition? = nil,
        jsonPath: String? = nil,
        message: String
    ) {
        self.severity = severity
        self.file = file
        self.position = position
        self.jsonPath = jsonPath
        self.message = message
    }

    /// `stubs/login.json:12:5: error: $.response.status: expected ...`: the compiler format,
    /// so editors and terminals make it clickable.
    package var description: String {
        var s = file
        // Values built in code have no position (line 0); print none rather than a false one.
        if let position, position.line > 0 { s += ":\(position.line):\(position.column)" }
        s += ": \(severity.rawValue): "
        if let jsonPath { s += "\(jsonPath): " }
        return s + message
    }
}

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
