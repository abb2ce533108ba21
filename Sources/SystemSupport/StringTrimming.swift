// Foundation's `trimmingCharacters(in:)` without Foundation: on Linux the server modules import
// FoundationEssentials, which has no character sets (they would bring ICU and 6 MiB of resident
// memory). Every module that trims (templates, the engine, importers) uses these two.

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (and other Unicode space separators), as
    /// Foundation's `trimmingCharacters(in: .whitespaces)`.
    package func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace && !$0.isNewline }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }

    /// Without leading and trailing white space, line breaks included.
    package func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(self[first...last])
    }
}
