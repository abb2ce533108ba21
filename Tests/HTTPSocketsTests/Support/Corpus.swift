import TestSupport
import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

// Loading the shared HTTP/1.1 conformance corpora (../shared/corpora/http, see its README) and
// replaying one vector over a real socket. The corpus files are read in place, never copied.

/// The corpus files, one per suite of another project's tests.
enum ConformanceSuite: String, CaseIterable, Sendable, CustomStringConvertible {
    case apache = "apache-http_strict"
    case cowboy = "cowboy-rfc7230"
    case go = "go-net-http-serve_test"
    case http11probe = "http11probe"
    case llhttp = "llhttp-requests"
    case smuggler = "smuggler-te-gadgets"

    var description: String { rawValue }
    var fileName: String { rawValue + ".json" }
}

enum Corpus {
    /// `STUBSERVER_HTTP_CORPUS` if set, else `../shared/corpora/http` next to the package (four
    /// levels above `Tests/HTTPSocketsTests/<file>.swift`). nil when the folder is absent.
    static func directory(testFile: String) -> URL? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["STUBSERVER_HTTP_CORPUS"], !env.isEmpty {
            return fm.fileExists(atPath: env) ? URL(fileURLWithPath: env, isDirectory: true) : nil
        }
        var url = URL(fileURLWithPath: testFile)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // file, HTTPSocketsTests, Tests, package
        url.appendPathComponent("shared/corpora/http", isDirectory: true)
        return fm.fileExists(atPath: url.path) ? url : nil
    }

    /// One char of a corpus string is one byte (latin-1). A scalar above U+00FF (one http11probe
    /// payload has one, from a C# `\x` escape) is sent as its UTF-8 bytes.
    static func latin1(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.unicodeScalars.count)
        for scalar in s.unicodeScalars {
            if scalar.value <= 0xFF { out.append(UInt8(scalar.value)) } else { out += Array(String(scalar).utf8) }
        }
        return out
    }

    static func load(_ suite: ConformanceSuite, from directory: URL) throws -> [CorpusEntry] {
        let data = try Data(contentsOf: directory.appendingPathComponent(suite.fileName))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
        let items = (root["cases"] ?? root["gadgets"]) as? [[String: Any]] ?? []
        switch suite {
        case .apache: return items.enumerated().map(apache)
        case .cowboy: return items.enumerated().map(cowboy)
        case .go: return items.enumerated().map(go)
        case .http11probe: return items.map(http11probe)
        case .llhttp: return items.map(llhttp)
        case .smuggler: return items.map(smuggler)
        }
    }

    // MARK: per-suite readings of the expectations

    /// `expect_strict` (Apache with `HttpProtocolOptions Strict`): "1" any success, "0" any error,
    /// "undef" dropped without a response, else an exact status.
    static func apache(_ index: Int, _ c: [String: Any]) -> CorpusEntry {
        let id = "#\(index)"
        let raw = c["raw"] as? String ?? ""
        if let cond = c["cond"] as? String, cond.contains("have_module") {
            return .skip(id: id, reason: "depends on an Apache module's configuration (\(cond))")
        }
        let expected = c["expect_strict"] as? String ?? ""
        var e = Expectation(text: "strict: \(expected)")
        switch expected {
        case "1": e.successOrRedirect = true
        case "0":
            e.anyError = true
            e.closeWithoutResponse = true
        // Apache drops the connection. Answering 400 and closing refuses the request just as
        // well and tells the client why, so either counts.
        case "undef":
            e.closeWithoutResponse = true
            e.statuses = [400]
        default: e.statuses = [Int(expected) ?? -1]
        }
        return .replay(ConformanceVector(id: id, bytes: latin1(raw), expectation: e))
    }

    /// Exact statuses from Cowboy's RFC 7230 suite; `dynamic` cases are built in Erlang code.
    static func cowboy(_ index: Int, _ c: [String: Any]) -> CorpusEntry {
        let test = c["test"] as? String ?? "?"
        let id = "#\(index) \(test)"
        if c["dynamic"] as? Bool == true {
            return .skip(id: id, reason: "payload built in Erlang code; the stored bytes are incomplete")
        }
        let status = c["expect_status"] as? Int ?? -1
        var e = Expectation(text: "\(status)")
        e.statuses = [status]
        return .replay(ConformanceVector(id: id, bytes: latin1(c["raw"] as? String ?? ""), expectation: e))
    }

    /// Exact statuses from Go's net/http tests; one case is a 2 MiB header given as a template.
    static func go(_ index: Int, _ c: [String: Any]) -> CorpusEntry {
        let test = c["test"] as? String ?? "?"
        let id = "#\(index) \(test)"
        var bytes: [UInt8]
        if let raw = c["raw"] as? String {
            bytes = latin1(raw)
        } else if let t = c["raw_template"] as? [String: Any] {
            bytes = latin1(t["prefix"] as? String ?? "")
            let unit = latin1(t["repeat"] as? String ?? "")
            for _ in 0..<(t["count"] as? Int ?? 0) { bytes += unit }
            bytes += latin1(t["suffix"] as? String ?? "")
        } else {
            return .skip(id: id, reason: "no payload")
        }
        let status = c["expect_status"] as? Int ?? -1
        var e = Expectation(text: "\(status)")
        e.statuses = [status]
        // "Go serves 2 requests; extra CRLFs between pipelined requests are ignored".
        if (c["note"] as? String)?.contains("serves 2 requests") == true {
            e.secondSuccess = true
            e.text += " and a second 2xx"
        }
        return .replay(ConformanceVector(id: id, bytes: bytes, expectation: e))
    }

    /// the http11probe suite: `expected_status` when exact, else the pass criteria in `expected_desc`,
    /// read by the table below. Sequence payloads have the step labels mixed in; the known
    /// labels are removed and the steps sent back to back (pipelined).
    static func http11probe(_ c: [String: Any]) -> CorpusEntry {
        let id = c["id"] as? String ?? "?"
        guard let payload = c["payload"] as? String else {
            return .skip(id: id, reason: "no payload (built in C# code)")
        }
        if c["payload_dynamic"] as? Bool == true {
            return .skip(
                id: id,
                reason: "payload computed in C#; the extracted string is a template or lost the byte under test"
            )
        }
        if id.hasPrefix("CAP-") {
            return .skip(
                id: id,
                reason: "conditional-request capability (ETag, 304): the stub's behaviour, not HTTP/1.1 parsing"
            )
        }
        var text = payload
        if c["sequence"] as? Bool == true {
            for label in ["Follow-up GET", "Second GET"] { text = text.replacingOccurrences(of: label, with: "") }
        }
        let allowClose = c["allow_close"] as? Bool == true
        var e: Expectation
        switch c["expected_status"] as? String {
        case "Exact(400)"?:
            e = Expectation(text: "400" + (allowClose ? " or close" : ""))
            e.statuses = [400]
            e.closeWithoutResponse = allowClose
        case "Range2xx"?:
            e = Expectation(text: "2xx")
            e.success = true
        default:
            let desc = c["expected_desc"] as? String ?? ""
            guard let mapped = probeCriteria(desc) else {
                return .skip(id: id, reason: "the handler's behaviour (\(desc)), not HTTP/1.1 parsing")
            }
            e = mapped
        }
        var vector = ConformanceVector(id: id, bytes: latin1(text), expectation: e)
        vector.note = c["rfc_level"] as? String ?? ""
        return .replay(vector)
    }

    /// The pass criteria of the http11probe suite's custom validators, as statuses. "(warn)" outcomes do not
    /// pass. nil: the criterion is about what the handler answers (Allow, 204, 405 for DELETE).
    static func probeCriteria(_ desc: String) -> Expectation? {
        var e = Expectation(text: desc)
        switch desc {
        case "400 or close (pass), 2xx (warn)", "400 or close":
            e.statuses = [400]
            e.closeWithoutResponse = true
        case "400 or 2xx", "2xx or 400", "400 (rejected) or 2xx without NUL",
            "400 (rejected) or 2xx without control chars":
            e.statuses = [400]
            e.success = true
        case "400/505 or close":
            e.statuses = [400, 505]
            e.closeWithoutResponse = true
        case "400/close/timeout", "400/505/close/timeout":
            // "timeout": the server waits for the rest; ours answers 408 when its header timeout ends.
            e.statuses = desc.contains("505") ? [400, 505, 408] : [400, 408]
            e.closeWithoutResponse = true
        case "2xx preferred; 400 warns", "2xx + echo", "2xx (Range ignored)", "2xx with no body",
            "2xx with Cookie in body", "2xx with both cookies", "2xx with foo=bar in body",
            "2xx with a=1, b=2, c=3 in body", "2xx (no crash)":
            e.success = true
        case "2xx with Date header", "IMF-fixdate format":
            e.success = true
            e.requiredHeader = "Date"
        case "2xx with Content-Type":
            e.success = true
            e.requiredHeader = "Content-Type"
        case "400/405/501 or 2xx":
            e.statuses = [400, 405, 501]
            e.success = true
        case "400/501 or close":
            e.statuses = [400, 501]
            e.closeWithoutResponse = true
        case "400/405/501 or close", "501/405/400 or close":
            e.statuses = [400, 405, 501]
            e.closeWithoutResponse = true
        case "!101", "non-101 (426 preferred)":
            e.anyFinal = true
            e.forbiddenInterim = [101]
        case "non-1xx response":
            e.anyFinal = true
            e.forbidAnyInterim = true
        case "417 or 2xx":
            e.statuses = [417]
            e.success = true
        case "405/501 or 2xx", "405/501, or 200 without Auth":
            e.statuses = [405, 501]
            e.success = true
        case "2xx + close":
            e.success = true
            e.announcesClose = true
        case "200 or 400": e.statuses = [200, 400]
        case "200 or 505": e.statuses = [200, 505]
        case "400/405 or 200": e.statuses = [400, 405, 200]
        case "200 or 416": e.statuses = [200, 416]
        case "406 or 2xx":
            e.statuses = [406]
            e.success = true
        case "415 or 2xx":
            e.statuses = [415]
            e.success = true
        case "400 or 2xx/404":
            e.statuses = [400, 404]
            e.success = true
        case "Reject/drop (pass), normalize (fail), preserve (warn)",
            "Reject/drop (pass), normalize casing (fail), preserve (warn)":
            // Only a rejection is visible in a status; a 2xx is "drop" or "preserve", and we preserve.
            e.statuses = [400]
            e.closeWithoutResponse = true
        case "400 or close preferred; 2xx acceptable",
            "400/close preferred; poisoned follow-up = warn",
            "400/close/pass-through; poisoned follow-up = warn":
            e.statuses = [400]
            e.closeWithoutResponse = true
            e.success = true
        case "417/400/close preferred; poisoned follow-up = warn":
            e.statuses = [417, 400]
            e.closeWithoutResponse = true
            e.success = true
        case "400/501 or 2xx+close":
            e.statuses = [400, 501]
            e.success = true
            e.announcesClose = true
        case "400 or 2xx+close", "400, or 2xx + close":
            e.statuses = [400]
            e.success = true
            e.announcesClose = true
        case "400, or close":
            e.statuses = [400]
            e.closeWithoutResponse = true
        case "2xx + 2xx":
            e.success = true
            e.secondSuccess = true
        default:
            return nil
        }
        return e
    }

    /// llhttp's strict-mode request tests. The extraction dropped the block's final CRLF (a
    /// request line alone counts as one complete message), so it is restored; HTTP/1.1 requests
    /// without Host get `Host: localhost` after the request line (the corpus README asks for it).
    /// `error` set: refused; `msgs` ≥ 1: the first request is answered; neither: valid but
    /// incomplete, so the server waits for the rest (our 408 at the header timeout).
    static func llhttp(_ c: [String: Any]) -> CorpusEntry {
        let id = "\(c["file"] as? String ?? "?"):\(c["line"] as? Int ?? 0)"
        let type = c["type"] as? String ?? ""
        guard type == "request" else {
            return .skip(
                id: id,
                reason: type == "request-finish"
                    ? "llhttp_finish() at end of input, not a request a server answers"
                    : """
                    exercises the \(type.replacingOccurrences(of: "request-", with: "")) leniency flag; we are \
                    strict
                    """
            )
        }
        if (c["meta"] as? [String: Any])?["skipBody"] as? Bool == true {
            return .skip(id: id, reason: "parser told to skip the body (as after HEAD); no server equivalent")
        }
        let bytes = withHost(latin1(c["raw"] as? String ?? "") + [13, 10])
        let error = c["error"] as? String
        let msgs = c["msgs"] as? Int ?? 0
        var e: Expectation
        if let error, !(error.hasPrefix("Pause on") || error.hasPrefix("Data after")) || msgs == 0 {
            e = Expectation(text: "error: \(error)")
            e.anyError = true
            e.closeWithoutResponse = true
        } else if msgs >= 1 {
            e = Expectation(
                text: "parses (\(msgs) message\(msgs == 1 ? "" : "s"))" + (error.map { "; then \($0)" } ?? "")
            )
            e.success = true
        } else {
            e = Expectation(text: "valid but incomplete: server waits (408)")
            e.statuses = [408]
        }
        return .replay(ConformanceVector(id: id, bytes: bytes, expectation: e))
    }

    /// Inserts `Host: localhost` after an HTTP/1.1 request line when the head has no Host field.
    static func withHost(_ bytes: [UInt8]) -> [UInt8] {
        var start = 0
        while start + 1 < bytes.count, bytes[start] == 13, bytes[start + 1] == 10 { start += 2 }
        guard let lf = bytes[start...].firstIndex(of: 10), lf > start, bytes[lf - 1] == 13 else { return bytes }
        let line = String(decoding: bytes[start..<(lf - 1)], as: UTF8.self)
        guard line.hasSuffix(" HTTP/1.1") else { return bytes }
        let headEnd =
            WireConnection.find([13, 10, 13, 10], in: Array(bytes[start...])).map { $0 + start } ?? bytes.count
        let head = String(decoding: bytes[lf..<max(lf, headEnd)], as: UTF8.self).lowercased()
        if head.contains("\nhost:") { return bytes }
        return Array(bytes[...lf]) + Array("Host: localhost\r\n".utf8) + Array(bytes[(lf + 1)...])
    }

    /// smuggler's Transfer-Encoding gadgets, placed as smuggler does next to a Content-Length.
    /// The body reads as a complete chunked message followed by a second request, so the echo
    /// (`POST / <body length>`) shows which framing the server used. Pass: refused, or framed
    /// by Content-Length (the gadget was not a Transfer-Encoding field, and never two framings).
    static func smuggler(_ c: [String: Any]) -> CorpusEntry {
        let id = c["name"] as? String ?? "?"
        let body = Array("0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        let bytes =
            Array("POST / HTTP/1.1\r\n".utf8) + latin1(c["header_line"] as? String ?? "")
            + Array("\r\nHost: localhost\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        var e = Expectation(text: "reject, or one Content-Length framing")
        e.anyError = true
        e.closeWithoutResponse = true
        e.successBody = "POST / \(body.count)"
        return .replay(ConformanceVector(id: id, bytes: bytes, expectation: e))
    }
}

enum CorpusEntry: Sendable {
    case replay(ConformanceVector)
    case skip(id: String, reason: String)
}

struct ConformanceVector: Sendable {
    var id: String
    var bytes: [UInt8]
    var expectation: Expectation
    var note = ""

    init(id: String, bytes: [UInt8], expectation: Expectation) {
        self.id = id
        self.bytes = bytes
        self.expectation = expectation
    }

    /// HEAD responses have no body to read past.
    var isHead: Bool {
        var i = 0
        while i + 1 < bytes.count, bytes[i] == 13, bytes[i + 1] == 10 { i += 2 }
        return bytes[i...].starts(with: Array("HEAD ".utf8))
    }

    /// The request bytes with controls escaped, for messages.
    var escaped: String {
        var s = ""
        for b in bytes.prefix(160) {
            switch b {
            case 13: s += "\\r"
            case 10: s += "\\n"
            case 9: s += "\\t"
            case 0x20...0x7E: s.unicodeScalars.append(Unicode.Scalar(b))
            default: s += String(format: "\\x%02x", b)
            }
        }
        return bytes.count > 160 ? s + "…(\(bytes.count) bytes)" : s
    }
}

/// What a suite accepts, as statuses and status classes.
struct Expectation: Sendable, CustomStringConvertible {
    var text: String
    var statuses: Set<Int> = []
    var success = false
    var successOrRedirect = false
    /// Any 4xx or 5xx except 408 (a 408 means we waited instead of seeing an error).
    var anyError = false
    var anyFinal = false
    var closeWithoutResponse = false
    /// A 2xx must say `Connection: close`.
    var announcesClose = false
    /// A 2xx passes only with exactly this body.
    var successBody: String?
    var requiredHeader: String?
    var forbiddenInterim: Set<Int> = []
    var forbidAnyInterim = false
    /// A second response must follow the first, 2xx.
    var secondSuccess = false

    init(text: String) { self.text = text }

    var description: String { text }

    func accepts(_ outcome: ReplayOutcome) -> Bool {
        switch outcome {
        case .silent, .connectFailed: return false
        case .closed: return closeWithoutResponse
        case .response(let r):
            if forbidAnyInterim && !r.interim.isEmpty { return false }
            if !forbiddenInterim.isDisjoint(with: r.interim) { return false }
            if secondSuccess && !(r.secondStatus.map { (200..<300).contains($0) } ?? false) { return false }
            let s = r.status
            if statuses.contains(s) || anyFinal { return true }
            if anyError && (400..<600).contains(s) && s != 408 { return true }
            if successOrRedirect && (200..<400).contains(s) { return true }
            let isSuccess = (200..<300).contains(s)
            if isSuccess && (success || successBody != nil) {
                if let successBody, r.bodyText != successBody { return false }
                if announcesClose && r.header("Connection")?.lowercased() != "close" { return false }
                if let requiredHeader, r.header(requiredHeader) == nil { return false }
                return true
            }
            return false
        }
    }
}

struct ReplayResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var bodyText: String
    var interim: [Int]
    var secondStatus: Int?

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

enum ReplayOutcome: Sendable, CustomStringConvertible {
    case response(ReplayResponse)
    /// The server closed without sending anything.
    case closed
    /// Nothing and no close before the deadline: a hang.
    case silent
    case connectFailed

    var description: String {
        switch self {
        case .response(let r):
            var s = "\(r.status)"
            if !r.interim.isEmpty { s = r.interim.map(String.init).joined(separator: ",") + " then " + s }
            if let second = r.secondStatus { s += " then \(second)" }
            if !r.bodyText.isEmpty && r.bodyText.count < 60 {
                s += " \"\(r.bodyText.trimmingCharacters(in: .whitespacesAndNewlines))\""
            }
            return s
        case .closed: return "connection closed without response"
        case .silent: return "no response before the deadline (hang)"
        case .connectFailed: return "could not connect"
        }
    }
}

/// Sends one vector on a fresh connection and reads the first final response (and a second one
/// when asked), every read bounded by a deadline.
enum Replay {
    static func exchange(_ vector: ConformanceVector, port: Int, deadlineMilliseconds: Int = 5_000) -> ReplayOutcome {
        guard let connection = try? WireConnection(port: port) else { return .connectFailed }
        defer { connection.close() }
        connection.send(vector.bytes)
        var reader = ResponseReader(fd: connection.fd, deadline: WireConnection.now() + deadlineMilliseconds)
        var interim: [Int] = []
        while true {
            switch reader.next(isHead: vector.isHead) {
            case .eof: return .closed
            case .timeout: return .silent
            case .response(let status, let headers, let body):
                if status < 200 {
                    interim.append(status)
                    continue
                }
                var r = ReplayResponse(
                    status: status,
                    headers: headers,
                    bodyText: String(decoding: body, as: UTF8.self),
                    interim: interim
                )
                if vector.expectation.secondSuccess, case .response(let second, _, _) = reader.next(isHead: false) {
                    r.secondStatus = second
                }
                return .response(r)
            }
        }
    }
}

/// A minimal response reader over a raw descriptor: Content-Length framing (what our server
/// sends), EOF and deadlines told apart.
struct ResponseReader {
    enum Item {
        case response(Int, [(String, String)], [UInt8])
        case eof, timeout
    }

    let fd: Int32
    let deadline: Int
    var buffer: [UInt8] = []
    var sawEOF = false

    init(fd: Int32, deadline: Int) {
        self.fd = fd
        self.deadline = deadline
    }

    mutating func next(isHead: Bool) -> Item {
        while true {
            if let end = WireConnection.find([13, 10, 13, 10], in: buffer) {
                let head = WireResponse(head: String(decoding: buffer[0..<end], as: UTF8.self))
                let s = head.status
                let length =
                    (isHead || s < 200 || s == 204 || s == 304) ? 0 : Int(head.header("Content-Length") ?? "0") ?? 0
                if buffer.count >= end + 4 + length {
                    let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                    buffer.removeFirst(end + 4 + length)
                    return .response(s, head.headers, body)
                }
            }
            if sawEOF { return buffer.isEmpty ? .eof : .timeout }
            let remaining = deadline - WireConnection.now()
            if remaining <= 0 { return .timeout }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(min(remaining, 200))) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { buffer += chunk[0..<n] } else if n == 0 || errno != EINTR { sawEOF = true }
        }
    }
}

