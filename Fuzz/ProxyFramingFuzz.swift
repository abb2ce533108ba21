// libFuzzer target for the proxy's upstream connections: HTTPClient (the proxy's client, on the
// server's event loops, with its pool of keep-alive connections) against a scripted upstream
// on loopback. Not part of the package: scripts/fuzz builds SystemSupport, HTTP1 and HTTPSockets
// (with its C modules) as instrumented static libraries and links this file against them.
//
// Each input is a run of one to six requests, sent one after the other through one client, and
// for each the upstream's script, read from the input: GET or HEAD; an optional 100 or 103
// first (or a 100 followed by junk); a status (200, 201, 204, 304, 404, 500); the framing
// (Content-Length exact, shorter than the body, longer than the body then a close, two
// differing values, chunked, Content-Length with chunked, close-delimited, HTTP/1.0
// keep-alive); `Connection: close` or not; bytes after the response (none, a whole smuggled
// response, input-chosen junk, a CRLF), in the same write, a second write or after a pause;
// and a close at the end or not.
//
// Every response the script writes carries `X-For: <run>-<request>`, with <run> unique to the
// input and unknown to it, so no junk can pass for another request's answer. Checked for each
// request: its answer is its own response (that label, with the body its framing delimits:
// exactly for a length or chunked body that completed, a prefix of what was sent for a body
// delimited by the close, none for HEAD, 204 and 304) or a failure (the proxy's clean 502/504);
// never the smuggled response, junk parsed as a response, or another request's answer; and a
// response that cannot be complete (a length longer than what came, differing lengths, junk
// after a 100) never passes for a complete one. Before the next request the harness waits until
// the upstream has carried out the whole script (bytes after the response are then in the
// proxy's socket), so a pooled connection holding them is a finding, not a race.
// A violated check is a precondition failure, which libFuzzer reports and saves.

#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import HTTP1
import HTTPSockets
import SystemSupport

// MARK: the scripted upstream

private enum Step {
    case send([UInt8])
    case pause(microseconds: UInt32)
    case close
}

/// Scripts by request label, and the labels whose scripts have been carried out.
private let scripts = Locked<[String: [Step]]>([:])
private let completed = Locked<Set<String>>([])

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

private func spawn(_ body: @escaping () -> Void) {
    let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
        &thread,
        nil,
        { raw in
            let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            body.run()
            return nil
        },
        box
    )
    precondition(created == 0, "pthread_create failed")
    pthread_detach(thread)
}

private func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
        if n <= 0 { return false }
        offset += n
    }
    return true
}

private func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
    guard hay.count >= needle.count else { return nil }
    for i in 0...(hay.count - needle.count) where hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
    return nil
}

/// Reads request heads (the client sends no bodies here) and carries out each one's script.
private func serve(_ fd: Int32) {
    defer { close(fd) }
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        var end = find([13, 10, 13, 10], in: buffer)
        while end == nil {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            buffer += chunk[0..<n]
            end = find([13, 10, 13, 10], in: buffer)
        }
        let head = String(decoding: buffer[0..<end!], as: UTF8.self)
        buffer.removeFirst(end! + 4)
        var label = ""
        for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("x-id:") {
            label = line.dropFirst(5).trimmingCharacters(in: " ")
        }
        let steps = scripts.withLock { $0[label] } ?? [.close]
        var open = true
        for step in steps {
            switch step {
            case .send(let bytes):
                open = sendAll(fd, bytes)
            case .pause(let microseconds):
                usleep(microseconds)
            case .close:
                open = false
            }
            if !open { break }
        }
        completed.withLock { _ = $0.insert(label) }
        if !open { return }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}

