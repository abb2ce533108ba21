import StubEngine

/// Where a recorded response body goes in a stub, chosen so serving it gives back exactly the
/// recorded bytes: JSON inline as JSON when its compact form is those bytes, short text inline
/// as a string, anything else (binary, long text, JSON laid out over lines) in `__files/` with
/// an extension from its media type.
enum HARBodies {
    enum Placement {
        case none
        case inline(JSONNode)
        case file(extension: String)
    }

    static let inlineJSONLimit = 64 << 10
    static let inlineTextLimit = 2 << 10

    static func placement(_ bytes: [UInt8], contentType: String) -> Placement {
        guard !bytes.isEmpty else { return .none }
        if MediaTypes.isJSON(contentType) {
            // JSON stays JSON: inline as a value when that serves the same bytes, else a file
            // (laid out over lines, escapes such as \u00e9, a bare string), never a text blob.
            if bytes.count <= inlineJSONLimit, let value = try? JSONParser.parse(bytes, rejectDuplicateKeys: true),
               value.string == nil, JSONSerializer.bytes(value) == bytes {
                return .inline(value)
            }
            return .file(extension: fileExtension(contentType))
        }
        if bytes.count <= inlineTextLimit, isText(contentType), let text = String(validatingUTF8Bytes: bytes) {
            return .inline(.string(text))
        }
        return .file(extension: fileExtension(contentType))
    }

    static func isText(_ contentType: String) -> Bool {
        let essence = MediaTypes.essence(contentType)
        return essence.hasPrefix("text/") || MediaTypes.isJSON(essence) || essence.hasSuffix("+xml") || essence.hasSuffix("/xml")
            || ["application/javascript", "application/x-www-form-urlencoded", "application/graphql"].contains(essence)
    }

    static let extensions: [String: String] = [
        "application/json": "json", "text/html": "html", "text/css": "css", "text/javascript": "js",
        "application/javascript": "js", "application/x-javascript": "js", "text/plain": "txt", "text/csv": "csv",
        "text/markdown": "md", "application/xml": "xml", "text/xml": "xml", "image/png": "png", "image/jpeg": "jpg",
        "image/gif": "gif", "image/webp": "webp", "image/avif": "avif", "image/heic": "heic", "image/svg+xml": "svg",
        "image/x-icon": "ico", "image/vnd.microsoft.icon": "ico", "font/woff": "woff", "font/woff2": "woff2",
        "font/ttf": "ttf", "application/pdf": "pdf", "application/zip": "zip", "application/gzip": "gz",
        "video/mp4": "mp4", "audio/mpeg": "mp3", "application/x-protobuf": "pb", "application/octet-stream": "bin",
    ]

    static func fileExtension(_ contentType: String) -> String {
        let essence = MediaTypes.essence(contentType)
        if let known = extensions[essence] { return known }
        if essence.hasSuffix("+json") { return "json" }
        if essence.hasSuffix("+xml") { return "xml" }
        if essence.hasPrefix("text/") { return "txt" }
        return "bin"
    }
}

extension String {
    /// The text of bytes that are valid UTF-8 (so writing it back gives the same bytes), else nil.
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var scalars = String.UnicodeScalarView()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = String(scalars)
    }
}
