// libFuzzer target for the HTTP/1.1 module. Not part of the package (SwiftPM ignores this folder):
// scripts/fuzz compiles this file together with Sources/HTTP1/*.swift as one module, using
// `swiftc -sanitize=fuzzer,address -parse-as-library`, so the module's internal helpers
// (RequestTarget, Authority, PercentDecoding) are reachable without @testable.
//
// Each input is:
//  1. parsed as a stream of pipelined requests four ways: whole, split at input-chosen points,
//     one byte at a time (inputs up to 512 bytes), and whole with the default (large) limits;
//     every parse call and every request is checked against invariants, and each request is
//     checked against the exact bytes the parser consumed for it (a small reference decoder),
//     and the head it keeps is read again and must give the same request;
//  2. run through the target helpers (dot-segment removal, percent-decoding, query parsing,
//     request-target and authority syntax, CONNECT's authority-form as a forward proxy takes it),
//     each compared with a reference or a law;
//  3. turned into a date (DateFormats.imfFixdate) and a response (PreparedResponse, with arbitrary header
//     values), whose serialised head must be well-formed line by line.
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.
//
// The decoded path never holds a `.` or `..` segment, percent-encoded dots included (a finding
// of this target, fixed in RequestTarget.decodedPath).

// MARK: - stream parsing

/// Small limits, so the 413/414/431 paths are reachable with short inputs.
private let smallLimits = HTTPParserLimits(
    maxHeaderBytes: 1024,
    maxTargetBytes: 256,
    maxBodyBytes: 2048,
    maxHeaderCount: 32
)
private let largeLimits = HTTPParserLimits()

private struct Outcome {
    var requests: [IncomingRequest] = []
    var failure: HTTPParseError?
    var continues = 0
    var leftover = 0
    var midRequestAtEnd = false
}

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
private let CR: UInt8 = 13
private let LF: UInt8 = 10

/// Feeds `input` to a fresh parser in pieces of the given sizes (cycled; empty: all at once), the
/// way a connection does: unconsumed bytes are kept and passed again with the next piece.
/// Parsing loops over pipelined requests until the parser fails or stalls on `needMore`.
private func run(_ input: [UInt8], pieces: [Int], limits: HTTPParserLimits) -> Outcome {
    var out = Outcome()
    var parser = RequestParser(limits: limits)
    var pending: [UInt8] = []
    var span: [UInt8] = []  // bytes consumed since the previous request ended
    var continuesForCurrent = 0
    var offset = 0
    var pieceIndex = 0
    precondition(!parser.isMidRequest, "a fresh parser is mid-request")
    feeding: while true {
        if offset < input.count {
            let size = max(1, pieces.isEmpty ? input.count : pieces[pieceIndex % pieces.count])
            pieceIndex += 1
            let end = min(input.count, offset + size)
            pending += input[offset..<end]
            offset = end
        }
        parsing: while true {
            let available = pending.count
            let (event, consumed) = pending.withUnsafeBufferPointer { parser.parse($0) }
            // Never consumes more than it was given.
            precondition(consumed >= 0 && consumed <= available, "consumed \(consumed) of \(available)")
            span += pending[0..<consumed]
            pending.removeFirst(consumed)
            switch event {
            case .needMore:
                guard consumed == 0 else { continue parsing }
                // A stall is stable: the same bytes again change nothing.
                let (again, consumedAgain) = pending.withUnsafeBufferPointer { parser.parse($0) }
                guard case .needMore = again, consumedAgain == 0 else {
                    preconditionFailure("needMore/0 then \(again)/\(consumedAgain) on the same bytes")
                }
                if pending.isEmpty {
                    let (empty, consumedEmpty) = [UInt8]().withUnsafeBufferPointer { parser.parse($0) }
                    guard case .needMore = empty, consumedEmpty == 0 else {
                        preconditionFailure("an empty read gave \(empty)/\(consumedEmpty)")
                    }
                } else {
                    // Bytes held back means a request has begun (the server's 408-versus-close choice).
                    precondition(parser.isMidRequest, "\(pending.count) bytes held but not mid-request")
                }
                break parsing
            case .sendContinue:
                // Progress: every event other than needMore/failure consumes something.
                precondition(consumed > 0, "sendContinue without consuming the head")
                continuesForCurrent += 1
                out.continues += 1
                precondition(continuesForCurrent == 1, "two sendContinue events for one request")
            case .request:
                let request = parser.takeRequest()
                precondition(consumed > 0, "a request without consuming bytes")
                check(request, limits: limits)
                checkAgainstBytes(request, span)
                if continuesForCurrent > 0 {
                    precondition(
                        request.version.minor >= 1 && request.headers.hasToken("100-continue", in: "Expect"),
                        "sendContinue for a request without Expect: 100-continue (or in HTTP/1.0)"
                    )
                    precondition(
                        request.headers.contains("Transfer-Encoding") || request.headers["Content-Length"] != "0",
                        "sendContinue for a request without a body"
                    )
                }
                precondition(!parser.isMidRequest, "mid-request right after a complete request")
                out.requests.append(request)
                span = []
                continuesForCurrent = 0
            case .failure(let error):
                precondition(consumed == 0, "a failure consumed \(consumed) bytes")
                precondition(
                    [400, 413, 414, 431, 501, 505].contains(error.status),
                    "unexpected status \(error.status)"
                )
                // A failure is sticky: whatever comes next, the same failure, nothing consumed.
                for probe in [bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), [], pending] {
                    let (again, consumedAgain) = probe.withUnsafeBufferPointer { parser.parse($0) }
                    guard case .failure(let same) = again, same == error, consumedAgain == 0 else {
                        preconditionFailure("failure not sticky: \(error) then \(again)/\(consumedAgain)")
                    }
                }
                precondition(parser.isMidRequest, "failed parser reports not mid-request")
                out.failure = error
                break feeding
            }
        }
        if offset >= input.count { break }
    }
    out.leftover = pending.count
    out.midRequestAtEnd = parser.isMidRequest
    return out
}

