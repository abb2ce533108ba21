import JSON
import StubEngine
import SystemSupport

/// Where a recorded response body goes in a stub, chosen so serving it gives back the recorded
/// bytes: JSON up to 64 KiB inline as JSON when its compact form is those bytes (trailing
/// white space aside: a server's closing newline means nothing to a JSON reader, and a file for
/// every such body buried the API in `__files/`), short text inline as a string, anything else
/// (binary, long text, JSON laid out over lines) in `__files/` with an extension from its
/// media type.
package enum RecordedBodies {
    package enum Placement {
        case none
        case inline(JSONNode)
        case file(extension: String)
    }

    static let inlineJSONLimit = 64 << 10
    static let inlineTextLimit = 2 << 10

    package static func placement(_ bytes: [UInt8], contentType: String) -> Placement {
        guard !bytes.isEmpty else { return .none }
        if MediaTypes.isJSON(contentType) {
            // JSON stays JSON: inline as a value when that serves the same bytes, else a file
            // (laid out over lines, escapes such as \u00e9, a bare string), never a text blob.
            let content = withoutTrailingWhitespace(bytes)
            if content.count <= inlineJSONLimit,
                let value = try? JSONParser.parse(Array(content), rejectDuplicateKeys: true),
                value.string == nil, JSONSerializer.bytes(value).elementsEqual(content)
            {
                return .inline(value)
            }
            return .file(extension: fileExtension(contentType))
        }
        if bytes.count <= inlineTextLimit, isText(contentType), let text = UTF8Text.decode(bytes) {
            return .inline(.string(text))
        }
        return .file(extension: fileExtension(contentType))
    }

    /// JSON's white space (RFC 8259: space, tab, line feed, carriage return) at the end cut off.
    private static func withoutTrailingWhitespace(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var end = bytes.endIndex
        while end > bytes.startIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end - 1]) { end -= 1 }
        return bytes[..<end]
    }

    package static func isText(_ contentType: String) -> Bool {
        let essence = MediaTypes.essence(contentType)
        return essence.hasPrefix("text/") || MediaTypes.isJSON(essence) || essence.hasSuffix("+xml")
            || essence.hasSuffix("/xml")
            || ["application/javascript", "application/x-www-form-urlencoded", "application/graphql"].contains(essence)
    }

    package static func fileExtension(_ contentType: String) -> String {
        ContentTypes.fileExtension(for: contentType)
    }
}
