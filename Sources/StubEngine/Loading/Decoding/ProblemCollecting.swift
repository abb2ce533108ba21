/// A reader that collects problems against one file: the stub decoder's context and the
/// WireMock reader's share how an error or warning is placed (file, position, JSON path).
protocol ProblemCollecting {
    var displayPath: String { get }
    var problems: [StubProblem] { get }
    mutating func problem(_ problem: StubProblem)
}

extension ProblemCollecting {
    var hasErrors: Bool { problems.contains { $0.severity == .error } }

    mutating func error(_ path: String, _ node: JSONNode?, _ message: String) {
        problem(StubProblem(.error, file: displayPath, position: node?.position, jsonPath: path, message: message))
    }

    mutating func warning(_ path: String, _ position: SourcePosition?, _ message: String) {
        problem(StubProblem(.warning, file: displayPath, position: position, jsonPath: path, message: message))
    }
}