/// What every request the parser hands out must satisfy on its own.
private func check(_ request: IncomingRequest, limits: HTTPParserLimits) {
    let method = bytes(request.method)
    precondition(!method.isEmpty && method.allSatisfy { ByteClass.token[Int($0)] }, "method is not a token")
    precondition(request.method != "CONNECT", "CONNECT accepted")
    precondition(
        request.version.major == 1 && (request.version.minor == 0 || request.version.minor == 1),
        "version \(request.version)"
    )
    let target = bytes(request.target)
    precondition(!target.isEmpty && target.count <= limits.maxTargetBytes, "target length \(target.count)")
    precondition(target.allSatisfy { ByteClass.target[Int($0)] }, "target byte outside the allowed set")
    precondition(request.body.count <= limits.maxBodyBytes, "body over the limit")
    precondition(request.headers.count <= limits.maxHeaderCount, "more fields than the limit")

    if request.target == "*" {
        precondition(request.method == "OPTIONS" && request.path == "*", "asterisk-form for \(request.method)")
    } else {
        precondition(request.path.hasPrefix("/"), "path \(request.path) does not start with /")
        // Dot segments are removed: no "." or ".." segment may be left in the decoded path.
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        if segments.contains(where: { $0 == "." || $0 == ".." }) {
            preconditionFailure("dot segment left in \(request.path) (target \(request.target))")
        }
        // The query is what follows the first "?", and only a query yields query items.
        let q = target.firstIndex(of: UInt8(ascii: "?"))
        precondition(
            (q == nil) == (request.rawQuery == nil),
            "rawQuery \(String(describing: request.rawQuery)) for \(request.target)"
        )
        if let q {
            precondition(bytes(request.rawQuery!) == Array(target[(q + 1)...]), "rawQuery differs from the target's")
        }
        if request.rawQuery == nil { precondition(request.queryItems.isEmpty, "query items without a query") }
    }

    let hosts = request.headers.values("Host")
    precondition(hosts.count <= 1, "more than one Host")
    precondition(request.version.minor == 0 || hosts.count == 1, "HTTP/1.1 without Host")
    if request.authority == nil { precondition(hosts.first.map(\.isEmpty) ?? true, "Host given but no authority") }
    if !request.target.hasPrefix("/"), request.target != "*" {
        precondition(request.authority != nil, "absolute-form without authority")
    } else if let host = hosts.first, !host.isEmpty {
        precondition(
            request.authority == host,
            "authority \(String(describing: request.authority)) is not Host \(host)"
        )
    }
    _ = request.hostWithoutPort
    _ = request.wantsKeepAlive

    let te = request.headers.contains("Transfer-Encoding")
    let cl = request.headers.values("Content-Length")
    precondition(!(te && !cl.isEmpty), "both Transfer-Encoding and Content-Length")
    precondition(cl.count <= 1, "repeated Content-Length")
    if te { precondition(request.version.minor == 1, "Transfer-Encoding in HTTP/1.0") }
    if let length = cl.first {
        precondition(Int(length) == request.body.count, "body \(request.body.count) bytes, Content-Length \(length)")
    } else if !te {
        precondition(request.body.isEmpty, "a body without framing")
    }
    for field in request.headers {
        let name = bytes(field.name)
        precondition(!name.isEmpty && name.allSatisfy { ByteClass.token[Int($0)] }, "field name is not a token")
        precondition(!field.value.utf8.contains { $0 < 0x20 && $0 != 9 || $0 == 0x7F }, "control byte in a field value")
        precondition(
            field.value.first != " " && field.value.first != "\t" && field.value.last != " "
                && field.value.last != "\t",
            "field value not trimmed"
        )
    }
}

