/// Parses a request head (request line and header fields, each line already known to end in
/// CRLF) into a request without a body, plus how its body is framed (RFC 9112 §6).
///
/// `RequestParser` calls the pieces line by line as the head arrives, so a malformed request
/// line or field is refused as soon as its line is complete, not when (or if) the head ends:
/// `parseRequestLine`, then `parseField` + `addField` per field line, then `finishHead`.
enum BodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

enum RequestHeadParser {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// Parses one field line and adds it, applying the checks that need no other field: the
    /// field count limit and the syntax of Host (RFC 9112 §3.2: an invalid Host MUST get 400).
    /// The Host value becomes the request's authority here unless the target gave one (only one
    /// Host gets in), so the head's end does not look for it again.
    static func addField(
        _ buf: Bytes,
        _ line: Range<Int>,
        to request: inout IncomingRequest,
        limits: HTTPParserLimits
    ) throws(HTTPParseError) {
        let (nameRange, valueRange) = try fieldRanges(buf, line)
        let nameBytes = Bytes(rebasing: buf[nameRange])
        let name = HeadText.fieldName(nameBytes)
        let value = string(buf, valueRange)
        if request.headers.count >= limits.maxHeaderCount {
            throw HTTPParseError(.headersTooLarge, "more than \(limits.maxHeaderCount) header fields")
        }
        let kind = NotableFields(name: nameBytes)
        switch kind {
        case .host:
            guard !request.headers.has(.host, named: "Host") else { throw .bad("more than one Host header") }
            // The bytes in place: the string's UTF-8 was copied out for the check (a small string).
            guard Authority.isValid(Bytes(rebasing: buf[valueRange]), allowEmptyHost: true) else {
                throw .bad("invalid Host header")
            }
            if request.authority == nil && !value.isEmpty { request.authority = value }
        case .contentLength:
            // Framing errors are refused on sight too; `framing` repeats the checks on the whole set.
            guard !request.headers.has(.contentLength, named: "Content-Length") else {
                throw .bad("repeated Content-Length")
            }
            guard !request.headers.has(.transferEncoding, named: "Transfer-Encoding") else {
                throw .bad("both Transfer-Encoding and Content-Length")
            }
            _ = try contentLength(value)
        case .transferEncoding:
            guard !request.headers.has(.contentLength, named: "Content-Length") else {
                throw .bad("both Transfer-Encoding and Content-Length")
            }
        default:
            break
        }
        request.headers.add(name, value, kind)
    }

    /// The checks that need the whole header section, once the empty line has arrived; returns
    /// how the body is framed and whether the client waits for `100 Continue`. The request is
    /// changed where it lies (its authority from Host): taking and returning it copied the whole
    /// request, a retain and a release for each of its strings and arrays (callgrind).
    static func finishHead(
        _ request: inout IncomingRequest,
        limits: HTTPParserLimits
    ) throws(HTTPParseError) -> (framing: BodyFraming, expectsContinue: Bool) {
        let framing = try framing(of: request.headers, version: request.version, limits: limits)
        try checkHost(request)
        try checkConnection(request.headers)
        let expects =
            request.version.minor >= 1 && framing != .none && framing != .length(0)
            && request.headers.hasToken("100-continue", in: .expect, named: "Expect")
        return (framing, expects)
    }

    // MARK: request line (RFC 9112 §3)

    /// Writes the request line into `request`, the parser's own storage, which is an empty
    /// request (`IncomingRequest()`): built in a local and returned, the request was copied and
    /// the local destroyed (an outlined copy of the whole request, callgrind).
    static func parseRequestLine(
        _ buf: Bytes,
        _ line: Range<Int>,
        limits: HTTPParserLimits,
        into request: inout IncomingRequest
    ) throws(HTTPParseError) {
        var i = line.lowerBound
        let end = line.upperBound
        i = ByteClass.tokenEnd(buf, from: i, to: end)
        guard i > line.lowerBound else { throw .bad("missing or invalid method") }
        guard i < end, buf[i] == ByteClass.space else { throw .bad("invalid character in method") }
        let method = HeadText.method(Bytes(rebasing: buf[line.lowerBound..<i]))
        i += 1
        let targetStart = i
        i = ByteClass.targetEnd(buf, from: i, to: end)
        if i < end, buf[i] != ByteClass.space {
            if buf[i] == UInt8(ascii: "#") { throw .bad("fragment in request-target") }
            throw .bad("invalid character in request-target")
        }
        let targetLength = i - targetStart
        guard targetLength > 0 else { throw .bad("missing request-target") }
        guard targetLength <= limits.maxTargetBytes else {
            throw HTTPParseError(.targetTooLong, "request-target longer than \(limits.maxTargetBytes) bytes")
        }
        guard i < end else { throw .bad("missing HTTP version") }
        i += 1
        let version = try parseVersion(buf, i..<end)
        let targetString = string(buf, targetStart..<(targetStart + targetLength))
        request.method = method
        request.target = targetString
        request.version = version
        // Most targets are a path alone (no query, no `%`, no dot segment) and the method is not
        // CONNECT: then the path is the target as it is, which the bytes at hand say in one
        // pass. `RequestTarget.parse` gives the same answer, in about 860 instructions for
        // `/v1/bench` (callgrind: the short string's bytes copied out for each of its scans).
        let isConnect = targetStart - line.lowerBound == 8 && method == "CONNECT"
        let target = Bytes(rebasing: buf[targetStart..<(targetStart + targetLength)])
        if !isConnect, RequestTarget.isPlainOriginPath(target) {
            request.path = targetString
            return
        }
        try RequestTarget.parse(
            targetString,
            method: method,
            acceptsConnect: limits.acceptsConnect,
            into: &request
        )
    }

