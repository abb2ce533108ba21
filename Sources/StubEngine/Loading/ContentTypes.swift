/// The default `Content-Type` of a body file, from its extension. A stub's own header wins.
enum ContentTypes {
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

    static func forFileName(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return "application/octet-stream" }
        return byExtension[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
