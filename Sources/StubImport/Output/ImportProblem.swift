import StubEngine

/// Something an import or a check has to tell: an error (the result is incomplete or wrong), a
/// warning, or a note (what was skipped on purpose, and why), in the loader's own type and
/// compiler format, `file:line:col: error: message`, so terminals and editors make it clickable.
package typealias ImportProblem = StubProblem

/// Why an import or a check could not run at all (the spec or HAR file cannot be read, the output
/// folder is in the way): one message for the user, exit status 1.
package struct ImportFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
