/// An incremental HTTP/1.1 request parser: a value-type state machine with no I/O.
///
/// The caller owns the bytes. It passes everything it has not yet seen consumed, gets back one
/// event and how many leading bytes were consumed, drops those and calls again (with more data
/// appended when the event was `needMore`). Bytes of a head are not consumed until the head is
/// complete, but are scanned only once: `scanned` remembers how far the last call looked, so a
/// slow client sending a byte at a time costs linear, not quadratic, work.
package struct RequestParser: Sendable {
    package enum Event: Sendable {
        /// Nothing complete yet: call again with more bytes.
        case needMore
        /// The head asked for `Expect: 100-continue` and its body has not arrived: send
        /// `100 Continue` now, then keep calling.
        case sendContinue
        /// A request is complete: take it with `takeRequest()` before calling again. The event
        /// carries no request: a request in the event was moved through every level of the
        /// parser's returns and the caller's switch, a copy of its 136 bytes at each (14 copies
        /// a request, callgrind), where taking it is one.
        case request
        /// The request is refused: answer `error.status` once and close.
        case failure(HTTPParseError)
    }

    private enum State: Sendable {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytesSeen: Int)
        /// The error is kept in `failure`, so the state stays a plain value that is read
        /// without retaining anything.
        case failed
    }

    package let limits: HTTPParserLimits
    private var state: State = .head { didSet { refreshProgress() } }
    private var scanned = 0 { didSet { refreshProgress() } }
    /// Why the request was refused, once the state is `failed`.
    private var failure: HTTPParseError?
    /// Where the head line being scanned began (0: the request line).
    private var lineStart = 0
    /// The request: its request line and fields while the head arrives (`hasRequestLine`), then
    /// complete (`hasCurrent`) until `takeRequest` moves it out and leaves an empty request,
    /// which the next request line is written into. One request, kept in place: asking an
    /// optional request whether it is nil, moving one out, and moving the complete head to a
    /// second request each copied the whole request (callgrind). A new head cannot begin before
    /// the complete one is taken, so one is enough.
    private var request = IncomingRequest()
    private var hasRequestLine = false
    private var hasCurrent = false
    private var body: [UInt8] = []
    /// The client's address, stamped on every request of the connection. Set here rather than
    /// by the server on each request it receives: changing a request it had been handed was a
    /// copy of the whole request (callgrind).
    private let peer: String
    /// Inside an intercepted `CONNECT` tunnel: its `host:port`, stamped on every request as the
    /// peer is (`IncomingRequest.tunnelAuthority`).
    private let tunnelAuthority: String?

    package init(limits: HTTPParserLimits = HTTPParserLimits(), peer: String = "", tunnelAuthority: String? = nil) {
        self.limits = limits
        self.peer = peer
        self.tunnelAuthority = tunnelAuthority
    }

    /// True while a request has begun (bytes of its head or body seen) but is not complete.
    ///
    /// This and `isReadingBody` are stored, kept by `refreshProgress`, not computed: the
    /// connection asks them after every read, and calling a getter on the parser it keeps in a
    /// class copied the whole parser each time (a retain and a release per field, seen in the
    /// c64 profile); a stored flag is read in place.
    package private(set) var isMidRequest = false

    /// True once a head is complete and its body is still arriving: the header timeout no
    /// longer applies, the idle timeout (no progress) does.
    package private(set) var isReadingBody = false

    private mutating func refreshProgress() {
        switch state {
        case .head: (isMidRequest, isReadingBody) = (scanned > 0, false)
        case .failed: (isMidRequest, isReadingBody) = (true, false)
        case .body, .chunkSize, .chunkData, .chunkDataEnd, .trailers: (isMidRequest, isReadingBody) = (true, true)
        }
    }

    package mutating func parse(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        switch state {
        case .failed:
            return (.failure(failure ?? .bad("the request was refused")), 0)
        case .head:
            // The next head would be written over the request not yet taken.
            precondition(!hasCurrent, "parse() after .request without takeRequest()")
            return parseHead(input)
        case .body(let remaining):
            let take = min(remaining, input.count)
            body.append(contentsOf: UnsafeBufferPointer(rebasing: input[0..<take]))
            if take == remaining { return (finish(), take) }
            state = .body(remaining: remaining - take)
            return (.needMore, take)
        case .chunkSize:
            return parseChunkSize(input)
        case .chunkData(let remaining):
            let take = min(remaining, input.count)
            body.append(contentsOf: UnsafeBufferPointer(rebasing: input[0..<take]))
            state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            return (.needMore, take)
        case .chunkDataEnd:
            guard input.count >= 2 else {
                if input.count == 1 && input[0] != ByteClass.cr { return fail(.bad("chunk data not followed by CRLF")) }
                return (.needMore, 0)
            }
            guard input[0] == ByteClass.cr, input[1] == ByteClass.lf else {
                return fail(.bad("chunk data not followed by CRLF"))
            }
            state = .chunkSize
            return (.needMore, 2)
        case .trailers(let seen):
            return parseTrailers(input, seen: seen)
        }
    }

    /// The request the last `.request` event announced, moved out. Once per event.
    package mutating func takeRequest() -> IncomingRequest {
        precondition(hasCurrent, "takeRequest() without a .request event")
        hasCurrent = false
        var taken = IncomingRequest()
        swap(&taken, &request)
        return taken
    }

    private mutating func fail(_ error: HTTPParseError) -> (event: Event, consumed: Int) {
        state = .failed
        failure = error
        request = IncomingRequest()
        hasRequestLine = false
        hasCurrent = false
        body = []
        return (.failure(error), 0)
    }

    private mutating func finish() -> Event {
        // The body and the peer go in where the request lies, for `takeRequest` to move out: a
        // local copy to change was an outlined copy of the whole request (callgrind).
        // A swap, not an assignment and `body = []`: the head's body is always still empty here,
        // so this leaves `body` empty without a retain and a release.
        guard hasCurrent else { return .needMore }
        swap(&request.body, &body)
        request.peer = peer
        if let tunnelAuthority { request.tunnelAuthority = tunnelAuthority }
        state = .head
        scanned = 0
        return .request
    }

    // MARK: head

    /// Scans the head once, byte by byte. Each line is parsed as soon as its CRLF arrives (the
    /// request line, then one field at a time), so an invalid line is refused at once instead of
    /// after the header timeout. The head's bytes stay unconsumed until the empty line, so the
    /// offsets kept between calls (`scanned`, `lineStart`) stay valid.
    private mutating func parseHead(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        // RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request line.
        if scanned == 0 {
            var skip = 0
            while skip + 1 < input.count, input[skip] == ByteClass.cr, input[skip + 1] == ByteClass.lf, skip < 8 {
                skip += 2
            }
            if skip > 0 { return (.needMore, skip) }
        }
        var i = scanned
        let requestLineLimit = limits.maxTargetBytes + 64
        while i < input.count {
            // Most bytes of a head are neither CR nor LF: they are skipped eight at a time, up to
            // where a per-byte check below could fire (a line over a limit; a bare CR, which the
            // byte after a CR is checked for), so each check still sees every byte it would have.
            // The head scan took about 20 instructions a byte before (callgrind).
            if i == 0 || input[i - 1] != ByteClass.cr {
                let limit = hasRequestLine ? limits.maxHeaderBytes : min(requestLineLimit + 1, limits.maxHeaderBytes)
                i = ByteClass.firstLineBreak(input, from: i, to: min(input.count, max(i, limit)))
                if i == input.count { break }
            }
            // Checked per byte, so the verdict on a long request line depends only on its bytes,
            // not on how they were split across reads (found by fuzzing: a bare CR beyond the
            // limit gave 400 when the line arrived whole and 414 when it arrived in pieces).
            if i > requestLineLimit, !hasRequestLine {
                return fail(HTTPParseError(.targetTooLong, "request line longer than the target limit"))
            }
            let b = input[i]
            if b == ByteClass.lf {
                guard i > 0, input[i - 1] == ByteClass.cr else { return fail(.bad("bare LF in request head")) }
                let lineEnd = i - 1
                if lineEnd == lineStart {
                    guard hasRequestLine else {
                        // An empty line before the request line whose CR and LF came in separate reads.
                        scanned = 0
                        lineStart = 0
                        return (.needMore, i + 1)
                    }
                    // The empty line: the head is complete.
                    return completeHead(input, length: i + 1)
                }
                do {
                    if !hasRequestLine {
                        if lineEnd > requestLineLimit {
                            return fail(HTTPParseError(.targetTooLong, "request line longer than the target limit"))
                        }
                        try RequestHeadParser.parseRequestLine(
                            input,
                            lineStart..<lineEnd,
                            limits: limits,
                            into: &request
                        )
                        // One allocation for the fields of a typical request, not one per doubling
                        // (eight: the array lives as long as the request, so not more).
                        request.headers.reserveCapacity(8)
                        hasRequestLine = true
                    } else {
                        try RequestHeadParser.addField(
                            input,
                            lineStart..<lineEnd,
                            to: &request,
                            limits: limits
                        )
                    }
                } catch {
                    return fail(error)
                }
                lineStart = i + 1
            } else if i > 0, input[i - 1] == ByteClass.cr {
                // RFC 9112 §2.2: a CR that does not start a CRLF makes the element invalid.
                return fail(.bad("bare CR in request head"))
            }
            i += 1
            if i > limits.maxHeaderBytes {
                return fail(
                    !hasRequestLine
                        ? HTTPParseError(.targetTooLong, "request line longer than the target limit")
                        : HTTPParseError(.headersTooLarge, "header section over \(limits.maxHeaderBytes) bytes")
                )
            }
        }
        if !hasRequestLine, input.count > requestLineLimit {
            return fail(HTTPParseError(.targetTooLong, "request line longer than the target limit"))
        }
        scanned = input.count
        return (.needMore, 0)
    }

    /// The head in `request` is complete: checked where it lies.
    private mutating func completeHead(
        _ input: UnsafeBufferPointer<UInt8>,
        length: Int
    ) -> (event: Event, consumed: Int) {
        let available = input.count - length
        let framing: BodyFraming
        let expectsContinue: Bool
        do {
            (framing, expectsContinue) = try RequestHeadParser.finishHead(&request, limits: limits)
        } catch {
            return fail(error)
        }
        // The head's bytes were not consumed until now, so they are all here, from the first.
        request.head = Array(UnsafeBufferPointer(rebasing: input[0..<length]))
        scanned = 0
        lineStart = 0
        hasCurrent = true
        hasRequestLine = false
        body = []
        switch framing {
        case .none, .length(0):
            return (finish(), length)
        case .length(let n):
            // Reserve what has arrived plus a little, never the announced size: a head may
            // announce gigabytes (up to --max-body) and send nothing, and reserving it up front
            // made the process allocate (and crash on) memory no byte had been sent for.
            body.reserveCapacity(min(n, max(available, 0) + Self.bodyReserveSlack))
            state = .body(remaining: n)
            if expectsContinue && available < n { return (.sendContinue, length) }
            return (.needMore, length)
        case .chunked:
            state = .chunkSize
            if expectsContinue && available == 0 { return (.sendContinue, length) }
            return (.needMore, length)
        }
    }

    // MARK: chunked (RFC 9112 §7.1)

    private static let maxChunkLine = 4096
    /// Bytes reserved beyond those already received for a Content-Length body; the array grows
    /// geometrically past it as the body arrives.
    static let bodyReserveSlack = 64 * 1024

    private mutating func parseChunkSize(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        guard let lf = firstLF(input, limit: Self.maxChunkLine) else {
            if input.count > Self.maxChunkLine { return fail(.bad("chunk size line too long")) }
            return (.needMore, 0)
        }
        guard lf > 0, input[lf - 1] == ByteClass.cr else { return fail(.bad("bare LF in chunk size line")) }
        let line = UnsafeBufferPointer(rebasing: input[0..<(lf - 1)])
        var i = 0
        var size = 0
        while i < line.count, let digit = ByteClass.hexValue(line[i]) {
            guard i < 15 else { return fail(.bad("chunk size too large")) }
            size = size * 16 + digit
            i += 1
        }
        guard i > 0 else { return fail(.bad("missing chunk size")) }
        guard Self.validChunkExtensions(UnsafeBufferPointer(rebasing: line[i...])) else {
            return fail(.bad("malformed chunk extension"))
        }
        if body.count + size > limits.maxBodyBytes {
            return fail(HTTPParseError(.bodyTooLarge, "chunked body over the \(limits.maxBodyBytes)-byte limit"))
        }
        state = size == 0 ? .trailers(bytesSeen: 0) : .chunkData(remaining: size)
        return (.needMore, lf + 1)
    }

    /// chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ( token / quoted-string ) ] )
    ///
    /// Whitespace is only allowed where the grammar's BWS is, that is before a ";" or "=" and
    /// after one: `5 \r\n` or `5;a \r\n` (trailing whitespace) is malformed.
    static func validChunkExtensions(_ ext: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func skipBWS(_ k: inout Int) {
            while k < ext.count, ext[k] == ByteClass.space || ext[k] == ByteClass.tab { k += 1 }
        }
        func token() -> Bool {
            let s = i
            while i < ext.count, ByteClass.token[Int(ext[i])] { i += 1 }
            return i > s
        }
        while i < ext.count {
            skipBWS(&i)
            guard i < ext.count, ext[i] == UInt8(ascii: ";") else { return false }
            i += 1
            skipBWS(&i)
            guard token() else { return false }
            var j = i
            skipBWS(&j)
            guard j < ext.count, ext[j] == UInt8(ascii: "=") else { continue }
            i = j + 1
            skipBWS(&i)
            if i < ext.count, ext[i] == UInt8(ascii: "\"") {
                i += 1
                var closed = false
                while i < ext.count {
                    let b = ext[i]
                    if b == UInt8(ascii: "\\") {
                        // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                        guard i + 1 < ext.count,
                            ext[i + 1] == ByteClass.tab || (ext[i + 1] >= 0x20 && ext[i + 1] != 0x7F)
                        else {
                            return false
                        }
                        i += 2
                        continue
                    }
                    if b == UInt8(ascii: "\"") {
                        closed = true
                        i += 1
                        break
                    }
                    guard b == ByteClass.tab || (b >= 0x20 && b != 0x7F) else { return false }
                    i += 1
                }
                guard closed else { return false }
            } else {
                guard token() else { return false }
            }
        }
        return true
    }

    private mutating func parseTrailers(_ input: UnsafeBufferPointer<UInt8>, seen: Int) -> (event: Event, consumed: Int)
    {
        // Trailer fields are validated like header fields, then dropped: RFC 9110 §6.5.1 forbids
        // merging them into the header section blindly, and no stub matches on them.
        var offset = 0
        while true {
            let rest = UnsafeBufferPointer(rebasing: input[offset...])
            guard let lf = firstLF(rest, limit: limits.maxHeaderBytes) else {
                if seen + input.count > limits.maxHeaderBytes {
                    return fail(HTTPParseError(.headersTooLarge, "trailer section too large"))
                }
                state = .trailers(bytesSeen: seen + offset)
                return (.needMore, offset)
            }
            // The size limit is checked before the line's content, as it is when the line has
            // not fully arrived, so the verdict does not depend on read splits (found by fuzzing).
            if seen + offset + lf + 1 > limits.maxHeaderBytes {
                return fail(HTTPParseError(.headersTooLarge, "trailer section too large"))
            }
            guard lf > 0, rest[lf - 1] == ByteClass.cr else { return fail(.bad("bare LF in trailer section")) }
            if lf == 1 { return (finish(), offset + 2) }
            do {
                _ = try RequestHeadParser.parseField(rest, 0..<(lf - 1))
            } catch {
                return fail(error)
            }
            offset += lf + 1
        }
    }

    private func firstLF(_ input: UnsafeBufferPointer<UInt8>, limit: Int) -> Int? {
        let end = min(input.count, limit + 2)
        var i = 0
        while i < end {
            if input[i] == ByteClass.lf { return i }
            i += 1
        }
        return nil
    }
}
