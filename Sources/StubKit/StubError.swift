import Foundation
import StubEngine

/// Why StubKit could not do what was asked, in the words a stub file's mistake would get
/// (`StubDefinition: $[0].request.path: a path starts with "/"`), with file, position and JSON
/// path where there is one.
public struct StubError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// One line per problem, each `FILE[:LINE:COLUMN]: error: $.json.path: what is wrong`.
    public let messages: [String]

    init(_ problems: StubProblems) {
        messages = problems.problems.filter { $0.severity == .error }.map(\.description)
    }

    init(_ problems: [StubProblem]) {
        self.init(StubProblems(problems: problems))
    }

    init(message: String) {
        messages = [message]
    }

    public var description: String { messages.joined(separator: "\n") }
    public var errorDescription: String? { description }
}
