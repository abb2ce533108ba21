import Foundation

/// A regular expression compiled once at load, matched against whole values.
/// NSRegularExpression is immutable and documented thread-safe, hence the unchecked Sendable.
public final class CompiledRegex: @unchecked Sendable {
    public let pattern: String
    private let regex: NSRegularExpression

    /// Throws the compiler's message when the pattern is invalid.
    public init(_ pattern: String, caseInsensitive: Bool = false) throws {
        self.pattern = pattern
        var options: NSRegularExpression.Options = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        // Anchored with \A and \z: "matches" means the whole value, as the contract says.
        regex = try NSRegularExpression(pattern: "\\A(?:\(pattern))\\z", options: options)
    }

    public func matchesWhole(_ value: String) -> Bool {
        regex.firstMatch(in: value, range: NSRange(value.startIndex..., in: value)) != nil
    }
}
