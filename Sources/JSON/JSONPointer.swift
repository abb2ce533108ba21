/// An RFC 6901 JSON pointer (`/user/name`, `/items/0`, `""` for the whole document), parsed
/// once: at load for a `jsonPointer` body condition and a template's `request.json./a/b`, never
/// per request. The package's one reading and writing of pointers: stub conditions, templates,
/// and the `$ref`s and finding locations of imported documents.
///
/// Array indexes are what the RFC allows: `0`, or digits without a leading zero (`01`, `+1` and
/// `-` select nothing: RFC 6901's array-index has no leading zeros, and `-` names the element
/// after the last, which never exists in a document being read). A body condition's or a
/// template's pointer that is not valid is a load error.
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
            ? [] : text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(Self.unescape)
    }

    /// Why `text` is not a JSON pointer, or nil when it is one.
    package static func problem(in text: String) -> String? {
        if !text.isEmpty && !text.hasPrefix("/") {
            return "a JSON pointer is empty (the whole body) or starts with \"/\", as in \"/user/name\""
        }
        if badEscape(in: text) != nil {
            return "\"~\" in a JSON pointer is written \"~0\", and \"/\" inside a name \"~1\""
        }
        return nil
    }

    /// The first `~` not followed by `0` or `1`, with the character after it if there is one.
    package static func badEscape(in text: String) -> Range<String.Index>? {
        let scalars = text.unicodeScalars
        var i = scalars.startIndex
        while let tilde = scalars[i...].firstIndex(of: "~") {
            let after = scalars.index(after: tilde)
            guard after < scalars.endIndex else { return tilde..<after }
            if scalars[after] != "0" && scalars[after] != "1" { return tilde..<scalars.index(after: after) }
            i = scalars.index(after: after)
        }
        return nil
    }

    /// A name as a reference token: `~` is written `~0` and `/` is `~1`. (Byte checks first: a
    /// document walk escapes every key it passes, and most keys have neither.)
    package static func escape(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return name }
        return name.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    /// A reference token as the name it stands for (`~1` before `~0`, so `~01` is `~1`).
    package static func unescape(_ token: Substring) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        return String(token).replacing("~1", with: "/").replacing("~0", with: "~")
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
    package static func arrayIndex(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        guard first != 0x30 || utf8.count == 1 else { return nil }
        return Int(token)
    }
}
