import JSON
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

extension ImportProblem {
    /// An imported file read as JSON, or the error that says what it is not (`notA`, e.g.
    /// "not a HAR file (HAR is JSON)") with the parser's place and reason.
    static func parsedJSON(_ bytes: [UInt8], file: String, notA: String) -> Result<JSONNode, ImportProblem> {
        do {
            return .success(try JSONParser.parse(bytes))
        } catch {
            return .failure(
                ImportProblem(.error, file: file, position: error.position, message: "\(notA): \(error.message)")
            )
        }
    }
}