/// The upstream's port: a listener on 127.0.0.1, a thread per accepted connection.
private let upstreamPort: Int = {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    precondition(fd >= 0, "socket")
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    precondition(bound == 0 && listen(fd, 512) == 0, "bind/listen")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    spawn {
        while true {
            let connection = accept(fd, nil, nil)
            if connection < 0 { continue }
            var on: Int32 = 1
            // Each write leaves when the script says (Nagle would hold a second small write
            // until the first is acknowledged).
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            spawn { serve(connection) }
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}()

// MARK: the proxy's client

private let client: HTTPClient = {
    var configuration = ServerConfiguration()
    configuration.port = 0
    // One loop: every request meets the same pool, so a poisoned connection is reused at once.
    configuration.loopCount = 1
    let server = HTTP1Server(configuration: configuration) { _ in OutgoingResponse(status: 204) }
    do { try server.start() } catch { preconditionFailure("server: \(error)") }
    return HTTPClient(server: server)
}()

private let endpoint = ClientEndpoint(host: "127.0.0.1", port: upstreamPort)
private let runs = Locked(UInt64(UInt32.random(in: 1...UInt32.max)) << 20)

// MARK: scripts from the input

private struct Reader {
    var bytes: [UInt8]
    var at = 0
    mutating func next() -> UInt8 {
        defer { at += 1 }
        return at < bytes.count ? bytes[at] : 0
    }
    mutating func take(_ n: Int) -> [UInt8] {
        let end = min(bytes.count, at + n)
        defer { at = end }
        return at < end ? Array(bytes[at..<end]) : []
    }
}

/// What a correct client must make of one scripted response.
private enum Expectation {
    /// This body exactly, when it completes (it may still be cut short by a failure).
    case body([UInt8])
    /// No body (HEAD, 204, 304).
    case none
    /// Delimited by the close: what was sent, extras included, starts with this.
    case prefix([UInt8])
    /// Cannot complete: a failure, or a body that does not finish.
    case incomplete
}

private let smuggled = Array("HTTP/1.1 200 OK\r\nX-For: smuggled\r\nContent-Length: 8\r\n\r\nsmuggled".utf8)

private func script(_ r: inout Reader, label: String) -> (method: String, steps: [Step], expect: Expectation) {
    let shape = r.next()
    let more = r.next()
    let sizes = r.next()
    let method = shape & 1 == 1 ? "HEAD" : "GET"
    let statuses = [200, 201, 204, 304, 404, 500]
    let status = statuses[Int(shape >> 1) % statuses.count]
    let framing = Int(shape >> 4) % 8
    let close = more & 1 == 1
    let connectionClose = more & 2 == 2
    let pre = Int(more >> 2) % 4
    // No bytes after a length longer than the body: they would complete it.
    let extraKind = framing == 5 ? 0 : Int(more >> 4) % 4
    let extraTiming = Int(more >> 6) % 3
    let body = r.take(Int(sizes % 48))
    let bodiless = method == "HEAD" || status == 204 || status == 304
    var head = "HTTP/1.1 \(status) X\r\nX-For: \(label)\r\n"
    if framing == 7 { head = "HTTP/1.0 \(status) X\r\nX-For: \(label)\r\nConnection: keep-alive\r\n" }
    if connectionClose { head += "Connection: close\r\n" }
    var payload = body
    var expect: Expectation = .body(body)
    var mustClose = false
    switch framing {
    case 0, 7:
        head += "Content-Length: \(body.count)\r\n"
    case 1:
        let short = body.isEmpty ? 0 : Int(sizes >> 6) % body.count
        head += "Content-Length: \(short)\r\n"
        expect = .body(Array(body[0..<short]))
    case 2, 3:
        if framing == 3 { head += "Content-Length: \(body.count + 7)\r\n" }
        head += "Transfer-Encoding: chunked\r\n"
        payload = []
        var rest = body[...]
        let piece = max(1, Int(sizes >> 6) + 1)
        while !rest.isEmpty {
            let part = rest.prefix(piece)
            payload += Array((String(part.count, radix: 16) + "\r\n").utf8) + part + [13, 10]
            rest = rest.dropFirst(part.count)
        }
        payload += Array("0\r\n\r\n".utf8)
    case 4:
        mustClose = true
        expect = .prefix(body)
    case 5:
        head += "Content-Length: \(body.count + 1 + Int(sizes >> 6))\r\n"
        mustClose = true
        expect = .incomplete
    default:
        head += "Content-Length: \(body.count)\r\nContent-Length: \(body.count + 1)\r\n"
        expect = .incomplete
    }
    if bodiless && framing != 6 { expect = .none }
    var first: [UInt8] = []
    switch pre {
    case 1: first = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    case 2: first = Array("HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n".utf8)
    case 3:
        first = Array("HTTP/1.1 100 Continue\r\n\r\noops\r\n".utf8)
        expect = .incomplete
    default: break
    }
    let response = first + Array((head + "\r\n").utf8) + payload
    var extra: [UInt8] = []
    switch extraKind {
    case 1: extra = smuggled
    case 2: extra = r.take(Int(r.next() % 48))
    case 3: extra = [13, 10]
    default: break
    }
    var steps: [Step] = []
    if extra.isEmpty {
        steps = [.send(response)]
    } else {
        switch extraTiming {
        case 0: steps = [.send(response + extra)]
        case 1: steps = [.send(response), .send(extra)]
        default: steps = [.send(response), .pause(microseconds: 1_000), .send(extra)]
        }
    }
    if close || mustClose { steps.append(.close) }
    return (method, steps, expect)
}

// MARK: one exchange

private struct Answer {
    var failure: ClientFailure?
    var head: ResponseHead?
    var body: [UInt8] = []
    var finished = false
}

private func exchange(_ method: String, label: String) -> Answer {
    let done = DispatchSemaphore(value: 0)
    let result = Locked(Answer())
    let request = ClientRequest(
        method: method,
        target: "/r",
        headers: HeaderFields([("Host", "upstream.test"), ("X-Id", label)])
    )
    client.send(request, to: endpoint, timeoutMilliseconds: 3_000) { outcome in
        switch outcome {
        case .failure(let failure):
            result.withLock { $0.failure = failure }
            done.signal()
        case .success(let response):
            result.withLock { $0.head = response.head }
            switch response.body {
            case .none:
                result.withLock { $0.finished = true }
                done.signal()
            case .complete(let bytes):
                result.withLock {
                    $0.body = bytes
                    $0.finished = true
                }
                done.signal()
            case .stream(let stream):
                // Weak: the stream keeps its notify closure until it is released, and the
                // connection holds the stream while it calls it.
                stream.attach { [weak stream] in
                    guard let stream else { return }
                    let batch = stream.take(unsent: 0)
                    stream.drained(unsent: 0)
                    let over = result.withLock { answer -> Bool in
                        for piece in batch.pieces { answer.body += piece }
                        if batch.finished { answer.finished = true }
                        return batch.finished || batch.aborted
                    }
                    if over { done.signal() }
                }
            }
        }
    }
    done.wait()
    return result.withLock { $0 }
}

private func waitForScript(_ label: String) {
    for _ in 0..<20_000 {
        if completed.withLock({ $0.contains(label) }) { return }
        usleep(100)
    }
    preconditionFailure("the upstream never finished the script of \(label)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var reader = Reader(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    let run = runs.withLock { n -> UInt64 in
        n += 1
        return n
    }
    let count = 1 + Int(reader.next() % 6)
    for index in 0..<count {
        let label = "\(run)-\(index)"
        let (method, steps, expect) = script(&reader, label: label)
        scripts.withLock { $0[label] = steps }
        let answer = exchange(method, label: label)
        if let head = answer.head {
            let own = head.headers["X-For"]
            precondition(own == label, "request \(label) got the answer for \(own ?? "nobody") (\(head.status))")
            switch expect {
            case .none:
                precondition(head.framing == .none && answer.body.isEmpty, "\(label): a bodiless answer with a body")
            case .body(let bytes):
                precondition(
                    !answer.finished || answer.body == bytes,
                    "\(label): body \(answer.body), expected \(bytes)"
                )
            case .prefix(let bytes):
                precondition(
                    !answer.finished || answer.body.starts(with: bytes),
                    "\(label): body \(answer.body) lacks \(bytes)"
                )
            case .incomplete:
                precondition(
                    !answer.finished || head.framing == .none,
                    "\(label): an incomplete response passed for complete: \(answer.body)"
                )
            }
            // Everything the script sends is in the proxy's socket before the next request.
            waitForScript(label)
        }
        scripts.withLock { $0[label] = nil }
    }
    completed.withLock { $0.removeAll() }
    return 0
}
