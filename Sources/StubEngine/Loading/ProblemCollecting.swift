import JSON

/// A reader that collects problems against one file: the stub decoder's context and the
/// WireMock reader's share how an error or warning is placed (file, position, JSON path).
package protocol ProblemCollecting {
    var displayPath: String { get }
    var problems: [StubProblem] { get }
    /// The errors among `problems`.
    var errorCount: Int { get }
    /// After this many errors a reader of many stubs stops (`stopsAtErrorLimit`); nil reads on.
    /// The admin API sets it: a 30 MB body of `[{},{},...]` made ten million errors, a 1.2 GB
    /// answer and 5.5 GB of memory.
    var errorLimit: Int? { get }
    mutating func problem(_ problem: StubProblem)
}

extension ProblemCollecting {
    package var hasErrors: Bool { errorCount > 0 }

    /// True, after saying where reading stopped, when the error limit is reached before item
    /// `index` (of `count`, when known).
    package mutating func stopsAtErrorLimit(before index: Int, of count: Int?, what: String) -> Bool {
        guard let errorLimit, errorCount >= errorLimit else { return false }
        let place = count.map { "\(what) \(index + 1) of \($0)" } ?? "\(what) \(index + 1)"
        let message = "stopped reading after \(errorCount) errors, before \(place); fix these first"
        problem(StubProblem(.error, file: displayPath, message: message))
        return true
    }

    package mutating func error(_ path: String, _ node: JSONNode?, _ message: String) {
        problem(StubProblem(.error, file: displayPath, position: node?.position, jsonPath: path, message: message))
    }

    package mutating func warning(_ path: String, _ position: SourcePosition?, _ message: String) {
        problem(StubProblem(.warning, file: displayPath, position: position, jsonPath: path, message: message))
    }
}