/// The request against the exact bytes consumed for it: request line, one field per line, and
/// a body that is exactly the framed bytes (Content-Length) or the chunks' data (chunked).
private func checkAgainstBytes(_ request: IncomingRequest, _ span: [UInt8]) {
    var i = 0
    while i + 1 < span.count, span[i] == CR, span[i + 1] == LF { i += 2 }  // ignored empty lines
    var lines: [Range<Int>] = []
    var start = i
    var headEnd = -1
    while i < span.count {
        if span[i] == LF {
            precondition(i > start && span[i - 1] == CR, "bare LF in a consumed head")
            let line = start..<(i - 1)
            start = i + 1
            if line.isEmpty {
                headEnd = i + 1
                break
            }
            lines.append(line)
        }
        i += 1
    }
    precondition(headEnd > 0 && !lines.isEmpty, "no complete head in the consumed bytes")
    let requestLine = Array(span[lines[0]])
    let expected = bytes("\(request.method) \(request.target) HTTP/1.")
    precondition(requestLine.count == expected.count + 1 && requestLine.starts(with: expected), "request line differs")
    precondition(
        lines.count - 1 == request.headers.count,
        "\(lines.count - 1) field lines, \(request.headers.count) fields"
    )
    for (line, field) in zip(lines.dropFirst(), request.headers) {
        let raw = Array(span[line])
        precondition(raw.starts(with: bytes(field.name) + [UInt8(ascii: ":")]), "field name differs from its line")
        var v = Array(raw[(field.name.utf8.count + 1)...])[...]
        while let f = v.first, f == 32 || f == 9 { v.removeFirst() }
        while let l = v.last, l == 32 || l == 9 { v.removeLast() }
        precondition(String(decoding: v, as: UTF8.self) == field.value, "field value differs from its line")
    }
    // The head it keeps is those bytes, the empty lines before it left out, and reading them
    // again (what the journal does) gives the same request.
    let headStart = lines[0].lowerBound
    precondition(request.head == Array(span[headStart..<headEnd]), "the kept head differs from the consumed bytes")
    guard let again = try? IncomingRequest(readingHead: request.head) else {
        preconditionFailure("the kept head does not parse again")
    }
    precondition(
        again.method == request.method && again.target == request.target && again.path == request.path
            && again.rawQuery == request.rawQuery && again.queryItems == request.queryItems
            && again.version == request.version && again.headers == request.headers
            && again.authority == request.authority,
        "the kept head, read again, gives another request"
    )
    let section = Array(span[headEnd...])
    if request.headers.contains("Transfer-Encoding") {
        precondition(dechunk(section) == request.body, "chunked body differs from the chunks' data")
    } else {
        precondition(section == request.body, "body differs from the \(section.count) framed bytes")
    }
}

/// Reference chunked decoding of bytes the parser already accepted; the whole section must be
/// used, trailers included.
private func dechunk(_ s: [UInt8]) -> [UInt8] {
    var i = 0
    var data: [UInt8] = []
    func lineEnd(_ from: Int) -> Int {
        var j = from
        while j < s.count, s[j] != LF { j += 1 }
        precondition(j < s.count && j > from && s[j - 1] == CR, "chunk framing line not CRLF-terminated")
        return j
    }
    while true {
        var size = 0
        var digits = 0
        while i < s.count, let h = ByteClass.hexValue(s[i]) {
            size = size * 16 + h
            i += 1
            digits += 1
        }
        precondition(digits > 0 && digits <= 15, "chunk size with \(digits) digits")
        i = lineEnd(i) + 1
        if size == 0 { break }
        precondition(i + size + 2 <= s.count, "chunk data runs past the request")
        data += s[i..<(i + size)]
        i += size
        precondition(s[i] == CR && s[i + 1] == LF, "chunk data not followed by CRLF")
        i += 2
    }
    while true {
        let end = lineEnd(i)
        let empty = end == i + 1
        i = end + 1
        if empty { break }
    }
    precondition(i == s.count, "bytes after the trailer section were consumed with the request")
    return data
}

