/// A pattern parsed once, for either engine: the linear one (`LinearRegex`) runs it unless it
/// uses a construct only backtracking can run, which `BacktrackingRegex` runs within a budget.
package struct ParsedPattern: Sendable {
    package let pattern: String
    package let caseInsensitive: Bool
    let root: RegexNode
    let captureCount: Int
    package let groupNames: [String: Int]
    /// Look-around, back-references, atomic groups and possessive quantifiers, in pattern order.
    package let backtrackingConstructs: [BacktrackingConstruct]

    package init(_ pattern: String, caseInsensitive: Bool = false) throws(RegexSyntaxError) {
        var parser = RegexParser(pattern, caseInsensitive: caseInsensitive)
        root = try parser.parse().node
        self.pattern = pattern
        self.caseInsensitive = caseInsensitive
        captureCount = parser.captureCount
        groupNames = parser.groupNames
        backtrackingConstructs = parser.backtrackingConstructs
    }

    /// Whether only the backtracking engine can run it.
    package var needsBacktracking: Bool { !backtrackingConstructs.isEmpty }

    /// A cheap look at any text that might be a pattern: false only when, read as a pattern,
    /// it cannot need backtracking (none of `(?=`, `(?!`, `(?<=`, `(?<!`, `(?>`, `\k`, `\1`-`\9`,
    /// or a quantifier followed by `+`). An over-approximation: `[a++]` says true.
    package static func mayNeedBacktracking(_ text: String) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        for byte in text.utf8 {
            switch (beforePrevious, previous, byte) {
            case (UInt8(ascii: "("), UInt8(ascii: "?"), UInt8(ascii: "=")),
                (UInt8(ascii: "("), UInt8(ascii: "?"), UInt8(ascii: "!")),
                (UInt8(ascii: "("), UInt8(ascii: "?"), UInt8(ascii: ">")),
                (UInt8(ascii: "("), UInt8(ascii: "?"), UInt8(ascii: "<")):
                return true
            case (_, UInt8(ascii: "\\"), UInt8(ascii: "k")),
                (_, UInt8(ascii: "\\"), UInt8(ascii: "1")...UInt8(ascii: "9")):
                return true
            case (_, UInt8(ascii: "*"), UInt8(ascii: "+")), (_, UInt8(ascii: "+"), UInt8(ascii: "+")),
                (_, UInt8(ascii: "?"), UInt8(ascii: "+")), (_, UInt8(ascii: "}"), UInt8(ascii: "+")):
                return true
            default:
                break
            }
            beforePrevious = previous
            previous = byte
        }
        return false
    }
}

/// A construct the linear engine cannot run: what it is ("negative look-ahead (?!...)") and
/// the error the linear engine gives for it (with its place in the pattern).
package struct BacktrackingConstruct: Sendable, Equatable {
    package let name: String
    package let refusal: RegexSyntaxError

    package var offset: Int { refusal.offset }
}