/// Runs blocking work on dedicated threads (never the cooperative pool, which blocking socket
/// reads would starve), `width` at a time, and returns the results in order.
func runOnThreads<T: Sendable>(count: Int, width: Int, _ work: @escaping @Sendable (Int) -> T) async -> [T] {
    guard count > 0 else { return [] }
    let workers = max(1, min(width, count))
    let box = ThreadPoolBox<T>(count: count, running: workers)
    return await withCheckedContinuation { continuation in
        box.continuation = continuation
        for _ in 0..<workers {
            let thread = Thread {
                while let i = box.take() { box.put(i, work(i)) }
                box.finishWorker()
            }
            thread.start()
        }
    }
}

private final class ThreadPoolBox<T: Sendable>: @unchecked Sendable {
    let lock = NSLock()
    var next = 0
    var results: [T?]
    var running: Int
    var continuation: CheckedContinuation<[T], Never>?
    init(count: Int, running: Int) {
        results = Array(repeating: nil, count: count)
        self.running = running
    }
    func take() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard next < results.count else { return nil }
        next += 1
        return next - 1
    }
    func put(_ i: Int, _ value: T) {
        lock.lock()
        results[i] = value
        lock.unlock()
    }
    func finishWorker() {
        lock.lock()
        running -= 1
        guard running == 0, let done = continuation else {
            lock.unlock()
            return
        }
        let values = results.map { $0! }
        lock.unlock()
        done.resume(returning: values)
    }
}