private func same(_ a: IncomingRequest, _ b: IncomingRequest) -> Bool {
    a.method == b.method && a.target == b.target && a.path == b.path && a.rawQuery == b.rawQuery
        && a.queryItems == b.queryItems && a.version == b.version && a.headers == b.headers
        && a.body == b.body && a.authority == b.authority
}

private func fuzzParsing(_ input: [UInt8]) {
    let whole = run(input, pieces: [], limits: smallLimits)
    // Split points chosen by the input's first bytes: how the bytes arrive must not matter.
    let splits = input.prefix(3).map { Int($0 % 17) + 1 }
    var runs = [("split \(splits)", run(input, pieces: splits, limits: smallLimits))]
    if input.count <= 512 { runs.append(("byte-at-a-time", run(input, pieces: [1], limits: smallLimits))) }
    for (name, other) in runs {
        precondition(
            other.requests.count == whole.requests.count,
            "whole: \(whole.requests.count) requests, \(name): \(other.requests.count)"
        )
        for (a, b) in zip(whole.requests, other.requests) {
            precondition(same(a, b), "\(name) changed a request: \(a.target) vs \(b.target)")
        }
        precondition(
            whole.failure?.status == other.failure?.status,
            "whole failed with \(String(describing: whole.failure)), \(name) with \(String(describing: other.failure))"
        )
        if whole.failure == nil {
            precondition(
                whole.leftover == other.leftover && whole.midRequestAtEnd == other.midRequestAtEnd,
                "\(name) ends in another state: \(other.leftover) bytes held vs \(whole.leftover)"
            )
        }
        // 100 Continue is sent only while the body has not arrived: never more often when it has.
        precondition(
            whole.continues <= other.continues,
            "whole sent \(whole.continues) 100s, \(name) \(other.continues)"
        )
    }
    // Larger limits accept everything the small ones did (and may go further).
    let large = run(input, pieces: [], limits: largeLimits)
    precondition(large.requests.count >= whole.requests.count, "larger limits parsed fewer requests")
    for (a, b) in zip(whole.requests, large.requests) { precondition(same(a, b), "larger limits changed a request") }
    if whole.failure == nil {
        precondition(large.failure == nil && large.requests.count == whole.requests.count, "larger limits refused more")
    }
}

// MARK: - target helpers

private func isHex(_ b: UInt8) -> Bool { ByteClass.hexValue(b) != nil }

/// Reference percent-decoding on bytes; nil when `strict` and a "%" lacks two hex digits.
private func referenceDecode(_ s: [UInt8], strict: Bool) -> [UInt8]? {
    var out: [UInt8] = []
    var i = 0
    while i < s.count {
        if s[i] == UInt8(ascii: "%") {
            if i + 2 < s.count, isHex(s[i + 1]), isHex(s[i + 2]) {
                out.append(UInt8(ByteClass.hexValue(s[i + 1])! * 16 + ByteClass.hexValue(s[i + 2])!))
                i += 3
                continue
            }
            if strict { return nil }
        }
        out.append(s[i])
        i += 1
    }
    return out
}

