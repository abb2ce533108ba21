import Foundation

/// A regular expression compiled once at load, matched against whole values.
/// NSRegularExpression is immutable and documented thread-safe, hence the unchecked Sendable.
package final class CompiledRegex: @unchecked Sendable {
    package let pattern: String
    private let regex: NSRegularExpression

    /// Throws the compiler's message when the pattern is invalid.
    package init(_ pattern: String, caseInsensitive: Bool = false) throws {
        self.pattern = pattern
        var options: NSRegularExpression.Options = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        // Anchored with \A and \z: "matches" means the whole value, as the contract says.
        regex = try NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: options)
    }

    package func matchesWhole(_ value: String) -> Bool {
        regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }
}
