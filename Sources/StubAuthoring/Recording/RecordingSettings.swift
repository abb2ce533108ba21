import StubEngine

/// What a recording session keeps and where it writes (`stubserver record`, or
/// `POST /__admin/recordings/start`).
package struct RecordingSettings: Sendable {
    /// Where unmatched requests go while recording; nil: the server's own `--proxy`.
    package var upstream: ProxyRule?
    /// The folder the stub files go into (created if missing).
    package var output: String
    /// Only paths matching one of these are recorded (none: every path)...
    package var include: [PathGlob]
    /// ...and none matching one of these.
    package var exclude: [PathGlob]
    /// Write `Authorization`, `Cookie` and `Set-Cookie` values (and the other secret fields)
    /// instead of leaving them out.
    package var keepSecrets: Bool
    /// Secret fields written anyway, lower-cased (`--keep-header NAME`).
    package var keptHeaders: Set<String> = []
    /// Request fields the recorded stubs match on, besides method, path, query and body.
    package var requestHeaders: [String]
    /// `record --forward-proxy`: what proxy clients' hosts answer is recorded (their stubs
    /// get a `host` condition), so no fallback upstream is needed.
    package var forwardProxy = false

    package init(
        upstream: ProxyRule? = nil,
        output: String,
        include: [PathGlob] = [],
        exclude: [PathGlob] = [],
        keepSecrets: Bool = false,
        requestHeaders: [String] = []
    ) {
        self.upstream = upstream
        self.output = output
        self.include = include
        self.exclude = exclude
        self.keepSecrets = keepSecrets
        self.requestHeaders = requestHeaders
    }

    /// Whether a request to `path` (decoded) is recorded.
    package func records(path: String) -> Bool {
        (include.isEmpty || include.contains { $0.matches(path) }) && !exclude.contains { $0.matches(path) }
    }
}

/// A path glob for `--include` and `--exclude`: `*` is any run of characters within one
/// segment, `**` any number of whole segments (none included), `?` one character; the rest is
/// literal. `/api/**` matches `/api` and everything below it; `/users/*/avatar` one level.
package struct PathGlob: Sendable, Equatable, CustomStringConvertible {
    package let description: String
    private let segments: [Substring]

    /// nil for a glob that does not start with `/`.
    package init?(_ text: String) {
        guard text.hasPrefix("/") else { return nil }
        description = text
        segments = text.split(separator: "/", omittingEmptySubsequences: true)
    }

    package func matches(_ path: String) -> Bool {
        Self.match(segments[...], path.split(separator: "/", omittingEmptySubsequences: true)[...])
    }

    private static func match(_ glob: ArraySlice<Substring>, _ path: ArraySlice<Substring>) -> Bool {
        guard let first = glob.first else { return path.isEmpty }
        if first == "**" {
            // Zero or more whole segments; the number of tries is bounded by the path's length.
            var rest = path
            while true {
                if match(glob.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let segment = path.first, matchSegment(Array(first.utf8)[...], Array(segment.utf8)[...]) else {
            return false
        }
        return match(glob.dropFirst(), path.dropFirst())
    }

    /// `*` and `?` within one segment, by bytes; linear in practice (segments are short) and
    /// bounded by their product.
    private static func matchSegment(_ pattern: ArraySlice<UInt8>, _ text: ArraySlice<UInt8>) -> Bool {
        var p = pattern.startIndex
        var t = text.startIndex
        var star: Int?
        var mark = text.startIndex
        while t < text.endIndex {
            if p < pattern.endIndex, pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") {
                star = p
                mark = t
                p += 1
            } else if let s = star {
                p = s + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.endIndex
    }
}
