// libFuzzer target for ResponseParser, the proxy's reader of upstream responses. Not part of the
// package: scripts/fuzz compiles this file together with Sources/HTTP1/*.swift as one module
// (`swiftc -sanitize=fuzzer,address -parse-as-library -package-name ...`), so internal and
// package API is reachable without @testable.
//
// Each input is:
//   byte 0     which requests are HEAD (bit i for response i, cycled), the others GET;
//   byte 1     bit 0: the upstream closes after the last byte (endOfInput); bits 1-2 both set:
//              the first request is CONNECT;
//   bytes 2-3  read sizes for the split run;
//   the rest   the bytes the upstream sends.
// The stream is parsed whole, in input-chosen pieces, one byte at a time (up to 1 KiB), and
// whole with the default (large) limits. Every call is checked (never over-consumes, always
// progresses, failures sticky, events in message order, body ranges inside the consumed
// bytes), every head against a reference re-parse of the bytes consumed for it, and every body
// against a reference decoding of its framing: the body is exactly the framed bytes, and a
// chunked body is exactly the chunks' data, never a byte of a size line or trailer. All runs
// must report the same transcript. Then the request-head encoder gets input-chosen values.
// A violated invariant is a precondition failure, which libFuzzer reports and saves.

private let smallLimits = ResponseParserLimits(
    maxHeadBytes: 512,
    maxHeaderCount: 16,
    maxChunkLineBytes: 32,
    maxTrailerBytes: 128,
    maxInformational: 4
)
private let largeLimits = ResponseParserLimits()
private let CR: UInt8 = 13
private let LF: UInt8 = 10

private enum Record: Equatable {
    case informational(ResponseHead)
    case head(ResponseHead)
    case body([UInt8])
    case end
    case failure(ResponseParseError)
}

private struct Outcome {
    var records: [Record] = []
    var failure: ResponseParseError?
    var leftover = 0
    var midMessage = false
}

/// One exchange's bookkeeping in a run: the bytes consumed for the message so far and the
/// absolute stream positions of the body bytes it yielded.
private struct Message {
    var start = 0  // stream offset where the current head (or body section) began
    var head: ResponseHead?
    var method = "GET"
    var bodyPositions: [Range<Int>] = []
}

private func method(_ flags: (UInt8, UInt8), _ index: Int) -> String {
    if index == 0 && flags.1 & 6 == 6 { return "CONNECT" }
    return flags.0 >> UInt8(index % 8) & 1 == 1 ? "HEAD" : "GET"
}