private func fuzzTargetHelpers(_ input: [UInt8]) {
    let text = String(decoding: input.prefix(512), as: UTF8.self)
    let utf8 = Array(text.utf8)

    // Percent-decoding against the reference, strict and lenient; encoding then decoding is identity.
    let strict = PercentDecoding.decode(text, strict: true)
    let refStrict = referenceDecode(utf8, strict: true)
    precondition((strict == nil) == (refStrict == nil), "strict decoding disagrees on validity")
    if let strict, let refStrict {
        precondition(strict == String(decoding: refStrict, as: UTF8.self), "strict decoding differs")
    }
    precondition(
        PercentDecoding.decodeLenient(text) == String(decoding: referenceDecode(utf8, strict: false)!, as: UTF8.self),
        "lenient decoding differs"
    )
    let hex = Array("0123456789ABCDEF".utf8)
    let encoded = utf8.flatMap { [UInt8(ascii: "%"), hex[Int($0 >> 4)], hex[Int($0 & 15)]] }
    precondition(
        PercentDecoding.decode(String(decoding: encoded, as: UTF8.self), strict: true) == text,
        "encode/decode is not identity"
    )
    if utf8.allSatisfy({ $0 < 0x80 }) {
        let plus = utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }
        precondition(
            PercentDecoding.decodeForm(text) == String(decoding: referenceDecode(plus, strict: false)!, as: UTF8.self),
            "form decoding differs"
        )
    }

    // Only target bytes reach RequestTarget (the request line is checked first).
    let targetBytes = input.prefix(300).filter { ByteClass.target[Int($0)] }
    let raw = String(decoding: targetBytes, as: UTF8.self)

    // Query parsing: one item per non-empty "&" piece, split at the first "=", leniently decoded.
    let items = RequestTarget.parseQuery(Substring(raw))
    let pieces = raw.split(separator: "&", omittingEmptySubsequences: true)
    precondition(items.count == pieces.count, "\(items.count) query items for \(pieces.count) pieces")
    for (item, piece) in zip(items, pieces) {
        let (name, value) =
            piece.firstIndex(of: "=").map { (piece[..<$0], piece[piece.index(after: $0)...]) } ?? (piece, "")
        precondition(
            item.name == PercentDecoding.decodeLenient(name) && item.value == PercentDecoding.decodeLenient(value),
            "query item differs"
        )
    }

    // Dot-segment removal: rooted, no "." or ".." segment left, idempotent, a no-op without dots.
    let path = "/" + raw.filter { $0 != "?" }
    let removed = RequestTarget.removeDotSegments(Substring(path))
    precondition(removed.hasPrefix("/"), "dot-segment removal lost the root: \(removed)")
    precondition(
        !removed.split(separator: "/", omittingEmptySubsequences: false).dropFirst().contains {
            $0 == "." || $0 == ".."
        },
        "dot segment left by removeDotSegments: \(path) -> \(removed)"
    )
    precondition(RequestTarget.removeDotSegments(removed) == removed, "removeDotSegments is not idempotent")
    if !path.contains("/.") { precondition(removed == path, "removeDotSegments changed a path without dot segments") }

    // RequestTarget.parse: never traps; what it returns is rooted and has no dot segment left
    // unless it came from percent-encoded dots or slashes (reported separately).
    let method = ["GET", "OPTIONS", "CONNECT", "POST"][Int(input.first ?? 0) % 4]
    var parsed = IncomingRequest(method: method, target: raw, path: "")
    if (try? RequestTarget.parse(raw, method: method, into: &parsed)) != nil {
        precondition(method != "CONNECT", "CONNECT target accepted")
        // The query parts are written exactly when there is a `?` (origin- or absolute-form).
        precondition(
            (parsed.rawQuery != nil) == (raw != "*" && raw.contains("?")),
            "rawQuery set \(parsed.rawQuery != nil) for \(raw)"
        )
        if parsed.rawQuery == nil { precondition(parsed.queryItems.isEmpty, "query items without a query") }
        if raw == "*" {
            precondition(parsed.path == "*" && method == "OPTIONS", "asterisk-form for \(method)")
        } else {
            precondition(parsed.path.hasPrefix("/"), "parsed path not rooted: \(parsed.path)")
            if parsed.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().contains(where: {
                $0 == "." || $0 == ".."
            }) {
                preconditionFailure("dot segment in the decoded path \(parsed.path) of \(raw)")
            }
            if let authority = parsed.authority {
                precondition(Authority.isValid(authority.utf8, allowEmptyHost: false), "accepted an invalid authority")
            }
        }
    }

    // CONNECT for a forward proxy (acceptsConnect): an accepted target is exactly its
    // authority, and it splits into a non-empty host and a port of 1-65535 that write it back.
    var connect = IncomingRequest(method: "CONNECT", target: raw, path: "")
    if (try? RequestTarget.parse(raw, method: "CONNECT", acceptsConnect: true, into: &connect)) != nil {
        precondition(
            connect.authority == raw && connect.path.isEmpty,
            "CONNECT \(raw) kept \(connect.authority ?? "nil")"
        )
        guard let (host, port) = ConnectionTunnel.split(authority: raw) else {
            preconditionFailure("accepted CONNECT \(raw) does not split")
        }
        precondition(!host.isEmpty && (1...65_535).contains(port), "CONNECT \(raw) split into \(host) \(port)")
        let portText = raw[raw.index(after: raw.lastIndex(of: ":")!)...]
        let hostText = host.contains(":") ? "[\(host)]" : host
        precondition(
            Int(portText) == port && raw.dropLast(portText.count + 1) == hostText,
            "CONNECT \(raw) split into \(host) and \(port)"
        )
    }
    if let (host, port) = ConnectionTunnel.split(authority: raw) {
        precondition(!host.isEmpty && (1...65_535).contains(port), "split \(raw) into \(host) \(port)")
        precondition(!host.contains(":") || raw.hasPrefix("["), "an unbracketed IPv6 host from \(raw)")
    }

    // Authority syntax: never traps; stricter options only ever refuse more.
    let auth = Array(input.prefix(128))
    let lax = Authority.isValid(auth, allowEmptyHost: true)
    if Authority.isValid(auth, allowEmptyHost: false) {
        precondition(lax, "allowEmptyHost: true refused what false accepted")
    }
    if Authority.isValid(auth, allowEmptyHost: true, requirePort: true) {
        precondition(lax, "requirePort accepted more")
    }
}

