/// The line-level pieces of `ResponseParser`: the status line (RFC 9112 §4), obs-fold
/// continuation lines (§5.2), and, once the head is complete, the framing (§6.3) and
/// connection-reuse (§9.3) decisions. Field lines themselves go through
/// `RequestHeadParser.parseField`, the same strict grammar as for requests.

/// What the response answers, as far as framing cares (RFC 9112 §6.3 rules 1 and 2).
enum ExpectedResponse: Sendable, Equatable {
    case head
    case connect
    case other

    /// Methods are case-sensitive (RFC 9110 §9.1): `head` is not HEAD.
    init(method: String) {
        switch method {
        case "HEAD": self = .head
        case "CONNECT": self = .connect
        default: self = .other
        }
    }
}

struct StatusLine: Sendable, Equatable {
    var version: HTTPVersion
    var status: Int
    var reason: String
}

enum ResponseHeadParser {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    // MARK: status line (RFC 9112 §4)

    /// `status-line = HTTP-version SP status-code SP [ reason-phrase ]`
    ///
    /// Strict on what framing and safety depend on: `HTTP/1.` DIGIT exactly (case-sensitive,
    /// §2.3), one SP, exactly three digits in 100...599 (RFC 9110 §15). Lenient where the RFC
    /// tells a client to be: the SP after the status code may be missing (`HTTP/1.1 200`), since
    /// a client SHOULD ignore the reason phrase anyway. The reason phrase keeps its bytes as sent
    /// but must be HTAB / SP / VCHAR / obs-text: no NUL or other control bytes.
    static func parseStatusLine(_ buf: Bytes, _ line: Range<Int>) throws(ResponseParseError) -> StatusLine {
        let s = line.lowerBound
        guard line.count >= 8, ByteClass.isHTTPSlash(buf, at: s),
            ByteClass.isDigit(buf[s + 5]), buf[s + 6] == UInt8(ascii: "."), ByteClass.isDigit(buf[s + 7])
        else {
            throw .malformed("not an HTTP/1.x status line")
        }
        guard buf[s + 5] == UInt8(ascii: "1") else { throw .malformed("not an HTTP/1.x response") }
        let version = HTTPVersion(major: 1, minor: buf[s + 7] == UInt8(ascii: "0") ? 0 : 1)
        guard line.count >= 12, buf[s + 8] == ByteClass.space,
            (9..<12).allSatisfy({ ByteClass.isDigit(buf[s + $0]) })
        else {
            throw .malformed("malformed status code")
        }
        let status = (9..<12).reduce(0) { $0 * 10 + Int(buf[s + $1] - 48) }
        guard (100...599).contains(status) else { throw .malformed("status code outside 100-599") }
        guard line.count > 12 else { return StatusLine(version: version, status: status, reason: "") }
        guard buf[s + 12] == ByteClass.space else { throw .malformed("malformed status code") }
        let reason = (s + 13)..<line.upperBound
        for i in reason where !ByteClass.fieldValue[Int(buf[i])] {
            throw .malformed("invalid character in reason phrase")
        }
        return StatusLine(version: version, status: status, reason: RequestHeadParser.string(buf, reason))
    }

    // MARK: obs-fold (RFC 9112 §5.2)

    /// A line starting with SP or HTAB continues the previous field (obs-fold). A proxy MUST
    /// either refuse the response (502) or replace each obs-fold with SP; we replace, since the
    /// unfolded value holds no CR or LF and our own framing is what goes downstream. Appends the
    /// continuation to `value` after one SP (nothing when it is only whitespace), in place, so
    /// thousands of folded lines cost linear time, not a copy of the value each.
    static func unfold(_ value: inout String, _ buf: Bytes, _ line: Range<Int>) throws(ResponseParseError) {
        var start = line.lowerBound
        var end = line.upperBound
        for i in line where !ByteClass.fieldValue[Int(buf[i])] {
            throw .malformed(buf[i] == ByteClass.cr ? "bare CR in header value" : "invalid character in header value")
        }
        while start < end, buf[start] == ByteClass.space || buf[start] == ByteClass.tab { start += 1 }
        while end > start, buf[end - 1] == ByteClass.space || buf[end - 1] == ByteClass.tab { end -= 1 }
        guard start < end else { return }
        if !value.isEmpty { value += " " }
        value += RequestHeadParser.string(buf, start..<end)
    }

    // MARK: the complete head

