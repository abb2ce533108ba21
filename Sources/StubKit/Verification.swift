import Foundation
import StubEngine

/// How many matching requests `verify` expects.
///
///     stubs.verify(.post("/v1/register"))                 // at least one
///     stubs.verify(.post("/v1/register"), count: 2)       // exactly two
///     stubs.verify(.get("/v1/feed"), count: .never)
public struct ExpectedCount: Sendable, Equatable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    let range: ClosedRange<Int>

    public init(integerLiteral value: Int) { range = value...value }
    private init(_ range: ClosedRange<Int>) { self.range = range }

    public static func exactly(_ n: Int) -> ExpectedCount { ExpectedCount(n...n) }
    public static func atLeast(_ n: Int) -> ExpectedCount { ExpectedCount(n...Int.max) }
    public static func atMost(_ n: Int) -> ExpectedCount { ExpectedCount(0...n) }
    public static let never = ExpectedCount(0...0)
    public static let once = ExpectedCount(1...1)

    /// `exactly 2 times`, `at least once`, `never`.
    public var description: String {
        switch (range.lowerBound, range.upperBound) {
        case (0, 0): "never"
        case (let n, Int.max): "at least \(Self.times(n))"
        case (0, let n): "at most \(Self.times(n))"
        case (let n, _): "exactly \(Self.times(n))"
        }
    }

    static func times(_ n: Int) -> String { n == 1 ? "once" : "\(n) times" }
}

extension Stubs {
    /// Fails the current test (XCTest or Swift Testing) unless the journal holds `count`
    /// requests that `pattern` matches. The failure says what was expected, what was received,
    /// and the requests that came closest with each condition they failed, the near-miss report
    /// turned around. With the journal off it fails too: nothing recorded is not "never called".
    public func verify(
        _ pattern: RequestDefinition,
        count: ExpectedCount = .atLeast(1),
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        if let failure = verification(pattern, count: count) {
            TestIssue.record(failure, fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }

    /// Fails the current test when a request went unanswered by any stub, with each one's
    /// near-miss report: what came closest and what differed.
    public func verifyNoUnmatchedRequests(
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let message: String
        do {
            let unmatched = try unmatched
            guard !unmatched.isEmpty else { return }
            message =
                "\(unmatched.count) request\(unmatched.count == 1 ? "" : "s") matched no stub:\n"
                + unmatched.map { "\($0)\n" + Self.indented($0.nearMiss ?? "") }.joined(separator: "\n")
        } catch {
            message = error.description
        }
        TestIssue.record(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// What a failed verification says, or nil when it holds.
    func verification(_ pattern: RequestDefinition, count expected: ExpectedCount) -> String? {
        let matching: [RecordedRequest]
        let closest: [Engine.CloseEntry]
        do {
            matching = try requests(matching: pattern)
            guard !expected.range.contains(matching.count) else { return nil }
            closest = try engine.closestEntries(to: Self.json(pattern), limit: 3, label: "RequestDefinition")
        } catch {
            return "cannot verify \(DefinitionJSON.request(pattern)): \(error)"
        }
        var lines = [
            """
            Expected a request matching \(DefinitionJSON.request(pattern)) \(expected); \
            \(Self.received(matching.count)).
            """
        ]
        if !matching.isEmpty {
            lines.append("Matching requests:")
            lines += matching.prefix(10).map { "  \($0)" }
        }
        if matching.count < expected.range.lowerBound {
            if closest.isEmpty {
                let anyReceived = (try? requests)?.isEmpty == false
                lines.append(anyReceived ? "No other request came close." : "No request was received at all.")
            } else {
                lines.append("Closest requests, and what differed:")
                for (i, close) in closest.enumerated() {
                    lines.append("  \(i + 1). \(RecordedRequest(close.entry))")
                    lines += close.mismatches.map {
                        "       \($0.condition): expected \($0.expected), got \($0.actual)"
                    }
                }
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func received(_ n: Int) -> String {
        switch n {
        case 0: "none was received"
        case 1: "1 was received"
        default: "\(n) were received"
        }
    }

    private static func indented(_ text: String) -> String {
        text.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
    }
}