private func run(_ stream: [UInt8], flags: (UInt8, UInt8), pieces: [Int], limits: ResponseParserLimits) -> Outcome {
    var out = Outcome()
    var parser = ResponseParser(limits: limits)
    let owed = 64
    for i in 0..<owed { parser.expectResponse(toMethod: method(flags, i)) }
    precondition(parser.pendingResponses == owed && !parser.isMidMessage, "fresh parser state")
    var pending: [UInt8] = []
    var consumedTotal = 0  // stream offset of pending[0]
    var offset = 0
    var pieceIndex = 0
    var finals = 0
    var message = Message(method: method(flags, 0))
    var zeroRun = 0

    func record(_ r: Record) {
        if case .body(let more) = r, case .body(let sofar) = out.records.last {
            out.records[out.records.count - 1] = .body(sofar + more)
        } else {
            out.records.append(r)
        }
    }

    feeding: while true {
        if offset < stream.count {
            let size = max(1, pieces.isEmpty ? stream.count : pieces[pieceIndex % pieces.count])
            pieceIndex += 1
            let end = min(stream.count, offset + size)
            pending += stream[offset..<end]
            offset = end
        }
        parsing: while true {
            let available = pending.count
            let (event, consumed) = pending.withUnsafeBufferPointer { parser.parse($0) }
            // Never over-consumes.
            precondition(consumed >= 0 && consumed <= available, "consumed \(consumed) of \(available)")
            let base = consumedTotal
            var eventBody: [UInt8] = []
            if case .body(let range) = event {
                precondition(
                    !range.isEmpty && range.lowerBound >= 0 && range.upperBound == consumed,
                    "body range \(range) for \(consumed) consumed"
                )
                eventBody = Array(pending[range])
                message.bodyPositions.append((base + range.lowerBound)..<(base + range.upperBound))
            }
            let span = Array(pending[0..<consumed])
            pending.removeFirst(consumed)
            consumedTotal += consumed
            // Always progresses: an event that consumed nothing is never followed by another.
            if consumed == 0, event != .needMore {
                zeroRun += 1
                precondition(zeroRun <= 1 || event.isFailure, "two events in a row without consuming")
            } else {
                zeroRun = 0
            }
            switch event {
            case .needMore:
                guard consumed == 0 else { continue parsing }
                let (again, againConsumed) = pending.withUnsafeBufferPointer { parser.parse($0) }
                precondition(
                    again == .needMore && againConsumed == 0,
                    "needMore/0 then \(again)/\(againConsumed) on the same bytes"
                )
                if pending.isEmpty {
                    let (empty, emptyConsumed) = [UInt8]().withUnsafeBufferPointer { parser.parse($0) }
                    precondition(empty == .needMore && emptyConsumed == 0, "an empty read gave \(empty)")
                } else {
                    precondition(parser.isMidMessage, "\(pending.count) bytes held but not mid-message")
                }
                break parsing
            case .informational(let head):
                precondition(message.head == nil, "a 1xx after the final head")
                precondition((100...199).contains(head.status) && head.status != 101, "informational \(head.status)")
                let bytes = Array(stream[message.start..<consumedTotal])
                precondition(bytes.suffix(span.count) == ArraySlice(span), "stream bookkeeping")
                checkHead(head, bytes: bytes, method: message.method, limits: limits)
                message.start = consumedTotal
                record(.informational(head))
            case .head(let head):
                precondition(message.head == nil, "two final heads for one message")
                precondition((200...599).contains(head.status), "final status \(head.status)")
                checkHead(
                    head,
                    bytes: Array(stream[message.start..<consumedTotal]),
                    method: message.method,
                    limits: limits
                )
                message.head = head
                message.start = consumedTotal
                message.bodyPositions = []
                finals += 1
                precondition(parser.pendingResponses == owed - finals, "a final head did not take its request")
                record(.head(head))
            case .body:
                guard let head = message.head else { preconditionFailure("body before a head") }
                precondition(head.framing != .none, "body for a bodiless response")
                record(.body(eventBody))
            case .end:
                guard let head = message.head else { preconditionFailure("end before a head") }
                checkBody(
                    head,
                    Array(stream[message.start..<consumedTotal]),
                    from: message.start,
                    positions: message.bodyPositions,
                    complete: true
                )
                precondition(!parser.isMidMessage, "mid-message right after end")
                message = Message(start: consumedTotal, method: method(flags, finals))
                record(.end)
            case .failure(let error):
                precondition(consumed == 0, "a failure consumed \(consumed) bytes")
                precondition(
                    !error.reason.isEmpty && error.kind != .noResponse && error.kind != .truncated,
                    "parse failed with \(error.kind)"
                )
                for probe in [Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8), [], pending] {
                    let (again, againConsumed) = probe.withUnsafeBufferPointer { parser.parse($0) }
                    precondition(again == .failure(error) && againConsumed == 0, "failure not sticky: \(again)")
                }
                out.failure = error
                record(.failure(error))
                break feeding
            }
        }
        if offset >= stream.count { break }
    }
    // A chunked body cut short (stall or failure) still never yielded framing bytes.
    if let head = message.head {
        checkBody(
            head,
            Array(stream[message.start..<consumedTotal]),
            from: message.start,
            positions: message.bodyPositions,
            complete: false
        )
    }
    out.leftover = pending.count
    out.midMessage = parser.isMidMessage
    if flags.1 & 1 == 1 {
        let wasMid = parser.isMidMessage
        let event = parser.endOfInput()
        switch event {
        case .end:
            guard let head = message.head, out.failure == nil else {
                preconditionFailure("end at close without a message")
            }
            checkBody(
                head,
                Array(stream[message.start..<consumedTotal]),
                from: message.start,
                positions: message.bodyPositions,
                complete: true
            )
            precondition(pending.isEmpty || head.framing != .untilClose, "bytes held at the end of an until-close body")
            record(.end)
        case .failure(let error):
            if let earlier = out.failure {
                precondition(error == earlier, "endOfInput changed the failure")
            } else {
                precondition(
                    error.kind == (wasMid || message.head != nil ? .truncated : .noResponse),
                    "close verdict \(error.kind)"
                )
                record(.failure(error))
            }
        case .needMore:
            precondition(
                finals == owed && !wasMid && out.failure == nil,
                "a clean close while \(owed - finals) responses are owed"
            )
        default:
            preconditionFailure("endOfInput gave \(event)")
        }
        let (after, afterConsumed) = [UInt8]().withUnsafeBufferPointer { parser.parse($0) }
        precondition(after.isFailure && afterConsumed == 0, "parsing after endOfInput gave \(after)")
    }
    return out
}

