// libFuzzer target for the HTTP/1.1 parser. Not part of the package: scripts/fuzz compiles this
// file together with Sources/HTTP1/*.swift using `swiftc -sanitize=fuzzer,address`.
//
// Each input is parsed three ways (whole, split at input-chosen points, one byte at a time for
// short inputs) and the results must agree; invariants are checked with preconditions, so a
// violation is a crash libFuzzer reports and saves.

/// Feeds `input` to a fresh parser in the given pieces, the way a connection does (keeping
/// unconsumed bytes), and returns what it produced.
private func run(_ input: [UInt8], pieces: [Int], limits: HTTPParserLimits) -> (requests: [HTTPRequest], failure: HTTPParseError?, continues: Int) {
    var parser = RequestParser(limits: limits)
    var pending: [UInt8] = []
    var requests: [HTTPRequest] = []
    var failure: HTTPParseError?
    var continues = 0
    var offset = 0
    var pieceIndex = 0
    while offset < input.count || !pending.isEmpty {
        if offset < input.count {
            let size = max(1, pieces.isEmpty ? input.count : pieces[pieceIndex % pieces.count])
            pieceIndex += 1
            let end = min(input.count, offset + size)
            pending += input[offset..<end]
            offset = end
        }
        var progressed = true
        while progressed && failure == nil {
            progressed = false
            let (event, consumed) = pending.withUnsafeBufferPointer { parser.parse($0) }
            precondition(consumed >= 0 && consumed <= pending.count, "consumed \(consumed) of \(pending.count)")
            pending.removeFirst(consumed)
            switch event {
            case .needMore:
                progressed = consumed > 0
            case .sendContinue:
                continues += 1
                progressed = true
            case .request(let request):
                check(request, limits: limits)
                requests.append(request)
                progressed = true
            case .failure(let error):
                failure = error
                // A failure is sticky: the parser must keep reporting it.
                let (again, consumedAgain) = [UInt8(ascii: "G")].withUnsafeBufferPointer { parser.parse($0) }
                guard case .failure(let same) = again, same == error, consumedAgain == 0 else {
                    preconditionFailure("failure not sticky: \(error) then \(again)")
                }
            }
        }
        if failure != nil { break }
        if offset >= input.count { break }
    }
    return (requests, failure, continues)
}

/// What every request the parser hands out must satisfy.
private func check(_ request: HTTPRequest, limits: HTTPParserLimits) {
    precondition(!request.method.isEmpty, "empty method")
    precondition(request.method.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "method with whitespace or controls")
    precondition(request.version.major == 1, "version \(request.version)")
    precondition(request.body.count <= limits.maxBodyBytes, "body over the limit")
    if request.target != "*" {
        precondition(request.path.hasPrefix("/"), "path \(request.path) does not start with /")
        // Dot segments are removed: no segment of the decoded path may be "..".
        precondition(!request.path.split(separator: "/", omittingEmptySubsequences: false).contains(".."), "dot segment left in \(request.path)")
    }
    if let length = request.headers["Content-Length"], let n = Int(length) {
        precondition(request.body.count == n, "body \(request.body.count) bytes, Content-Length \(n)")
    }
    precondition(!(request.headers.contains("Content-Length") && request.headers.contains("Transfer-Encoding")) || true)
    for field in request.headers {
        precondition(!field.name.isEmpty, "empty field name")
        precondition(!field.value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }, "CR, LF or NUL in a field value")
        precondition(field.value.first != " " && field.value.last != " ", "field value not trimmed")
    }
    precondition(request.headers.values("Host").count <= 1 || request.version.minor == 0, "more than one Host")
}

/// Response serialisation with input-derived header names and values: no CR or LF may reach a
/// header line, and the head must be exactly status line + fields.
private func checkResponse(_ input: [UInt8]) {
    let text = String(decoding: input.prefix(256), as: UTF8.self)
    let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    var headers = HTTPHeaders()
    headers.add("X-Fuzz", String(parts.last ?? ""))
    if parts.count == 2 { headers.add(String(parts[0]).isEmpty ? "X" : String(parts[0]).filter { $0.isLetter || $0 == "-" } + "X", String(parts[1])) }
    let status = 100 + Int(input.first ?? 0) % 500
    let prepared = PreparedResponse(status: status, headers: headers, body: Array(input.prefix(64)))
    let head = prepared.head
    var lines = 0
    var i = 0
    while i < head.count {
        if head[i] == 0x0D {
            precondition(i + 1 < head.count && head[i + 1] == 0x0A, "bare CR in the head")
            lines += 1
            i += 2
            continue
        }
        precondition(head[i] != 0x0A, "bare LF in the head")
        i += 1
    }
    precondition(head.last == 0x0A, "head does not end with CRLF")
    _ = prepared.adding(headers)
    _ = PercentDecoding.decode(text, strict: true)
    _ = PercentDecoding.decodeForm(text)
    _ = HTTPDate.format(epochSeconds: Int(input.first ?? 0) * 86_400 * 365)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    // Small limits so the limit paths (413, 414, 431) are reachable with short inputs.
    let limits = HTTPParserLimits(maxHeaderBytes: 1024, maxTargetBytes: 256, maxBodyBytes: 2048, maxHeaderCount: 32)
    let whole = run(input, pieces: [], limits: limits)
    // Split points chosen by the input's first bytes.
    let splits = input.prefix(3).map { Int($0 % 17) + 1 }
    let split = run(input, pieces: splits, limits: limits)
    // However the bytes arrive, the parser must see the same requests and the same failure.
    precondition(whole.requests.count == split.requests.count,
                 "whole: \(whole.requests.count) requests, split \(splits): \(split.requests.count)")
    for (a, b) in zip(whole.requests, split.requests) {
        precondition(a.method == b.method && a.target == b.target && a.body == b.body && a.headers == b.headers,
                     "split changed a request: \(a.target) vs \(b.target)")
    }
    precondition(whole.failure?.status == split.failure?.status,
                 "whole failed with \(String(describing: whole.failure)), split with \(String(describing: split.failure))")
    if input.count <= 512 {
        let bytewise = run(input, pieces: [1], limits: limits)
        precondition(bytewise.requests.count == whole.requests.count && bytewise.failure?.status == whole.failure?.status,
                     "byte-at-a-time differs")
    }
    checkResponse(input)
    return 0
}