// MARK: - dates and responses

/// Days since 1970-01-01 from a civil date (Howard Hinnant's days_from_civil), the inverse of
/// DateFormats.civil, written independently.
private func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
}

private func fuzzDate(_ input: [UInt8]) {
    var word: UInt64 = 0
    for b in input.suffix(8) { word = word << 8 | UInt64(b) }
    // Years 1000...9999, so the year has four digits and the layout is fixed.
    let low = -30_610_224_000
    let high = 253_402_300_799
    let seconds = low + Int(word % UInt64(high - low + 1))
    let date = Array(DateFormats.imfFixdate(epochSeconds: seconds).utf8)
    precondition(date.count == 29, "IMF-fixdate of \(date.count) bytes")
    let text = String(decoding: date, as: UTF8.self)
    func number(_ r: Range<Int>) -> Int { Int(String(decoding: date[r], as: UTF8.self))! }
    let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    precondition(
        date[3] == UInt8(ascii: ",") && date[4] == 32 && date[7] == 32 && date[11] == 32 && date[16] == 32
            && date[19] == UInt8(ascii: ":") && date[22] == UInt8(ascii: ":") && text.hasSuffix(" GMT"),
        "layout: \(text)"
    )
    guard let month = months.firstIndex(of: String(decoding: date[8..<11], as: UTF8.self)) else {
        preconditionFailure("month in \(text)")
    }
    let days = daysFromCivil(number(12..<16), month + 1, number(5..<7))
    let dayNumber = Int((Double(seconds) / 86_400).rounded(.down))
    precondition(days == dayNumber, "\(text) is day \(days), not \(dayNumber) (\(seconds))")
    precondition(
        number(17..<19) * 3600 + number(20..<22) * 60 + number(23..<25) == seconds - dayNumber * 86_400,
        "time of day in \(text)"
    )
    precondition(
        String(decoding: date[0..<3], as: UTF8.self) == weekdays[((dayNumber % 7) + 7) % 7],
        "weekday in \(text)"
    )
    // The calendar the date formats use, over a wider range: the independent inverse gives the
    // day back.
    let wide = Int(Int64(bitPattern: word) % 1_000_000_000)
    let (y, m, d) = CivilCalendar.date(dayNumber: wide)
    precondition(
        (1...12).contains(m) && (1...31).contains(d) && daysFromCivil(y, m, d) == wide,
        "date(dayNumber: \(wide))"
    )
}

