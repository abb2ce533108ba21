import JSON

/// A mapping left out of a folder that is served without it (the WireMock dialect: a mapping
/// WireMock would refuse, or one stubserver cannot run, must not take the rest of the folder
/// down). Where it is and the first reason; its errors are in the load's problems too.
package struct SkippedMapping: Sendable, Equatable, CustomStringConvertible {
    /// The file as messages name it.
    package let file: String
    /// Where the mapping starts (or, for a file that does not parse, where parsing stopped).
    package let position: SourcePosition?
    /// `$`, `$.mappings[2]`: the whole file or one mapping of it.
    package let jsonPath: String
    package let reason: String

    package init(file: String, position: SourcePosition?, jsonPath: String, reason: String) {
        self.file = file
        self.position = position
        self.jsonPath = jsonPath
        self.reason = reason
    }

    /// The first error among `problems` (those from `start` on) as the reason for skipping.
    package init?(file: String, position: SourcePosition?, jsonPath: String, problems: ArraySlice<StubProblem>) {
        guard let first = problems.first(where: { $0.severity == .error }) else { return nil }
        var reason = first.message
        if let at = first.jsonPath, at != jsonPath { reason = at + ": " + reason }
        let more = problems.filter { $0.severity == .error }.count - 1
        if more > 0 { reason += " (and \(more) more error\(more == 1 ? "" : "s"), listed above)" }
        self.init(file: file, position: position, jsonPath: jsonPath, reason: reason)
    }

    /// `mappings/users.json:3:5: skipped: $.mappings[1]: reason`, clickable like a problem.
    package var description: String {
        var s = file
        if let position, position.line > 0 { s += ":\(position.line):\(position.column)" }
        return s + ": skipped: \(jsonPath): \(reason)"
    }
}