extension ResponseParser.Event {
    fileprivate var isFailure: Bool { if case .failure = self { true } else { false } }
}

// MARK: - reference checks

private func text(_ b: ArraySlice<UInt8>) -> String { String(decoding: b, as: UTF8.self) }
private func isOWS(_ b: UInt8) -> Bool { b == 32 || b == 9 }
private func trimmed(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var v = b
    while let f = v.first, isOWS(f) { v.removeFirst() }
    while let l = v.last, isOWS(l) { v.removeLast() }
    return v
}

/// The head re-read from the exact bytes the parser consumed for it, line by line (LF ends a
/// line, one CR before it is dropped), and compared field by field; then the framing decision
/// recomputed from the re-read fields.
private func checkHead(_ head: ResponseHead, bytes: [UInt8], method: String, limits: ResponseParserLimits) {
    precondition(bytes.count <= limits.maxHeadBytes, "a head of \(bytes.count) bytes")
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    for i in bytes.indices where bytes[i] == LF {
        var line = bytes[start..<i]
        if line.last == CR { line = line.dropLast() }
        precondition(!line.contains(CR) && !line.contains(0), "CR or NUL inside a consumed head line")
        lines.append(line)
        start = i + 1
    }
    precondition(start == bytes.count, "a head consumed without its final LF")
    while lines.first?.isEmpty == true { lines.removeFirst() }
    precondition(lines.count >= 2 && lines.last!.isEmpty, "no status line and empty line")
    let status = Array(lines[0])
    precondition(status.count >= 12 && status.starts(with: Array("HTTP/1.".utf8)), "status line")
    precondition(head.version.major == 1 && head.version.minor == (status[7] == UInt8(ascii: "0") ? 0 : 1), "version")
    precondition(Int(text(status[9..<12])) == head.status && (100...599).contains(head.status), "status code")
    precondition(head.reason == (status.count > 12 ? text(status[13...]) : ""), "reason phrase")
    var fields: [(String, String)] = []
    for line in lines.dropFirst().dropLast() {
        if isOWS(line.first!) {
            precondition(!fields.isEmpty, "a continuation line before any field")
            let more = trimmed(line)
            if !more.isEmpty {
                fields[fields.count - 1].1 += (fields[fields.count - 1].1.isEmpty ? "" : " ") + text(more)
            }
            continue
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
            preconditionFailure("a field line without a colon")
        }
        fields.append((text(line[..<colon]), text(trimmed(line[(colon + 1)...]))))
    }
    precondition(head.headers == HeaderFields(fields), "fields differ from their lines")
    precondition(head.headers.count <= limits.maxHeaderCount, "more fields than the limit")
    for field in head.headers {
        precondition(
            !field.name.isEmpty && field.name.utf8.allSatisfy { ByteClass.token[Int($0)] },
            "field name not a token"
        )
        precondition(
            !field.value.utf8.contains { ($0 < 0x20 && $0 != 9) || $0 == 0x7F },
            "control byte in a field value"
        )
        precondition(
            field.value.first != " " && field.value.last != " " && field.value.first != "\t"
                && field.value.last != "\t",
            "field value not trimmed"
        )
    }
    precondition(!head.reason.utf8.contains { ($0 < 0x20 && $0 != 9) || $0 == 0x7F }, "control byte in the reason")

    // The framing, recomputed (RFC 9112 §6.3).
    var length: Int?
    for value in head.headers.values("content-length") {
        for part in value.split(separator: ",", omittingEmptySubsequences: false) {
            let digits = part.trimmingOWS()
            precondition(
                !digits.isEmpty && digits.utf8.count <= 18 && digits.utf8.allSatisfy(ByteClass.isDigit),
                "accepted an invalid Content-Length"
            )
            precondition(length == nil || length == Int(digits), "accepted differing Content-Length values")
            length = Int(digits)
        }
    }
    let codings = head.headers.values("transfer-encoding").flatMap {
        $0.lowercased().split(separator: ",").map { $0.trimmingOWS() }
    }
    .filter { !$0.isEmpty }
    let hasTE = head.headers.contains("Transfer-Encoding")
    precondition(!hasTE || !codings.isEmpty, "accepted an empty Transfer-Encoding")
    precondition(codings.filter { $0 == "chunked" }.count <= 1, "accepted chunked twice")
    let expected: ResponseFraming
    if head.status < 200 || head.status == 204 || head.status == 304 || method == "HEAD" {
        expected = .none
    } else if hasTE {
        expected = codings.last == "chunked" ? .chunked : .untilClose
    } else if let length {
        expected = .length(length)
    } else {
        expected = .untilClose
    }
    precondition(!(method == "CONNECT" && (200...299).contains(head.status)), "a 2xx to CONNECT accepted")
    precondition(head.framing == expected, "framing \(head.framing), expected \(expected)")
    precondition(head.mustDropContentLength == (hasTE && length != nil), "mustDropContentLength")
    if head.framing == .untilClose || head.headers.hasToken("close", in: "Connection")
        || (head.version.minor == 0 && !head.headers.hasToken("keep-alive", in: "Connection"))
        || head.mustDropContentLength || (head.status == 204 && (hasTE || (length ?? 0) != 0))
    {
        precondition(!head.connectionReusable, "a connection that must close marked reusable")
    }
}