    /// `HTTP/` DIGIT `.` DIGIT, case-sensitive (RFC 9112 §2.3). Major versions other than 1 get
    /// 505; a higher 1.x minor is served as 1.1 (RFC 9110 §2.5 SHOULD).
    static func parseVersion(_ buf: Bytes, _ r: Range<Int>) throws(HTTPParseError) -> HTTPVersion {
        // `HTTP/1.1` in one comparison; anything else byte by byte below.
        if r.count == 8, let base = buf.baseAddress {
            let word = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: r.lowerBound, as: UInt64.self)
            if UInt64(littleEndian: word) == ByteClass.http11Word { return HTTPVersion(major: 1, minor: 1) }
        }
        guard r.count == 8, ByteClass.isHTTPSlash(buf, at: r.lowerBound) else { throw .bad("malformed HTTP version") }
        let major = buf[r.lowerBound + 5]
        let dot = buf[r.lowerBound + 6]
        let minor = buf[r.lowerBound + 7]
        guard ByteClass.isDigit(major), dot == UInt8(ascii: "."), ByteClass.isDigit(minor) else {
            throw .bad("malformed HTTP version")
        }
        guard major == UInt8(ascii: "1") else {
            throw HTTPParseError(.versionNotSupported, "only HTTP/1.x is supported")
        }
        return HTTPVersion(major: 1, minor: minor == UInt8(ascii: "0") ? 0 : 1)
    }

    // MARK: fields (RFC 9112 §5, RFC 9110 §5.5)

    static func parseField(_ buf: Bytes, _ line: Range<Int>) throws(HTTPParseError) -> (String, String) {
        let (name, value) = try fieldRanges(buf, line)
        return (HeadText.fieldName(Bytes(rebasing: buf[name])), string(buf, value))
    }

    /// Where a field line's name and its value (optional whitespace trimmed) lie.
    static func fieldRanges(
        _ buf: Bytes,
        _ line: Range<Int>
    ) throws(HTTPParseError) -> (name: Range<Int>, value: Range<Int>) {
        var i = line.lowerBound
        let end = line.upperBound
        guard i < end else { throw .bad("empty header line") }
        if buf[i] == ByteClass.space || buf[i] == ByteClass.tab {
            throw .bad("obsolete line folding or whitespace before a header name")
        }
        i = ByteClass.tokenEnd(buf, from: i, to: end)
        guard i < end, buf[i] == ByteClass.colon else {
            if i < end, buf[i] == ByteClass.space || buf[i] == ByteClass.tab {
                throw .bad("whitespace between header name and colon")
            }
            throw .bad("invalid character in header name")
        }
        guard i > line.lowerBound else { throw .bad("empty header name") }
        let name = line.lowerBound..<i
        i += 1
        while i < end, buf[i] == ByteClass.space || buf[i] == ByteClass.tab { i += 1 }
        let valueStart = i
        let invalid = ByteClass.fieldValueEnd(buf, from: i, to: end)
        if invalid < end {
            throw .bad(buf[invalid] == ByteClass.cr ? "bare CR in header value" : "invalid character in header value")
        }
        var valueEnd = end
        while valueEnd > valueStart, buf[valueEnd - 1] == ByteClass.space || buf[valueEnd - 1] == ByteClass.tab {
            valueEnd -= 1
        }
        return (name, valueStart..<valueEnd)
    }

    // MARK: framing (RFC 9112 §6.1-6.3)

    static func framing(
        of headers: HeaderFields,
        version: HTTPVersion,
        limits: HTTPParserLimits
    ) throws(HTTPParseError) -> BodyFraming {
        // Most requests (every GET) have neither field: two bits, no scan, no arrays.
        let hasTransferEncoding = headers.has(.transferEncoding, named: "Transfer-Encoding")
        guard hasTransferEncoding || headers.has(.contentLength, named: "Content-Length") else { return .none }
        let cl = headers.values("Content-Length")
        if hasTransferEncoding {
            guard cl.isEmpty else { throw .bad("both Transfer-Encoding and Content-Length") }
            guard version.minor >= 1 else { throw .bad("Transfer-Encoding in an HTTP/1.0 request") }
            var codings: [String] = []
            for coding in headers.listElements("Transfer-Encoding") {
                guard HTTPToken.isToken(coding) else {
                    throw .bad("malformed Transfer-Encoding")
                }
                codings.append(coding.lowercased())
            }
            guard codings.last == "chunked" else { throw .bad("chunked is not the final transfer coding") }
            guard codings.count == 1 else {
                if codings.dropLast().contains("chunked") { throw .bad("chunked applied more than once") }
                throw HTTPParseError(.notImplemented, "unsupported transfer coding \(codings[0])")
            }
            return .chunked
        }
        guard !cl.isEmpty else { return .none }
        // Stricter than the RFC's MAY: a repeated or listed Content-Length is refused even when
        // the values agree, because intermediaries disagree on how to read it.
        guard cl.count == 1 else { throw .bad("repeated Content-Length") }
        let length = try contentLength(cl[0])
        guard length <= limits.maxBodyBytes else {
            throw HTTPParseError(.bodyTooLarge, "body of \(length) bytes is over the \(limits.maxBodyBytes)-byte limit")
        }
        return .length(length)
    }

    /// `Content-Length = 1*DIGIT` (RFC 9110 §8.6): no sign, no list, at most 18 digits.
    static func contentLength(_ value: String) throws(HTTPParseError) -> Int {
        let digits = value.utf8
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(ByteClass.isDigit) else {
            throw .bad("invalid Content-Length")
        }
        return digits.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    // MARK: Host (RFC 9112 §3.2) and Connection (RFC 9110 §7.6.1)

    /// Presence: the value's syntax and uniqueness were checked as the field arrived, and it
    /// became the authority then (`addField`, the only way a field gets into a parsed head).
    static func checkHost(_ request: IncomingRequest) throws(HTTPParseError) {
        if request.version.minor >= 1 && !request.headers.has(.host, named: "Host") {
            throw .bad("missing Host header")
        }
    }

    /// `Connection = #connection-option` (tokens). Stricter than the RFC requires: the field
    /// decides whether the connection persists, so a value we cannot read is refused rather than
    /// guessed at. Empty list elements are allowed (RFC 9110 §5.6.1.2).
    static func checkConnection(_ headers: HeaderFields) throws(HTTPParseError) {
        // Most requests have none: the notable bit answers them without starting the list
        // iterator, which cost about 200 instructions over no field at all (callgrind).
        guard headers.has(.connection, named: "Connection") else { return }
        for option in headers.listElements("Connection") {
            guard option.isEmpty || HTTPToken.isToken(option) else {
                throw .bad("invalid Connection header")
            }
        }
    }

    static func string(_ buf: Bytes, _ r: Range<Int>) -> String {
        HeadText.string(Bytes(rebasing: buf[r]))
    }
}

