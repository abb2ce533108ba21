// The files in this folder import nothing: the fuzz target compiles the folder on its own.

/// Why a pattern was refused, and where. Every refusal names the construct; unsupported
/// constructs are refused rather than approximated, so a stub never matches by accident.
package struct RegexSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Position of the offending construct in the pattern, in Characters, 0-based.
    package let offset: Int
    package let message: String

    package init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    package var description: String { "\(message) (at character \(offset))" }
}

/// The limits that keep compiling and matching cheap whatever the pattern.
package enum RegexLimits {
    /// Largest n or m in {n}, {n,}, {n,m}.
    package static let maxRepeat = 1000
    /// Instructions in a compiled program (counted repetitions are expanded).
    package static let maxInstructions = 20_000
    /// Nesting of groups; the parser and compiler recurse this deep at most.
    package static let maxNesting = 100
    /// Capture slots times consuming instructions: bounds the per-call memory of `firstMatch`.
    package static let maxCaptureCells = 1_000_000
}

/// Messages shared by the parser's refusals of constructs that cannot run in linear time.
enum Refusal {
    static let linearTime = "stub regexes run in linear time, which"
    static func backReference(_ written: String) -> String {
        "back-references (\(written)) are not supported: \(linearTime) back-references make impossible"
    }
    static func lookaround(_ kind: String, _ written: String) -> String {
        """
        \(kind) \(written)...) is not supported: \(linearTime) look-around makes impossible; match the text \
        itself instead
        """
    }
}
