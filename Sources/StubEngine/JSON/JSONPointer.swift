/// An RFC 6901 JSON pointer (`/user/name`, `/items/0`, `""` for the whole document), parsed
/// once: at load for a `jsonPointer` body condition, never per request.
///
/// Array indexes are what the RFC allows: `0`, or digits without a leading zero (`01`, `+1` and
/// `-` select nothing). A body condition's pointer that is not valid is a load error; a
/// template's (`{{request.json./a/b}}`) selects nothing.
package struct JSONPointer: Sendable, Equatable, CustomStringConvertible {
    /// As written.
    package let description: String
    /// The reference tokens, unescaped (`~1` is `/`, `~0` is `~`).
    package let tokens: [String]

    /// nil when `text` is not a pointer: neither empty nor starting with `/`, or a `~` not
    /// followed by `0` or `1`. `problem` says which.
    package init?(_ text: String) {
        guard Self.problem(in: text) == nil else { return nil }
        description = text
        tokens =
            text.isEmpty
            ? []
            : text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
                String($0).replacing("~1", with: "/").replacing("~0", with: "~")
            }
    }

    /// Why `text` is not a JSON pointer, or nil when it is one.
    package static func problem(in text: String) -> String? {
        if !text.isEmpty && !text.hasPrefix("/") {
            return "a JSON pointer is empty (the whole body) or starts with \"/\", as in \"/user/name\""
        }
        let scalars = Array(text.unicodeScalars)
        for (i, scalar) in scalars.enumerated() where scalar == "~" {
            guard i + 1 < scalars.count, scalars[i + 1] == "0" || scalars[i + 1] == "1" else {
                return "\"~\" in a JSON pointer is written \"~0\", and \"/\" inside a name \"~1\""
            }
        }
        return nil
    }

    /// The value the pointer selects, or nil when there is none.
    package func resolve(in root: JSONNode) -> JSONNode? {
        var node = root
        for token in tokens {
            switch node.value {
            case .object(let members):
                // The last of repeated names, as everywhere the engine reads a request's JSON.
                guard let next = members.last(where: { $0.key == token }) else { return nil }
                node = next.value
            case .array(let elements):
                guard let index = Self.arrayIndex(token), index < elements.count else { return nil }
                node = elements[index]
            default:
                return nil
            }
        }
        return node
    }

    /// RFC 6901's array-index: "0" or a digit 1-9 followed by digits.
    static func arrayIndex(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        guard first != 0x30 || utf8.count == 1 else { return nil }
        return Int(token)
    }
}
