/// An incremental HTTP/1.1 response parser for the proxy's upstream connections: a value-type
/// state machine with no I/O, called like `RequestParser`.
///
/// The caller owns the bytes. It passes everything not yet consumed, gets back one event and
/// how many leading bytes were consumed, drops those and calls again (with more data appended
/// when the event was `needMore`). Before each request it sends upstream it calls
/// `expectResponse(toMethod:)`, because a response to HEAD has no body whatever its fields say;
/// requests may be pipelined, the methods are answered in order. When the upstream closes, it
/// calls `endOfInput()`, which completes a read-until-close body or reports a truncation.
///
/// Per message the events are: any number of `informational` (1xx), one `head`, any number of
/// `body` pieces, one `end`. Body bytes are never accumulated: each `body` event names a range
/// of the buffer just passed, inside the consumed prefix, so the proxy copies them at most once
/// (into its write to the client, or through a chunk encoder) before dropping them. A chunked
/// body yields only the chunks' data, never size lines, extensions or trailers.
///
/// Head bytes are not consumed until the head is complete, but are scanned once: `scanned`
/// remembers how far the last call looked, so an upstream dribbling a byte at a time costs
/// linear, not quadratic, work. Every limit is checked at a byte position, so a verdict never
/// depends on how the bytes were split across reads.
package struct ResponseParser: Sendable {
    package enum Event: Sendable, Equatable {
        /// Nothing complete yet: call again with more bytes.
        case needMore
        /// A 1xx other than 101 (100 Continue, 103 Early Hints): the final response follows.
        case informational(ResponseHead)
        /// The final response's head. `body` pieces (if its framing has a body) and `end` follow;
        /// after a `101` to a request that offered an upgrade, nothing does: the bytes after the
        /// head are the new protocol's.
        case head(ResponseHead)
        /// Body bytes: `input[range]` of the buffer passed to this very call. The range lies
        /// inside the consumed prefix, so the bytes are valid until the caller drops them.
        case body(Range<Int>)
        /// The message is complete. On a reusable connection the next response may follow.
        case end
        /// The response cannot be relayed; sticky: every later call returns the same failure.
        case failure(ResponseParseError)
    }

    private enum State: Sendable {
        case head
        /// The head of a bodiless response went out: `end` is next.
        case noBody
        case length(remaining: Int)
        case untilClose
        case chunkLine
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(ResponseParseError)
    }

    package let limits: ResponseParserLimits
    private var state: State = .head
    /// The requests still owed a final response, oldest first.
    private var expected: [ExpectedResponse] = []
    /// How far the line being scanned (head, chunk line or trailer line) has been looked at.
    private var scanned = 0
    /// Where the head line being scanned began.
    private var lineStart = 0
    /// Empty lines before the status line, consumed but counted against `maxHeadBytes`.
    private var skipped = 0
    private var statusLine: StatusLine?
    private var headers = HeaderFields()
    /// The last field line, kept back until the next line shows it is not continued (obs-fold).
    private var pendingField: (name: String, value: String)?
    private var informational = 0
    /// The request being answered asked for an upgrade: a 101 is its final response.
    private var upgradeOffered = false
    private var trailerBytes = 0
    private var trailerFieldSeen = false

    package init(limits: ResponseParserLimits = ResponseParserLimits()) {
        self.limits = limits
    }

    /// Announces a request just sent: its response is the next final response after the ones
    /// already expected. `method` as sent (case-sensitive, RFC 9110 §9.1). `upgrading`: the
    /// request asked for another protocol (a WebSocket), so a `101` answers it: a final head,
    /// after which the bytes are the new protocol's and the parser is done.
    package mutating func expectResponse(toMethod method: String, upgrading: Bool = false) {
        expected.append(ExpectedResponse(method: method))
        upgradeOffered = upgrading
    }

    /// Final responses still owed for the requests announced.
    package var pendingResponses: Int { expected.count }

    /// True while a response has begun (any byte of it seen) and has not ended.
    package var isMidMessage: Bool {
        if case .head = state { return scanned > 0 || skipped > 0 || statusLine != nil || informational > 0 }
        return true
    }

    package mutating func parse(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        switch state {
        case .failed(let error):
            return (.failure(error), 0)
        case .head:
            return parseHead(input)
        case .noBody, .length(remaining: 0):
            reset()
            return (.end, 0)
        case .length(let remaining):
            let take = min(remaining, input.count)
            guard take > 0 else { return (.needMore, 0) }
            state = .length(remaining: remaining - take)
            return (.body(0..<take), take)
        case .untilClose:
            guard input.count > 0 else { return (.needMore, 0) }
            return (.body(0..<input.count), input.count)
        case .chunkLine, .chunkData, .chunkDataEnd, .trailers:
            return parseChunked(input)
        }
    }

    /// The upstream closed (FIN). Completes a read-until-close body with `end`; anything else in
    /// progress is a failure: `truncated` mid-head or mid-body (a length or chunked body that
    /// stops early must never pass for complete), `noResponse` when a response was owed and no
    /// byte of it came. `needMore` means nothing was in progress or owed: a clean close. The
    /// parser is spent afterwards: later calls fail.
    package mutating func endOfInput() -> Event {
        let event: Event
        switch state {
        case .failed(let error):
            return .failure(error)
        case .untilClose, .noBody, .length(remaining: 0):
            reset()
            event = .end
        case .head:
            if isMidMessage {
                event = .failure(ResponseParseError(.truncated, "upstream closed mid-head"))
            } else if !expected.isEmpty {
                event = .failure(ResponseParseError(.noResponse, "upstream closed without responding"))
            } else {
                event = .needMore
            }
        case .length, .chunkLine, .chunkData, .chunkDataEnd, .trailers:
            event = .failure(ResponseParseError(.truncated, "upstream closed mid-body"))
        }
        if case .failure(let error) = event {
            state = .failed(error)
        } else {
            state = .failed(ResponseParseError(.truncated, "input after the upstream closed"))
        }
        return event
    }

    private mutating func fail(_ error: ResponseParseError) -> (event: Event, consumed: Int) {
        state = .failed(error)
        headers = HeaderFields()
        pendingField = nil
        return (.failure(error), 0)
    }

    /// Back to waiting for a status line, after a complete message or an informational head.
    private mutating func reset() {
        state = .head
        scanned = 0
        lineStart = 0
        skipped = 0
        statusLine = nil
        headers = HeaderFields()
        pendingField = nil
    }

    // MARK: head (RFC 9112 §2.2, §4, §5)

    private mutating func parseHead(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        var i = scanned
        while i < input.count {
            // Before looking at the byte, so the verdict depends on its position only.
            if skipped + i >= limits.maxHeadBytes {
                return fail(.tooLarge("response head over \(limits.maxHeadBytes) bytes"))
            }
            let b = input[i]
            if b == ByteClass.lf {
                // RFC 9112 §2.2: a recipient MAY take a bare LF as the line terminator and
                // ignore a preceding CR. Safe here: our framing, not the upstream's, goes on.
                let end = i > lineStart && input[i - 1] == ByteClass.cr ? i - 1 : i
                if end == lineStart {
                    guard statusLine != nil else {
                        // An empty line before the status line: skipped, as a server does before
                        // a request line (§2.2). Stray CRLFs after a body are a common upstream
                        // bug, and reading past them is unambiguous.
                        skipped += i + 1
                        scanned = 0
                        lineStart = 0
                        return (.needMore, i + 1)
                    }
                    return completeHead(length: i + 1)
                }
                do {
                    try headLine(input, lineStart..<end)
                } catch {
                    return fail(error)
                }
                lineStart = i + 1
            } else if i > lineStart, input[i - 1] == ByteClass.cr {
                // §2.2: a bare CR makes the element invalid; refused as soon as the next byte shows it.
                return fail(.malformed("bare CR in response head"))
            }
            i += 1
        }
        scanned = i
        return (.needMore, 0)
    }

    /// One complete head line, terminator excluded: the status line, a field, or a continuation.
    private mutating func headLine(_ input: UnsafeBufferPointer<UInt8>, _ line: Range<Int>) throws(ResponseParseError) {
        guard statusLine != nil else {
            statusLine = try ResponseHeadParser.parseStatusLine(input, line)
            headers.reserveCapacity(12)  // one allocation for a typical head, not one per doubling
            // A response with no request outstanding would be taken for the next request's:
            // response queue poisoning. Nothing may arrive unasked.
            guard !expected.isEmpty else { throw .malformed("a response with no request outstanding") }
            return
        }
        let first = input[line.lowerBound]
        if first == ByteClass.space || first == ByteClass.tab {
            // §2.2: whitespace before the first field MUST be refused or ignored; refused.
            guard var field = pendingField else { throw .malformed("whitespace before the first header field") }
            pendingField = nil  // the value is then uniquely referenced and grows in place
            try ResponseHeadParser.unfold(&field.value, input, line)
            pendingField = field
            return
        }
        if let field = pendingField { headers.add(field.name, field.value) }
        pendingField = nil
        guard headers.count < limits.maxHeaderCount else {
            throw .tooLarge("more than \(limits.maxHeaderCount) header fields")
        }
        do {
            pendingField = try RequestHeadParser.parseField(input, line)
        } catch {
            throw .malformed(error.reason)
        }
    }

    private mutating func completeHead(length: Int) -> (event: Event, consumed: Int) {
        if let field = pendingField { headers.add(field.name, field.value) }
        pendingField = nil
        guard let line = statusLine, let request = expected.first else { return fail(.malformed("no status line")) }
        let head: ResponseHead
        do {
            head = try ResponseHeadParser.finish(line, headers: headers, answering: request)
        } catch {
            return fail(error)
        }
        if line.status < 200 {
            // RFC 9110 §15.2.2: 101 switches the connection to the protocol in Upgrade. Unless
            // the request offered an upgrade, the proxy stripped Upgrade (hop-by-hop), so an
            // upstream MUST NOT send it (§7.8), and the bytes after it would not be HTTP:
            // refused, and the connection is dropped.
            if line.status == 101 {
                guard upgradeOffered, expected.count == 1 else {
                    return fail(.malformed("101 Switching Protocols to a request that asked for no upgrade"))
                }
                expected.removeFirst()
                upgradeOffered = false
                reset()
                state = .failed(ResponseParseError(.malformed, "the connection switched protocols"))
                return (.head(head), length)
            }
            informational += 1
            guard informational <= limits.maxInformational else {
                return fail(.tooLarge("more than \(limits.maxInformational) informational responses"))
            }
            reset()
            return (.informational(head), length)
        }
        expected.removeFirst()
        upgradeOffered = false
        informational = 0
        reset()
        switch head.framing {
        case .none: state = .noBody
        case .length(let n): state = .length(remaining: n)
        case .chunked: state = .chunkLine
        case .untilClose: state = .untilClose
        }
        return (.head(head), length)
    }

    // MARK: chunked (RFC 9112 §7.1)

    /// Runs through framing lines within one call and returns at the first event: a piece of
    /// chunk data, the end, a failure, or `needMore` with the framing bytes consumed so far.
    private mutating func parseChunked(_ input: UnsafeBufferPointer<UInt8>) -> (event: Event, consumed: Int) {
        var offset = 0
        while true {
            switch state {
            case .chunkLine:
                var i = offset + scanned
                while i < input.count, input[i] != ByteClass.lf {
                    // The CR may sit at maxChunkLineBytes and the LF just after it, no further.
                    if i - offset > limits.maxChunkLineBytes {
                        return fail(.tooLarge("chunk-size line over \(limits.maxChunkLineBytes) bytes"))
                    }
                    i += 1
                }
                guard i < input.count else {
                    scanned = i - offset
                    return (.needMore, offset)
                }
                // Strict CRLF: §2.2's bare-LF allowance covers the start-line and fields, and
                // chunk framing is where two parsers disagreeing splits one message in two.
                guard i > offset, input[i - 1] == ByteClass.cr else {
                    return fail(.malformed("chunk-size line not ended by CRLF"))
                }
                var j = offset
                var size = 0
                var significant = 0
                while j < i - 1, let digit = ByteClass.hexValue(input[j]) {
                    // Leading zeros are valid 1*HEXDIG and cost nothing; 15 significant hex
                    // digits (2^60) can never overflow.
                    if significant > 0 || digit != 0 { significant += 1 }
                    guard significant <= 15 else { return fail(.malformed("chunk size too large")) }
                    size = size << 4 | digit
                    j += 1
                }
                guard j > offset else { return fail(.malformed("missing chunk size")) }
                guard RequestParser.validChunkExtensions(UnsafeBufferPointer(rebasing: input[j..<(i - 1)])) else {
                    return fail(.malformed("malformed chunk extension"))
                }
                offset = i + 1
                scanned = 0
                if size == 0 {
                    trailerBytes = 0
                    trailerFieldSeen = false
                    state = .trailers
                } else {
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let take = min(remaining, input.count - offset)
                guard take > 0 else { return (.needMore, offset) }
                state = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
                return (.body(offset..<(offset + take)), offset + take)
            case .chunkDataEnd:
                let available = input.count - offset
                if available >= 1 && input[offset] != ByteClass.cr
                    || available >= 2 && input[offset + 1] != ByteClass.lf
                {
                    return fail(.malformed("chunk data not followed by CRLF"))
                }
                guard available >= 2 else { return (.needMore, offset) }
                offset += 2
                state = .chunkLine
            case .trailers:
                var i = offset + scanned
                while i < input.count {
                    if trailerBytes + i - offset >= limits.maxTrailerBytes {
                        return fail(.tooLarge("trailer section over \(limits.maxTrailerBytes) bytes"))
                    }
                    if input[i] == ByteClass.lf { break }
                    i += 1
                }
                guard i < input.count else {
                    scanned = i - offset
                    return (.needMore, offset)
                }
                // Trailer fields are fields: a bare LF ends a line here too (§2.2).
                let end = i > offset && input[i - 1] == ByteClass.cr ? i - 1 : i
                if end == offset {
                    reset()
                    return (.end, i + 1)
                }
                // Validated like header fields (obs-fold included), then dropped: RFC 9110
                // §6.5.1 forbids merging them into the header section the client already has.
                do {
                    try trailerLine(input, offset..<end)
                } catch {
                    return fail(error)
                }
                trailerBytes += i + 1 - offset
                offset = i + 1
                scanned = 0
            default:
                return (.needMore, offset)
            }
        }
    }

    private mutating func trailerLine(
        _ input: UnsafeBufferPointer<UInt8>,
        _ line: Range<Int>
    ) throws(ResponseParseError) {
        let first = input[line.lowerBound]
        if first == ByteClass.space || first == ByteClass.tab {
            guard trailerFieldSeen else { throw .malformed("whitespace before the first trailer field") }
            var ignored = ""
            try ResponseHeadParser.unfold(&ignored, input, line)
            return
        }
        do {
            _ = try RequestHeadParser.parseField(input, line)
        } catch {
            throw .malformed(error.reason)
        }
        trailerFieldSeen = true
    }
}
