import Foundation
@testable import RegularExpressions
import XCTest

/// BacktrackingRegex, the budgeted engine for the Java constructs the linear engine cannot run
/// (look-around, back-references, atomic groups, possessive quantifiers). Every row is checked
/// against ICU (NSRegularExpression) as well as its expectation, and the linear engine's whole
/// table runs through this engine too: where both apply they must agree.
final class BacktrackingRegexTests: XCTestCase {
    typealias Row = RegexTests.Row

    static let rows: [Row] = [
        // Look-ahead.
        B("foo(?=bar)", "foobar", whole: false, first: "0-3"),
        B("foo(?=bar)", "foobaz", whole: false, first: "none"),
        B("foo(?!bar)", "foobar", whole: false, first: "none"),
        B("foo(?!bar)", "foobaz", whole: false, first: "0-3"),
        B("^(?!.*secret).*$", "public data", whole: true, first: "0-11"),
        B("^(?!.*secret).*$", "the secret one", whole: false, first: "none"),
        B("^(?:(?!ab).)*$", "xxaxb", whole: true, first: "0-5"),
        B("^(?:(?!ab).)*$", "xxabx", whole: false, first: "none"),
        B(#"(?=.*\d)(?=.*[a-z])\w{6,}"#, "abc123", whole: true, first: "0-6"),
        B(#"(?=.*\d)(?=.*[a-z])\w{6,}"#, "abcdef", whole: false, first: "none"),
        B("x(?=(a))", "xa", whole: false, first: "0-1 1-2"),
        B("x(?!(a))", "xb", whole: false, first: "0-1 -"),
        B("(?i)(?=FOO)foo", "Foo", whole: true, first: "0-3"),
        B("^(?=[^@]+@)[\\w.]+@\\w+\\.com$", "a.b@example.com", whole: true, first: "0-15"),
        // Look-behind.
        B(#"(?<=\$)\d+"#, "cost $42", whole: false, first: "6-8"),
        B(#"(?<!\$)\b\d+"#, "$42 17", whole: false, first: "4-6"),
        B(#"(?<=\p{Lu})\p{Ll}+"#, "aBcd", whole: false, first: "2-4"),
        B(#"(?<=\p{Sc})\d+"#, "€12", whole: false, first: "1-3"),
        B(#"(?<=^|,)\w+"#, "a,bc", whole: false, first: "0-1"),
        B(#"(?<=\d{3})x"#, "12x", whole: false, first: "none"),
        B(#"(?<=\d{3})x"#, "123x", whole: false, first: "3-4"),
        B("(?<!ab)c", "abc", whole: false, first: "none"),
        B("(?<!ab)c", "xbc", whole: false, first: "2-3"),
        B("(?<=a|bc)d", "bcd", whole: false, first: "2-3"),
        B("(?i)(?<=AB)c", "abC", whole: false, first: "2-3"),
        B("(?<=é)x", "éx", whole: false, first: "1-2"),
        B("(?<=😀{1,2})x", "😀😀x", whole: false, first: "2-3"),
        B("/api/(?<!/v1/)users", "/api/users", whole: true, first: "0-10"),
        // Back-references, numbered and named, with and without case.
        B(#"(\w)\1"#, "abccd", whole: false, first: "2-4 2-3"),
        B(#"(?<q>['"]).*?\k<q>"#, #"say "hi" now"#, whole: false, first: "4-8 4-5"),
        B(#"(?i)(a)\1"#, "aA", whole: true, first: "0-2 0-1"),
        B(#"(a)\1"#, "aA", whole: false, first: "none"),
        B(#"(a)?b\1"#, "b", whole: false, first: "none"),
        B(#"(a*)\1"#, "aaaa", whole: true, first: "0-4 0-2"),
        B(#"\b(\w+)\s+\1\b"#, "the the cat", whole: false, first: "0-7 0-3"),
        B(
            #"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10"#,
            "abcdefghijj",
            whole: true,
            first: "0-11 0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10"
        ),
        B(#"(a)\10"#, "aa0", whole: true, first: "0-3 0-1"),
        B(#"(é)\1"#, "éé", whole: true, first: "0-2 0-1"),
        B(#"<(\w+)>.*</\1>"#, "<b>x</b>", whole: true, first: "0-8 1-2"),
        // Atomic groups and possessive quantifiers: what they took is never given back.
        B("(?>a+)b", "aaab", whole: true, first: "0-4"),
        B("(?>a|ab)c", "abc", whole: false, first: "none"),
        B("(?>a+)a", "aaa", whole: false, first: "none"),
        B("a++a", "aaa", whole: false, first: "none"),
        B("a*+b", "aaab", whole: true, first: "0-4"),
        B(#"\d{2,}+\d"#, "1234", whole: false, first: "none"),
        B(#"\d?+1"#, "1", whole: false, first: "none"),
        B(#"".*+""#, #""a""#, whole: false, first: "none"),
        B(#""[^"]*+""#, #"x "a" y"#, whole: false, first: "2-5"),
        B("(?>(a)|b)+c", "abac", whole: true, first: "0-4 2-3"),
        // Flags and Unicode classes inside the new constructs.
        B(#"(?i)(?<w>ß)\k<w>"#, "ßẞ", whole: true, first: "0-2 0-1"),
        B(#"(?s)(?<=a.)b"#, "a\nb", whole: false, first: "2-3"),
        B(#"(?m)(?<=^)b"#, "a\nb", whole: false, first: "2-3"),
        B(#"(?=\p{L})\w+"#, "_x1", whole: false, first: "1-3"),
        // The catastrophic pattern of the ReDoS probe, on texts it decides within the budget.
        B("^(a+)+(?!b)$", "aaaa", whole: true, first: "0-4 0-4"),
        B("^(a+)+(?!b)$", "aaa!", whole: false, first: "none"),
    ]

    func testTableAgreesWithExpectationsAndWithICU() throws {
        for row in Self.rows {
            let regex = try BacktrackingRegex(row.pattern, caseInsensitive: row.caseInsensitive)
            XCTAssertFalse(regex.constructs.isEmpty, "\(row.pattern) needs backtracking", line: row.line)
            XCTAssertThrowsError(
                try LinearRegex(row.pattern),
                "the linear engine refuses \(row.pattern)",
                line: row.line
            )
            check(regex, row)
            XCTAssertEqual(
                RegexTests.icuWhole(row),
                row.whole,
                "ICU's whole match: /\(row.pattern)/ on \(row.text.debugDescription)",
                line: row.line
            )
            XCTAssertEqual(
                RegexTests.icuFirst(row),
                row.first,
                "ICU's first match: /\(row.pattern)/ on \(row.text.debugDescription)",
                line: row.line
            )
        }
    }

    /// The linear engine's table, through this engine: both engines, one answer.
    func testBothEnginesAgreeOnTheLinearTable() throws {
        for row in RegexTests.rows {
            let regex = try BacktrackingRegex(row.pattern, caseInsensitive: row.caseInsensitive)
            XCTAssertTrue(regex.constructs.isEmpty, row.pattern, line: row.line)
            if row.pattern == "^(a+)+$" {
                // The probe's catastrophic case: exponential by backtracking, which is why
                // the linear engine runs every pattern it can.
                XCTAssertEqual(regex.matchesWhole(row.text), .aborted)
                continue
            }
            check(regex, row)
        }
    }

    private func check(_ regex: BacktrackingRegex, _ row: Row) {
        let what = "/\(row.pattern)/\(row.caseInsensitive ? "i" : "") on \(row.text.debugDescription)"
        XCTAssertEqual(
            regex.matchesWhole(row.text),
            row.whole ? .match : .noMatch,
            "matchesWhole \(what)",
            line: row.line
        )
        guard case .found(let match) = regex.firstMatch(in: row.text) else {
            return XCTFail("firstMatch aborted: \(what)", line: row.line)
        }
        XCTAssertEqual(RegexTests.describe(match, in: row.text), row.first, "firstMatch \(what)", line: row.line)
    }

    /// Random patterns mixing the backtracking constructs with the rest, on random short texts,
    /// against ICU (where ICU does not give up). Deterministic: a fixed seed.
    func testRandomPatternsAgreeWithICU() throws {
        var random = XorShift(state: 0xD1B5_4A32_D192_ED03)
        let atoms = ["a", "b", "ab", ".", "[ab]", #"\w"#, #"\d"#, "é", "(?i:a)", #"\b"#, "^", "$"]
        let quantifiers = ["*", "+", "?", "{1,2}", "*?", "+?", "*+", "++", "?+"]
        let pieces = ["a", "b", "A", "1", " ", "é", "\n"]
        var captures = 0
        func pattern(_ depth: Int) -> String {
            switch random.next(depth > 3 ? 3 : 12) {
            case 0, 1, 2: return atoms[random.next(atoms.count)]
            case 3:
                captures += 1
                return "(" + pattern(depth + 1) + ")"
            case 4: return "(?=" + pattern(depth + 1) + ")"
            case 5: return "(?!" + pattern(depth + 1) + ")"
            case 6: return ["(?<=a)", "(?<!b)", "(?<=ab|b)", #"(?<!\d)"#, "(?<=a.?)"][random.next(5)]
            case 7: return "(?>" + pattern(depth + 1) + ")"
            case 8: return captures > 0 ? "\\\(1 + random.next(captures))" : "a"
            case 9: return "(?:" + pattern(depth + 1) + ")" + quantifiers[random.next(quantifiers.count)]
            case 10: return "(?:" + pattern(depth + 1) + "|" + pattern(depth + 1) + ")"
            default: return pattern(depth + 1) + pattern(depth + 1)
            }
        }
        var compared = 0
        for _ in 0..<1200 {
            captures = 0
            let source = pattern(0)
            guard let regex = try? BacktrackingRegex(source),
                let bare = try? NSRegularExpression(pattern: source),
                let wrapped = try? NSRegularExpression(pattern: #"\A(?:"# + source + #")\z"#)
            else { continue }
            for _ in 0..<3 {
                let text = (0..<random.next(7)).map { _ in pieces[random.next(pieces.count)] }.joined()
                guard let icuFirst = RegexTests.icuFirst(bare, text), let icuWhole = RegexTests.icuFirst(wrapped, text),
                    case .found(let ours) = regex.firstMatch(in: text)
                else { continue }
                let row = "/\(source)/ on \(text.debugDescription)"
                XCTAssertEqual(RegexTests.describe(ours, in: text), icuFirst, row)
                XCTAssertEqual(regex.matchesWhole(text), icuWhole != "none" ? .match : .noMatch, row)
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 2000)
    }

    // MARK: - the budget

    /// The ReDoS probe's shape: nested quantifiers and a look-ahead, against a text that can
    /// never match. Exponential for a backtracking engine; here it stops at the budget.
    func testCatastrophicPatternStopsAtTheBudget() throws {
        let regex = try BacktrackingRegex("^(a+)+(?!b)$")
        let text = String(repeating: "a", count: 40) + "!"
        var stats = RegexRunStats()
        let started = DispatchTime.now().uptimeNanoseconds
        XCTAssertEqual(regex.matchesWhole(text, stats: &stats), .aborted)
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1_000_000
        XCTAssertLessThanOrEqual(stats.steps, regex.budget + 1)
        XCTAssertGreaterThanOrEqual(stats.steps, regex.budget)
        XCTAssertEqual(regex.firstMatch(in: text), .aborted)
        // A correctness bound, not a benchmark: a million steps take milliseconds, not seconds.
        XCTAssertLessThan(milliseconds, 1000)

        let small = try BacktrackingRegex("^(a+)+(?!b)$", budget: 100)
        XCTAssertEqual(small.matchesWhole("aaaaaaaaaa!"), .aborted)
        XCTAssertEqual(small.matchesWhole("aa"), .match, "a short text is decided within a small budget")
    }

    func testLongTextsWithinTheBudget() throws {
        // A look-ahead over a 64 KiB body: linear work, well inside the budget.
        let regex = try BacktrackingRegex("^(?!.*error).*$")
        let body = String(repeating: "x", count: 65_536)
        var stats = RegexRunStats()
        XCTAssertEqual(regex.matchesWhole(body, stats: &stats), .match)
        XCTAssertLessThan(stats.steps, regex.budget / 2)
        XCTAssertEqual(regex.matchesWhole(body + "error"), .noMatch)
    }

    // MARK: - refusals

    func testRefusalsSayWhatAndWhere() {
        let rows: [(String, Int, String)] = [
            ("(?<=a+)b", 0, "look-behind (?<=...) needs a bounded length: no *, +, {n,} or back-reference inside it"),
            (
                #"(a)(?<!\1)"#, 3,
                "negative look-behind (?<!...) needs a bounded length: no *, +, {n,} or back-reference inside it"
            ),
            (#"(a)\2"#, 3, #"back-reference \2 names a group the pattern does not have (it has 1 capture group)"#),
            (#"\k<x>(?<x>a)"#, 0, #"back-reference \k<x> names no group defined before it"#),
            (#"\k"#, 0, #"write \k<name> for a back-reference to a named group"#),
            (
                "(?=a)*", 5,
                """
                quantifier '*' after an anchor or \\b: an assertion matches no characters, so there is nothing \
                to repeat
                """
            ),
            (#"[\1]"#, 1, #"\1 cannot be used inside [...]"#),
        ]
        for (pattern, offset, message) in rows {
            XCTAssertThrowsError(try BacktrackingRegex(pattern), pattern) { error in
                XCTAssertEqual((error as? RegexSyntaxError)?.message, message, pattern)
                XCTAssertEqual((error as? RegexSyntaxError)?.offset, offset, pattern)
            }
        }
    }

    /// Java reads `\12` as `\1` then `2` while fewer than 12 groups exist; ICU refuses this one
    /// (found by fuzzing), so it is checked here rather than in the ICU-checked table.
    func testABackReferenceTakesMoreDigitsOnlyWhileThatManyGroupsExist() throws {
        let regex = try BacktrackingRegex(#"(a)(b)\12"#)
        XCTAssertEqual(regex.matchesWhole("aba2"), .match)
        XCTAssertEqual(regex.matchesWhole("ab"), .noMatch)
        XCTAssertNil(try? NSRegularExpression(pattern: #"(a)(b)\12"#), "ICU refuses it")
    }

    func testConstructsAreNamedInOrder() throws {
        let parsed = try ParsedPattern(
            #"(?<=x)(a)\1(?>b)c*+(?!d)\k<n>(?<n>e)"#.replacingOccurrences(of: #"\k<n>(?<n>e)"#, with: "")
        )
        XCTAssertEqual(
            parsed.backtrackingConstructs.map(\.name),
            [
                "look-behind (?<=...)", #"back-reference \1"#, "atomic group (?>...)", "possessive quantifier *+",
                "negative look-ahead (?!...)",
            ]
        )
        XCTAssertEqual(parsed.backtrackingConstructs.map(\.offset), [0, 9, 11, 17, 19])
        XCTAssertFalse(try ParsedPattern("a(b)*c").needsBacktracking)
    }
}

private func B(
    _ pattern: String,
    ci: Bool = false,
    _ text: String,
    whole: Bool,
    first: String,
    line: UInt = #line
) -> RegexTests.Row {
    RegexTests.Row(pattern: pattern, caseInsensitive: ci, text: text, whole: whole, first: first, line: line)
}