private func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
    var out: [Range<Int>] = []
    for r in ranges where !r.isEmpty {
        if let last = out.last, last.upperBound == r.lowerBound {
            out[out.count - 1] = last.lowerBound..<r.upperBound
        } else {
            out.append(r)
        }
    }
    return out
}

/// The body section (bytes consumed after the final head, up to `end` or the stall) against
/// the framing: the body positions yielded must be exactly the framed bytes, or exactly the
/// chunks' data as an independent dechunker finds it.
private func checkBody(_ head: ResponseHead, _ s: [UInt8], from base: Int, positions: [Range<Int>], complete: Bool) {
    let yielded = merged(positions)
    switch head.framing {
    case .none:
        precondition(s.isEmpty && yielded.isEmpty, "bytes consumed for a bodiless response")
    case .length(let n):
        precondition(complete ? s.count == n : s.count <= n, "\(s.count) body bytes for Content-Length \(n)")
        precondition(yielded == merged([base..<(base + s.count)]), "length body differs from the framed bytes")
    case .untilClose:
        precondition(yielded == merged([base..<(base + s.count)]), "until-close body differs from the bytes")
    case .chunked:
        let data = dechunk(s, complete: complete).map { ($0.lowerBound + base)..<($0.upperBound + base) }
        precondition(yielded == merged(data), "chunked body differs from the chunks' data")
    }
}

