import SystemSupport

/// The request-target (RFC 9112 §3.2): validated, then decoded into the request's path, query
/// and (for the absolute-form, whose authority overrides Host: §3.2.2) authority.
package enum RequestTarget {
    /// Parses origin-form, absolute-form (http/https) and asterisk-form. The bytes have already
    /// passed the `ByteClass.target` check, so only structure is checked here.
    ///
    /// Writes the parts into `request` (its `target` is `raw`): returned as a value through the
    /// typed throw, the parts were copied out of it and it was destroyed, a retain and a release
    /// per part on every request. `authority` is only set for an absolute-form target.
    static func parse(
        _ raw: String,
        method: String,
        acceptsConnect: Bool = false,
        into request: inout IncomingRequest
    ) throws(HTTPParseError) {
        if raw == "*" {
            guard method == "OPTIONS" else { throw .bad("asterisk-form target is only for OPTIONS") }
            request.path = "*"
            return
        }
        if method == "CONNECT" {
            // RFC 9112 §3.2.3: CONNECT takes the authority-form, and nothing else does. A
            // well-formed CONNECT asks for a tunnel, which only a forward proxy offers (RFC 9110
            // §9.1: 501 otherwise).
            guard Authority.isValid(raw.utf8, allowEmptyHost: false, requirePort: true),
                ConnectionTunnel.split(authority: raw) != nil
            else {
                throw .bad("CONNECT needs an authority-form target (host:port)")
            }
            guard acceptsConnect else { throw HTTPParseError(.notImplemented, "CONNECT is not supported") }
            request.path = ""
            request.authority = raw
            return
        }
        var rest = Substring(raw)
        var authority: String?
        if rest.utf8.first != UInt8(ascii: "/") {
            guard let schemeEnd = rest.firstRange(of: "://") else {
                throw .bad("request-target must start with / or be absolute")
            }
            let scheme = rest[..<schemeEnd.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw .bad("unsupported scheme in absolute-form target")
            }
            rest = rest[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            let auth = rest[..<authorityEnd]
            // RFC 9110 §4.2.1: an http(s) URI with an empty host MUST be rejected; §4.2.4: userinfo
            // SHOULD be treated as an error. Anything else that is not `host[:port]` is malformed.
            guard !auth.contains("@") else { throw .bad("userinfo in absolute-form target") }
            guard Authority.isValid(auth.utf8, allowEmptyHost: false) else {
                throw .bad("invalid authority in absolute-form target")
            }
            authority = String(auth)
            rest = rest[authorityEnd...]
            if rest.first == "?" || rest.isEmpty { rest = "/" + rest }
        }
        var rawPath = rest
        var rawQuery: Substring?
        // Byte scans (the utf8 view shares String's indices): a Character scan was 4% of a
        // request's CPU in the profile.
        if let q = Self.firstQuestionMark(rest) {
            rawPath = rest[..<q]
            rawQuery = rest[rest.index(after: q)...]
        }
        request.path = try decodedPath(rawPath)
        if let rawQuery {
            request.rawQuery = String(rawQuery)
            request.queryItems = parseQuery(rawQuery)
        }
        if let authority { request.authority = authority }
    }

    /// The path a stub matches: dot segments removed, percent-decoded, and dot segments removed
    /// again when decoding made new ones (`/x/%2e%2e/ping` decodes to `/x/../ping`, which must
    /// not reach a matcher as such: the documented promise is a decoded path without `.` or
    /// `..` segments). Every transport builds its paths here, so one stub matches the same way
    /// over sockets and in-process. nil when a `%` is not followed by two hex digits.
    package static func decodedPath<S: StringProtocol>(_ rawPath: S) throws(HTTPParseError) -> String {
        // Most paths have neither a `%` nor a dot segment: one pass over contiguous bytes says
        // so, where the general route scanned three times through String's generic views (1.1%
        // of the server's samples at c64).
        if rawPath.utf8.withContiguousStorageIfAvailable({ isPlainPath($0) }) == true { return String(rawPath) }
        return try decodedPathByRules(rawPath)
    }

    /// The general route of `decodedPath`, for any path (tests hold the fast path to it).
    static func decodedPathByRules<S: StringProtocol>(_ rawPath: S) throws(HTTPParseError) -> String {
        let normalised = removeDotSegments(Substring(rawPath))
        guard let decoded = PercentDecoding.decode(normalised, strict: true) else {
            throw .bad("malformed percent-encoding in path")
        }
        guard hasDotSegmentStart(decoded.utf8) else { return decoded }
        return String(removeDotSegments(Substring(decoded)))
    }

    /// Where the query starts. Over contiguous bytes when the target has them (it does, coming
    /// from the parser): the generic scan of a `Substring`'s UTF-8 view cost 340 instructions
    /// for a short path (callgrind).
    static func firstQuestionMark(_ target: Substring) -> String.Index? {
        let utf8 = target.utf8
        if let offset = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: UInt8(ascii: "?")) }) {
            return offset.map { utf8.index(utf8.startIndex, offsetBy: $0) }
        }
        return utf8.firstIndex(of: UInt8(ascii: "?"))
    }

    /// True for an origin-form target that is a path alone needing no work: it starts with "/"
    /// and has no `?`, no `%` and no "." right after a "/". Its decoded path is itself.
    static func isPlainOriginPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.first == UInt8(ascii: "/"), let base = bytes.baseAddress else { return false }
        // Most paths hold no `?`, `%` or `.` at all: such words of eight bytes are passed over
        // whole (the byte loop took about 15 instructions a byte, callgrind); from the first
        // word holding one, the byte loop tells a "." after a "/" from one inside a name.
        let raw = UnsafeRawPointer(base)
        var start = 0
        while start + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            if ByteClass.holds(word, UInt8(ascii: "?")) || ByteClass.holds(word, UInt8(ascii: "%"))
                || ByteClass.holds(word, UInt8(ascii: "."))
            {
                break
            }
            start += 8
        }
        var previous: UInt8 = start > 0 ? bytes[start - 1] : 0
        for byte in UnsafeBufferPointer(rebasing: bytes[start...]) {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "%")
                || (byte == UInt8(ascii: ".") && previous == UInt8(ascii: "/"))
            {
                return false
            }
            previous = byte
        }
        return true
    }

    /// True when the path needs no work: no `%` to decode and no "." right after a "/".
    static func isPlainPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "%") || (byte == UInt8(ascii: ".") && previous == UInt8(ascii: "/")) {
                return false
            }
            previous = byte
        }
        return true
    }

    /// Only a "." right after a "/" can start a dot segment; most paths have none.
    static func hasDotSegmentStart<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == UInt8(ascii: "."), previous == UInt8(ascii: "/") { return true }
            previous = byte
        }
        return false
    }

    /// RFC 3986 §5.2.4, on segments: `.` goes, `..` removes the segment before it (never above root).
    static func removeDotSegments(_ path: Substring) -> Substring {
        guard hasDotSegmentStart(path.utf8) else { return path }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        var out: [Substring] = []
        var trailingSlash = false
        for (i, seg) in segments.enumerated() {
            let last = i == segments.count - 1
            if i == 0 { continue }  // before the leading "/"
            if seg == "." {
                trailingSlash = last
                continue
            }
            if seg == ".." {
                if !out.isEmpty { out.removeLast() }
                trailingSlash = last
                continue
            }
            out.append(seg)
            trailingSlash = false
        }
        var result = "/" + out.joined(separator: "/")
        if trailingSlash && !result.hasSuffix("/") { result += "/" }
        return Substring(result)
    }

    static func parseQuery(_ query: Substring) -> [QueryItem] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let eq = pair.firstIndex(of: "=") {
                return QueryItem(
                    name: PercentDecoding.decodeLenient(pair[..<eq]),
                    value: PercentDecoding.decodeLenient(pair[pair.index(after: eq)...])
                )
            }
            return QueryItem(name: PercentDecoding.decodeLenient(pair), value: "")
        }
    }
}
