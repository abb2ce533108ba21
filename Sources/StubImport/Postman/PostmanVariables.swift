/// `{{name}}` references of a collection, resolved as Postman does: the environment's values
/// over the collection's, a value that refers to another variable resolved in turn. A variable
/// without a value (absent, or empty: collections ship `bearer_token: ""` for the user to fill)
/// stays `{{name}}` in the text and is counted, so the summary can name what `--environment`
/// should give; `{{$guid}}` and Postman's other dynamic variables stay too.
struct PostmanVariables {
    private var values: [String: String] = [:]
    /// Unresolved names, and how often each was met.
    private(set) var unresolved: [String: Int] = [:]

    /// Values nest at most this deep (`a` → `{{b}}` → ...): a cycle ends there, unresolved.
    static let maximumDepth = 10
    /// A resolved text stops growing here (a value that repeats another many times, nested).
    static let maximumLength = 1 << 20

    init(collection: [(name: String, value: String)], environment: [(name: String, value: String)]) {
        for (name, value) in collection + environment { values[name] = value }
    }

    /// `text` with every variable that has a value replaced, recursively.
    mutating func resolve(_ text: String) -> String {
        resolve(text, depth: 0)
    }

    private mutating func resolve(_ text: String, depth: Int) -> String {
        guard text.contains("{{") else { return text }
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            out += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound])
            if let value = values[name], !value.isEmpty, depth < Self.maximumDepth, out.utf8.count < Self.maximumLength
            {
                out += resolve(value, depth: depth + 1)
            } else {
                unresolved[name, default: 0] += 1
                out += rest[open.lowerBound..<close.upperBound]
            }
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// Whether text still holds a `{{...}}` after resolution.
    static func hasReference(_ text: String) -> Bool {
        guard let open = text.firstRange(of: "{{") else { return false }
        return text[open.upperBound...].contains("}}")
    }

    /// A value that stands for one rather than being one: an unresolved `{{name}}`, or the
    /// `<string>`, `<integer>`, `<dateTime>` that generators (openapi-to-postman) write.
    static func isPlaceholder(_ text: String) -> Bool {
        if hasReference(text) { return true }
        guard text.count >= 3, text.hasPrefix("<"), text.hasSuffix(">") else { return false }
        return text.dropFirst().dropLast().allSatisfy { $0.isLetter || $0 == " " || $0 == "-" || $0 == "," }
    }
}