    /// Framing and reuse, once every field is known. Throws what makes the response impossible
    /// to relay safely.
    static func finish(
        _ line: StatusLine,
        headers: HeaderFields,
        answering request: ExpectedResponse
    )
        throws(ResponseParseError) -> ResponseHead
    {
        let lengths = try contentLength(headers)
        let codings = try transferCodings(headers)
        // Rule 2, checked before rule 1 because a 204 is a 2xx too (found by fuzzing): any 2xx
        // to CONNECT turns the connection into a tunnel after the head (RFC 9110 §9.3.6). The
        // proxy does not relay tunnels.
        if request == .connect && (200...299).contains(line.status) {
            throw .malformed("a 2xx answer to CONNECT (tunnels are not proxied)")
        }
        let framing: ResponseFraming
        if line.status < 200 || line.status == 204 || line.status == 304 || request == .head {
            // Rule 1: no body, whatever the fields say. A response to HEAD or a 304 describes
            // the representation GET would have returned, so its Content-Length is kept.
            framing = .none
        } else if let codings {
            // Rules 3 and 4: Transfer-Encoding wins over Content-Length; chunked framing only
            // when chunked is the final coding, otherwise the body runs until the close.
            framing = codings.last == "chunked" ? .chunked : .untilClose
        } else if let lengths {
            framing = .length(lengths)
        } else {
            // Rule 8: a response with neither runs until the connection closes.
            framing = .untilClose
        }
        // Framing in doubt closes the connection after the response: with both fields, a peer
        // that framed by Content-Length would read the message differently (RFC 9112 §6.3
        // rule 3: the sender may be trying to smuggle); a 204 MUST NOT carry either field
        // (RFC 9110 §8.6, RFC 9112 §6.1), so one that does may send a body after all.
        let bodilessWithFraming = line.status == 204 && (codings != nil || (lengths ?? 0) != 0)
        let framingInDoubt = (codings != nil && lengths != nil) || bodilessWithFraming
        let reusable =
            !framingInDoubt
            && connectionReusable(line.version, headers, framing: framing, hasTransferEncoding: codings != nil)
        return ResponseHead(
            version: line.version,
            status: line.status,
            reason: line.reason,
            headers: headers,
            framing: framing,
            connectionReusable: reusable,
            mustDropContentLength: codings != nil && lengths != nil
        )
    }

    /// The single length every `Content-Length` field agrees on, or nil when there is none.
    ///
    /// RFC 9112 §6.3 rule 5: a list or repeat of one valid value is processed as that value
    /// (`5, 5`); differing or invalid values are an unrecoverable error, which a proxy answers
    /// with 502. Checked in every response, bodiless or not: a HEAD or 304 response's
    /// Content-Length is forwarded, so it must mean something.
    static func contentLength(_ headers: HeaderFields) throws(ResponseParseError) -> Int? {
        var length: Int?
        // Field by field and element by element without arrays: this runs for every response
        // the proxy relays.
        for element in headers.listElements("Content-Length") {
            let digits = element.utf8
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(ByteClass.isDigit) else {
                throw .malformed("invalid Content-Length")
            }
            let n = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard length == nil || length == n else { throw .malformed("differing Content-Length values") }
            length = n
        }
        return length
    }

    /// The transfer codings in order, lowercased, or nil when there is no `Transfer-Encoding`.
    ///
    /// Empty list elements are skipped (RFC 9110 §5.6.1.2). Each coding must be a bare token:
    /// parameters are refused rather than guessed at, since framing depends on the last name.
    /// `chunked` twice is refused (RFC 9112 §6.1: a sender MUST NOT apply it more than once).
    static func transferCodings(_ headers: HeaderFields) throws(ResponseParseError) -> [String]? {
        guard headers.contains("Transfer-Encoding") else { return nil }
        var codings: [String] = []
        for coding in headers.listElements("Transfer-Encoding") {
            if coding.isEmpty { continue }
            guard HTTPToken.isToken(coding) else {
                throw .malformed("malformed Transfer-Encoding")
            }
            let lower = coding.lowercased()
            if lower == "chunked" && codings.contains("chunked") { throw .malformed("chunked applied more than once") }
            codings.append(lower)
        }
        guard !codings.isEmpty else { throw .malformed("empty Transfer-Encoding") }
        return codings
    }

    /// RFC 9112 §9.3: HTTP/1.1 persists unless `close` is listed; HTTP/1.0 only with
    /// `keep-alive` and without `close`. Never after read-until-close framing (the close is the
    /// body's end), nor after an HTTP/1.0 message with Transfer-Encoding (§6.1: treat its
    /// framing as faulty and close after it). A `Connection` value that is not a token list
    /// cannot be read with confidence, so it too means close.
    static func connectionReusable(
        _ version: HTTPVersion,
        _ headers: HeaderFields,
        framing: ResponseFraming,
        hasTransferEncoding: Bool
    ) -> Bool {
        var close = false
        var keepAlive = false
        for option in headers.listElements("Connection") {
            if option.isEmpty { continue }
            guard HTTPToken.isToken(option) else { return false }
            if asciiCaseInsensitiveEquals(option, "close") { close = true }
            if asciiCaseInsensitiveEquals(option, "keep-alive") { keepAlive = true }
        }
        if framing == .untilClose || close { return false }
        if version.minor == 0 { return keepAlive && !hasTransferEncoding }
        return true
    }
}
