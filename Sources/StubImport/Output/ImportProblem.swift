import StubEngine

/// Something an import or a check has to tell: an error (the result is incomplete or wrong), a
/// warning, or a note (what was skipped on purpose, and why). Printed in the compiler format the
/// loader uses, `file:line:col: error: message`, so terminals and editors make it clickable.
package struct ImportProblem: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Severity: String, Sendable { case error, warning, note }

    package let severity: Severity
    package let file: String
    package let position: SourcePosition?
    /// `$.stubs[0].response.body.id` for findings in stub files; nil for problems in a spec.
    package let jsonPath: String?
    package let message: String

    package init(_ severity: Severity, file: String, position: SourcePosition? = nil, jsonPath: String? = nil, message: String) {
        self.severity = severity
        self.file = file
        self.position = position
        self.jsonPath = jsonPath
        self.message = message
    }

    package var description: String {
        var s = file
        // Values built in code have no position (line 0); print none rather than a false one.
        if let position, position.line > 0 { s += ":\(position.line):\(position.column)" }
        s += ": \(severity.rawValue): "
        if let jsonPath { s += "\(jsonPath): " }
        return s + message
    }
}

/// Why an import or a check could not run at all (the spec or HAR file cannot be read, the output
/// folder is in the way): one message for the user, exit status 1.
package struct ImportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
