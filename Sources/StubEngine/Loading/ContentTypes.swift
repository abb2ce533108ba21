#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The default `Content-Type` of a body file, from its extension. A stub's own header wins.
package enum ContentTypes {
    static let byExtension: [String: String] = [
        "json": "application/json", "geojson": "application/geo+json",
        "txt": "text/plain; charset=utf-8", "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "csv": "text/csv; charset=utf-8", "md": "text/markdown; charset=utf-8",
        "js": "text/javascript; charset=utf-8", "xml": "application/xml", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "heic": "image/heic", "ico": "image/x-icon", "avif": "image/avif",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "mp4": "video/mp4", "mov": "video/quicktime", "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf",
        "pb": "application/x-protobuf", "bin": "application/octet-stream",
    ]

    package static func forFileName(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}

extension ContentTypes {
    /// The file extension for a media type, for body files the recorder and the importers write:
    /// the inverse of `byExtension` (its shortest common spelling), with the aliases servers send.
    package static func fileExtension(for contentType: String) -> String {
        let essence = MediaTypes.essence(contentType)
        if let known = extensionByType[essence] { return known }
        if essence.hasSuffix("+json") { return "json" }
        if essence.hasSuffix("+xml") { return "xml" }
        if essence.hasPrefix("text/") { return "txt" }
        return "bin"
    }

    private static let extensionByType: [String: String] = {
        var map = [
            "application/javascript": "js", "application/x-javascript": "js", "text/xml": "xml",
            "image/vnd.microsoft.icon": "ico", "text/json": "json",
        ]
        // Sorted so that of two spellings (`jpg`, `jpeg`; `htm`, `html`) the choice is stable:
        // the shorter, then the alphabetically first... except HTML, written `html` everywhere.
        for (ext, type) in byExtension.sorted(by: { ($0.key.count, $0.key) < ($1.key.count, $1.key) }) {
            let essence = MediaTypes.essence(type)
            if map[essence] == nil { map[essence] = ext }
        }
        map["text/html"] = "html"
        return map
    }()
}

/// Media type names as Content-Type headers and OpenAPI documents write them.
package enum MediaTypes {
    /// `Application/JSON; charset=utf-8` → `application/json`.
    package static func essence(_ mediaType: String) -> String {
        // Most are written as their essence already (`application/json`): checked per request.
        var text = mediaType
        if text.withUTF8({ $0.allSatisfy(isEssenceByte) }) { return mediaType }
        return (mediaType.split(separator: ";", maxSplits: 1).first ?? "").trimmingSpaces().lowercased()
    }

    /// Lowercase letters, digits and `*+-./_`: what an essence is written with (no space, no `;`).
    private static func isEssenceByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"),
            UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// `application/json`, `application/problem+json`, `text/json`; `*/*` is not.
    package static func isJSON(_ mediaType: String) -> Bool {
        // By bytes: this runs per request (the contract check, matchers), and an essence is ASCII.
        let bytes = essence(mediaType).utf8
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return false }
        let subtype = bytes[bytes.index(after: slash)...]
        return subtype.elementsEqual("json".utf8) || subtype.suffix(5).elementsEqual("+json".utf8)
    }

    /// Whether a documented media type (possibly a wildcard, `image/*`, `*/*`) covers an actual one.
    package static func covers(_ documented: String, _ actual: String) -> Bool {
        let pattern = essence(documented)
        let value = essence(actual)
        if pattern == value || pattern == "*/*" || pattern == "*" { return true }
        if pattern.hasSuffix("/*") { return value.hasPrefix(pattern.dropLast()) }
        return false
    }

    package static func isWildcard(_ mediaType: String) -> Bool { essence(mediaType).contains("*") }
}
