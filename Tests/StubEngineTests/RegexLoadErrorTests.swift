import XCTest

/// The stub decoder's messages for a pattern the regex engines refuse: why, and where in the
/// file (the engines themselves are tested in RegularExpressionsTests).
final class RegexLoadErrorTests: XCTestCase {
    func testLoadErrorsSayWhyAndWhere() {
        assertLoadErrors([
            (
                #"{"request": {"headers": {"X": {"matches": "[0-9"}}}, "response": {}}"#, "$.request.headers.X.matches",
                #"invalid regular expression "[0-9": missing ']' for the class opened here (at character 0)"#
            ),
            (
                #"{"request": {"pathPattern": "/a/(\\d+)/\\2"}, "response": {}}"#, "$.request.pathPattern",
                #"""
                invalid regular expression "/a/(\d+)/\2": back-reference \2 names a group the pattern does not \#
                have (it has 1 capture group) (at character 9)
                """#
            ),
        ])
    }
}