extension IncomingRequest {
    /// A head the parser accepted (`IncomingRequest.head`), read again by the same parser: the
    /// method, target, path, query, version, header fields (in order, names as sent, repeats
    /// kept) and authority it gave when the request came, and `head` itself. The head was within
    /// the server's limits when it came, so none apply now. Throws what the parser would have
    /// answered for bytes it never accepted.
    package init(readingHead head: [UInt8]) throws(HTTPParseError) {
        self = try Self.read(head, fields: true)
    }

    /// The request line alone (method, target, path, query, version), for a reader that needs
    /// no field: a list of requests.
    package init(readingRequestLineOf head: [UInt8]) throws(HTTPParseError) {
        self = try Self.read(head, fields: false)
    }

    private static let rereadLimits: HTTPParserLimits = {
        var limits = HTTPParserLimits(
            maxHeaderBytes: .max,
            maxTargetBytes: .max,
            maxBodyBytes: .max,
            maxHeaderCount: .max
        )
        limits.acceptsConnect = true
        return limits
    }()

    private static func read(_ head: [UInt8], fields: Bool) throws(HTTPParseError) -> IncomingRequest {
        let limits = rereadLimits
        var request = IncomingRequest()
        var hasRequestLine = false
        try head.withUnsafeBufferPointer { (buf) throws(HTTPParseError) in
            var lineStart = 0
            var i = 0
            while i + 1 < buf.count {
                guard buf[i] == ByteClass.cr, buf[i + 1] == ByteClass.lf else {
                    i += 1
                    continue
                }
                if i == lineStart { return }  // the empty line
                if !hasRequestLine {
                    try RequestHeadParser.parseRequestLine(buf, lineStart..<i, limits: limits, into: &request)
                    hasRequestLine = true
                    guard fields else { return }
                } else {
                    try RequestHeadParser.addField(buf, lineStart..<i, to: &request, limits: limits)
                }
                i += 2
                lineStart = i
            }
        }
        guard hasRequestLine else { throw .bad("missing request line") }
        if fields { try RequestHeadParser.checkHost(request) }
        request.head = head
        return request
    }
}