/// Reference chunked decoding of bytes the parser consumed: the data ranges. When `complete`,
/// the bytes must be exactly one whole chunked body, trailers included.
private func dechunk(_ s: [UInt8], complete: Bool) -> [Range<Int>] {
    var i = 0
    var data: [Range<Int>] = []
    func lineEnd(_ from: Int) -> Int? {
        var j = from
        while j < s.count, s[j] != LF { j += 1 }
        return j < s.count ? j : nil
    }
    while true {
        guard let lf = lineEnd(i) else {
            precondition(!complete, "chunked body ends mid size line")
            return data
        }
        precondition(lf > i && s[lf - 1] == CR, "chunk-size line accepted without CRLF")
        var size = 0
        var digits = 0
        while i < lf, let h = ByteClass.hexValue(s[i]) {
            if digits > 0 || h != 0 { digits += 1 }
            precondition(digits <= 15, "chunk size over 15 hex digits accepted")
            size = size * 16 + h
            i += 1
        }
        i = lf + 1
        if size == 0 { break }
        let end = min(i + size, s.count)
        if end > i { data.append(i..<end) }
        guard i + size + 2 <= s.count else {
            precondition(!complete, "chunked body ends mid chunk")
            return data
        }
        i += size
        precondition(s[i] == CR && s[i + 1] == LF, "chunk data accepted without CRLF after it")
        i += 2
    }
    while true {
        guard let lf = lineEnd(i) else {
            precondition(!complete, "chunked body ends mid trailers")
            return data
        }
        let empty = lf == i || (lf == i + 1 && s[i] == CR)
        i = lf + 1
        if empty { break }
    }
    precondition(complete && i == s.count, "bytes past the trailer section consumed with the body")
    return data
}

// MARK: - the request-head encoder

private func fuzzEncoder(_ input: [UInt8]) {
    let value = String(String.UnicodeScalarView(input.prefix(64).map { Unicode.Scalar($0) }))
    let unsafe = value.utf8.contains { !ByteClass.fieldValue[Int($0)] }
    let headers = HeaderFields([("Host", "h"), ("X-Fuzz", value)])
    do {
        _ = try RequestHeadEncoder().encode(method: "GET", target: "/", headers: headers)
        precondition(!unsafe, "an unsafe value was encoded")
    } catch {
        precondition(unsafe, "a safe value was refused: \(error)")
    }
    guard
        let head = try? RequestHeadEncoder(unsafeValues: .replaceWithSpace).encode(
            method: "GET",
            target: "/",
            headers: headers
        )
    else {
        preconditionFailure("replaceWithSpace refused a value")
    }
    precondition(
        !head.contains(0) && head.filter { $0 == LF }.count == 4 && head.filter { $0 == CR }.count == 4,
        "lines of the head"
    )
    for i in head.indices where head[i] == LF { precondition(head[i - 1] == CR, "bare LF in an encoded head") }
}

// MARK: - entry point

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let flags = (input.first ?? 0, input.count > 1 ? input[1] : 0)
    let splits = input.dropFirst(2).prefix(2).map { Int($0 % 29) + 1 }
    let stream = Array(input.dropFirst(4))

    let whole = run(stream, flags: flags, pieces: [], limits: smallLimits)
    var others = [
        ("split \(splits)", run(stream, flags: flags, pieces: splits.isEmpty ? [1] : splits, limits: smallLimits))
    ]
    if stream.count <= 1024 {
        others.append(("byte at a time", run(stream, flags: flags, pieces: [1], limits: smallLimits)))
    }
    for (name, other) in others {
        precondition(other.records == whole.records, "\(name) changed the transcript")
        if whole.failure == nil {
            precondition(
                other.leftover == whole.leftover && other.midMessage == whole.midMessage,
                "\(name) ends in another state"
            )
        }
    }
    // Larger limits change nothing unless a limit was what stopped the small ones.
    if whole.failure?.kind != .tooLarge {
        let large = run(stream, flags: flags, pieces: [], limits: largeLimits)
        precondition(large.records == whole.records, "larger limits changed the transcript")
    }
    fuzzEncoder(input)
    return 0
}
