import Foundation
import StubEngine

/// Why StubKit could not do what was asked, in the words a stub file's mistake would get
/// (`StubDefinition: error: $[0].request.path: a path starts with "/"`), with the file, line and
/// column for a stub file, and the JSON path where there is one.
public struct StubError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// One line per problem, each `FILE[:LINE:COLUMN]: error: $.json.path: what is wrong`.
    public let messages: [String]

    /// `positions`: false for JSON StubKit wrote from definitions, whose lines and columns
    /// would point into text the user never saw; the JSON path says where.
    init(_ problems: StubProblems, positions: Bool = true) {
        messages = problems.problems.filter { $0.severity == .error }.map { problem in
            positions
                ? problem.description
                : StubProblem(
                    problem.severity,
                    file: problem.file,
                    jsonPath: problem.jsonPath,
                    message: problem.message
                ).description
        }
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