/// Checks a serialised head line by line: status line, then exactly `fields` as `name: value`
/// with no CR, LF or NUL inside a line, then Content-Length when the status allows a body.
private func checkHead(_ response: PreparedResponse, fields: [(name: String, value: String)]) {
    let head = response.head
    var lines: [[UInt8]] = []
    var start = 0
    var i = 0
    while i < head.count {
        if head[i] == CR {
            precondition(i + 1 < head.count && head[i + 1] == LF, "bare CR in a response head")
            lines.append(Array(head[start..<i]))
            i += 2
            start = i
            continue
        }
        precondition(head[i] != LF, "bare LF in a response head")
        precondition(head[i] != 0, "NUL in a response head")
        i += 1
    }
    precondition(start == head.count, "response head does not end with CRLF")
    let allows = PreparedResponse.allowsBody(response.status)
    precondition(lines.count == 1 + fields.count + (allows ? 1 : 0), "\(lines.count) lines for \(fields.count) fields")
    precondition(lines[0].starts(with: bytes("HTTP/1.1 \(response.status) ")), "status line")
    precondition(response.headers.count == fields.count, "kept fields")
    for (line, field) in zip(lines.dropFirst(), fields) {
        precondition(line == bytes("\(field.name): \(field.value)"), "field line differs")
    }
    if allows {
        precondition(lines.last! == bytes("Content-Length: \(response.body.count)"), "Content-Length line")
    } else {
        precondition(response.body.isEmpty, "a body for status \(response.status)")
    }
}

private func fuzzResponse(_ input: [UInt8]) {
    var rest = input[...]
    func take(_ n: Int) -> ArraySlice<UInt8> {
        let s = rest.prefix(n)
        rest = rest.dropFirst(s.count)
        return s
    }
    let status = 100 + Int(take(1).first ?? 0) * 3 % 500
    let reservedOrCommon = [
        "content-length", "Transfer-Encoding", "CONNECTION", "date", "Server", "Content-Type", "Set-Cookie", "X-A",
    ]
    func fields(_ count: Int) -> (input: HeaderFields, kept: [(name: String, value: String)]) {
        var headers = HeaderFields()
        var kept: [(name: String, value: String)] = []
        for _ in 0..<count {
            let selector = Int(take(1).first ?? 0)
            let length = Int(take(1).first ?? 0) % 48
            let raw = take(length)
            let name: String
            if selector & 1 == 0 {
                name = reservedOrCommon[(selector >> 1) % reservedOrCommon.count]
            } else {
                // Stub files' header names are checked to be tokens when they load.
                let token = raw.filter { ByteClass.token[Int($0)] }
                name = token.isEmpty ? "X-Fuzz" : String(decoding: token, as: UTF8.self)
            }
            // Arbitrary values: as Latin-1 scalars (every control byte survives), or as UTF-8.
            let value =
                selector & 2 == 0
                ? String(String.UnicodeScalarView(raw.map { Unicode.Scalar($0) }))
                : String(decoding: raw, as: UTF8.self)
            headers.add(name, value)
            if !ServerOwnedFields.contains(name) {
                var clean = String.UnicodeScalarView()
                for s in value.unicodeScalars { clean.append(s == "\r" || s == "\n" || s == "\0" ? " " : s) }
                kept.append((name, String(clean)))
            }
        }
        return (headers, kept)
    }
    let first = fields(Int(take(1).first ?? 0) % 5)
    let body = Array(take(Int(take(1).first ?? 0) % 64))
    let prepared = PreparedResponse(status: status, headers: first.input, body: body)
    checkHead(prepared, fields: first.kept)
    precondition(prepared.body == (PreparedResponse.allowsBody(status) ? body : []), "body")

    let newBody = Array(take(Int(take(1).first ?? 0) % 64))
    let replaced = prepared.replacingBody(newBody)
    checkHead(replaced, fields: first.kept)
    precondition(replaced.body == (PreparedResponse.allowsBody(status) ? newBody : []), "replaced body")

    let extra = fields(Int(take(1).first ?? 0) % 4)
    let added = replaced.adding(extra.input)
    // adding() appends after the Content-Length line, so compare the prefix, then the new lines.
    let base = replaced.head
    precondition(added.head.starts(with: base), "adding() rewrote the existing head")
    var tail = bytes("")
    for field in extra.kept { tail += bytes("\(field.name): \(field.value)\r\n") }
    precondition(Array(added.head[base.count...]) == tail, "adding() lines differ")
    precondition(
        !added.headers.contains { $0.value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" } },
        "CR, LF or NUL kept in a header value"
    )
    let again = added.replacingBody(body)
    precondition(
        again.head == (PreparedResponse.allowsBody(status) ? replaced.replacingBody(body).head + tail : added.head),
        "replacingBody after adding() lost or rewrote lines"
    )
}

// MARK: - entry point

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    fuzzParsing(input)
    fuzzTargetHelpers(input)
    fuzzDate(input)
    fuzzResponse(input)
    return 0
}
