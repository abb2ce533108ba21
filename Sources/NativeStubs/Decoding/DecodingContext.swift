#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine
import SystemSupport

/// What every decoder of a stub file shares: where the file is, how to read its body files, and
/// the problems found so far. Decoders collect every problem instead of stopping at the first,
/// each with its JSON path and position, in the words of stub-format.md.
///
/// The decoders, one per concern: `StubFileDecoder` (file shapes, stubs, scenarios),
/// `RequestDecoder` (conditions and matchers), `PathDecoder` (path patterns), `ResponseDecoder`
/// (status, headers, bodies, delays, faults), `TemplateCompiler` (`"template": true`).
package struct DecodingContext: ProblemCollecting {
    /// Reads the files a `bodyFile` names; bounded to the stub folder.
    let bodyFiles: BodyFileReader
    /// The file as shown in messages, and its folder on disk (bodyFile paths are relative to it).
    package let displayPath: String
    let fileURL: URL
    /// Where the stub at an index came from: the file, or (for the admin API) a runtime id.
    let makeSource: (Int) -> StubSource
    package private(set) var problems: [StubProblem] = []
    package private(set) var errorCount = 0
    package var errorLimit: Int?

    init(displayPath: String, fileURL: URL, bodyFiles: BodyFileReader, makeSource: ((Int) -> StubSource)? = nil) {
        self.displayPath = displayPath
        self.fileURL = fileURL
        self.bodyFiles = bodyFiles
        self.makeSource = makeSource ?? { [displayPath] in .file(path: displayPath, index: $0) }
    }

    // MARK: Problems (error, warning and hasErrors come from ProblemCollecting)

    package mutating func problem(_ problem: StubProblem) {
        if problem.severity == .error { errorCount += 1 }
        problems.append(problem)
    }

    /// Checks an object's keys against the contract; `$schema` and `_`-prefixed keys are
    /// comments. Returns false when the node is not an object.
    mutating func checkKeys(_ node: JSONNode, _ path: String, allowed: [String], what: String) -> Bool {
        guard let members = node.members else {
            error(path, node, "expected \(what) (an object), found \(node.kindDescription)")
            return false
        }
        for member in members where !allowed.contains(member.key) && !Self.isComment(member.key) {
            var message = "unknown key \"\(member.key)\" in \(what)"
            if let suggestion = Suggestion.closest(to: member.key, among: allowed) {
                message += "; did you mean \"\(suggestion)\"?"
            } else {
                message += "; expected one of: " + allowed.joined(separator: ", ")
            }
            problem(
                StubProblem(
                    .error,
                    file: displayPath,
                    position: member.keyPosition,
                    jsonPath: path + Self.pathComponent(member.key),
                    message: message
                )
            )
        }
        return true
    }

    // MARK: Shared helpers

    static func isComment(_ key: String) -> Bool { key == "$schema" || key.hasPrefix("_") }

    /// `.name`, or `["odd key"]`: the notation of a problem's JSON path (`DocumentProblem`'s).
    package static func pathComponent(_ key: String) -> String { DocumentProblem.pathComponent(key) }

    /// RFC 9110 token: what method and field names are made of (the HTTP module's table).
    static func isToken(_ s: String) -> Bool { HTTPToken.isToken(s) }
}
