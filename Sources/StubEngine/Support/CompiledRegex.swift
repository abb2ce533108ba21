/// A regular expression compiled once at load, matched against whole values. Matching is
/// linear in the value's length whatever the pattern (LinearRegex: an automaton, no
/// backtracking), so a request cannot hold a server thread with a pathological value.
package final class CompiledRegex: Sendable {
    package let pattern: String
    private let regex: LinearRegex

    /// Throws a `RegexSyntaxError` (message and character offset) when the pattern is invalid
    /// or uses a construct that is not supported.
    package init(_ pattern: String, caseInsensitive: Bool = false) throws {
        self.pattern = pattern
        regex = try LinearRegex(pattern, caseInsensitive: caseInsensitive)
    }

    /// Whether the whole value matches, as the contract says ("matches" means the whole value).
    package func matchesWhole(_ value: String) -> Bool {
        regex.matchesWhole(value)
    }

    /// The leftmost match and its groups (Java's `find`), for extracting parts of a value.
    package func firstMatch(in value: String) -> RegexMatch? {
        regex.firstMatch(in: value)
    }
}
