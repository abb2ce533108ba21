/// One thing wrong (or worth a warning) in a document someone wrote: which file, where in it,
/// what. Stub folders, imports and schema documents all report with it (the engine calls it
/// `StubProblem`); notes say what an import skipped on purpose, and why.
package struct DocumentProblem: Error, Sendable, Equatable, CustomStringConvertible {
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

    /// `.name`, or `["odd key"]` when the key is not a plain word: how the member of an object
    /// is written in `jsonPath` (`$.response.headers["Content-Type"]`).
    package static func pathComponent(_ key: String) -> String {
        key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } && !key.isEmpty
            ? ".\(key)" : "[\(JSONSerializer.quoted(key))]"
    }
}
