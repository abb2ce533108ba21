import HTTP1

/// What a connection needs from the loop that owns it.
protocol ConnectionContext: AnyObject {
    var handler: HTTPHandler { get }
    var configuration: ServerConfiguration { get }
    var now: Int64 { get }
    var isStopping: Bool { get }
    /// The three ways a head can end, formatted once per second: `Date` and `Server`, the
    /// `Connection` field the response needs (none for a 1.1 keep-alive), the empty line.
    var headEndKeepAlive: [UInt8] { get }
    var headEndKeepAlive10: [UInt8] { get }
    var headEndClose: [UInt8] { get }
    func scheduleTimer(at deadline: Int64, for connection: Connection)
}

/// One client connection. Confined to its event loop's thread: no locks, no sharing.
///
/// Requests are answered strictly in order. While a response waits on a timer (delay, dribble)
/// or hangs, no further request is parsed; its bytes stay in `pending`. Nothing called while
/// parsing may touch `pending` (the parser is reading it); callers drop it afterwards.
final class Connection {
    enum Phase {
        /// Reading and answering requests.
        case active
        /// A response waits for its delay to pass.
        case delayed(Deferred)
        /// A body is being sent in timed pieces.
        case dribbling(Dribble)
        /// Never answering; reading and discarding until the client leaves.
        case hanging
        /// The last response is written and our side shut down; discarding input until the
        /// client closes, so unread request bytes do not turn our close into a reset that
        /// destroys the response before the client reads it.
        case lingering(until: Int64)
        case closed
    }

    struct Deferred {
        var response: OutgoingResponse
        var isHead: Bool
        var keepAlive: Bool
        var version: HTTPVersion
    }

    struct Dribble {
        var pieces: [[UInt8]]
        var next: Int
        var intervalMilliseconds: Int64
        var keepAlive: Bool
    }

    static let lingerMilliseconds: Int64 = 2_000
    /// Stop parsing pipelined requests while this much output is unsent (back-pressure).
    static let outputHighWater = 256 * 1024

    let id: UInt64
    let fd: Int32
    let peer: String
    private(set) var phase: Phase = .active
    private var parser: RequestParser
    private var pending: [UInt8] = []
    private var output = OutboundQueue()
    private var closeWhenFlushed = false
    /// When the current request's head began: its first byte other than the empty lines a
    /// client may send before a request (nil between requests). Stray CRLFs do not start the
    /// header clock (a CRLF, a pause, then a request once got 408).
    private var requestStartedAt: Int64?
    /// The last progress: a request completed, body bytes consumed, response bytes written.
    /// Bytes that are not progress (empty lines between requests) do not count, so a client
    /// sending a CRLF every few seconds is still idle and times out (it once held a slot forever).
    private(set) var lastActivity: Int64

    init(id: UInt64, fd: Int32, peer: String, limits: HTTPParserLimits, now: Int64) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.parser = RequestParser(limits: limits)
        self.lastActivity = now
    }

    var isClosed: Bool { if case .closed = phase { return true }; return false }
    private var isHanging: Bool { if case .hanging = phase { return true }; return false }

    /// The poll interest: read while we can use input, write while output is pending.
    var pollEvents: Int16 {
        var events: Int16 = 0
        switch phase {
        case .active:
            if !closeWhenFlushed && output.byteCount < Self.outputHighWater { events |= Posix.pollIn }
        case .hanging, .lingering:
            events |= Posix.pollIn
        case .delayed, .dribbling, .closed:
            break
        }
        if !output.isEmpty { events |= Posix.pollOut }
        return events
    }

    /// Idle between requests with nothing owed: safe to close at shutdown.
    var isIdle: Bool {
        if case .active = phase { return output.isEmpty && pending.isEmpty && !parser.isMidRequest }
        if case .lingering = phase { return true }
        if case .hanging = phase { return true }
        return false
    }

    // MARK: input

    func handleReadable(_ buffer: UnsafeMutableRawBufferPointer, context: some ConnectionContext) {
        switch Posix.read(fd, into: buffer) {
        case .wouldBlock:
            return
        case .endOfFile, .failed:
            endOfInput(context)
        case .bytes(let n):
            switch phase {
            case .active:
                receive(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), context)
            case .hanging, .lingering:
                return // discarded
            case .delayed, .dribbling:
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            case .closed:
                return
            }
        }
    }

    private func endOfInput(_ context: some ConnectionContext) {
        switch phase {
        case .active where !output.isEmpty:
            // The client half-closed after sending; finish writing what it asked for.
            closeWhenFlushed = true
        case .delayed, .dribbling:
            // Keep going: the client may still read. A write error will end it.
            closeWhenFlushed = true
        default:
            close()
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, _ context: some ConnectionContext) {
        let wasReadingBody = parser.isReadingBody
        if pending.isEmpty {
            // Common case: parse straight from the loop's read buffer; keep only the leftover.
            let used = bytes.withMemoryRebound(to: UInt8.self) { parseRequests(from: $0, context) }
            if used < bytes.count, !closeWhenFlushed, !isHanging { pending.append(contentsOf: bytes[used...]) }
        } else {
            pending.append(contentsOf: bytes)
            processPending(context)
        }
        if wasReadingBody || parser.isReadingBody { lastActivity = context.now }
        updateHeaderClock(context)
        flush(context)
    }

    /// Starts the header clock when a head has begun and stops it between requests.
    private func updateHeaderClock(_ context: some ConnectionContext) {
        if parser.isMidRequest && !parser.isReadingBody {
            if requestStartedAt == nil { requestStartedAt = context.now }
        } else {
            requestStartedAt = nil
        }
    }

    private func processPending(_ context: some ConnectionContext) {
        guard !pending.isEmpty else { return }
        let used = pending.withUnsafeBufferPointer { parseRequests(from: $0, context) }
        if closeWhenFlushed || isHanging || isClosed {
            pending = []
        } else if used > 0 {
            pending.removeFirst(used)
        }
    }

    /// Parses and answers as many requests as may be answered now; returns bytes consumed.
    private func parseRequests(from input: UnsafeBufferPointer<UInt8>, _ context: some ConnectionContext) -> Int {
        var offset = 0
        while case .active = phase, !closeWhenFlushed, output.byteCount < Self.outputHighWater {
            let (event, consumed) = parser.parse(UnsafeBufferPointer(rebasing: input[offset...]))
            offset += consumed
            // `consume`: the request moves out of the event instead of being copied (a copy is a
            // retain and a release for each of its strings and arrays).
            switch consume event {
            case .needMore:
                if consumed == 0 { return offset }
            case .sendContinue:
                output.append(copying: Self.continueLine)
            case .request(var request):
                requestStartedAt = nil
                lastActivity = context.now
                request.peer = peer
                respond(to: request, context)
            case .failure(let error):
                reject(error, context)
                return input.count
            }
        }
        return offset
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    // MARK: responding

    private func respond(to request: IncomingRequest, _ context: some ConnectionContext) {
        let response = context.handler(request)
        let keepAlive = request.wantsKeepAlive && !response.closeConnection && !context.isStopping
        if response.delayMilliseconds <= 0, case .normal = response.delivery {
            // The common case, written at once: no `Deferred` copy of the response.
            writeHead(response.prepared, keepAlive: keepAlive, version: request.version, context)
            if request.method != "HEAD" { output.append(body: response.prepared.body) }
            finishResponse(keepAlive: keepAlive)
            return
        }
        let deferred = Deferred(response: response, isHead: request.method == "HEAD",
                                keepAlive: keepAlive, version: request.version)
        if response.delayMilliseconds > 0 {
            phase = .delayed(deferred)
            context.scheduleTimer(at: context.now + Int64(response.delayMilliseconds), for: self)
        } else {
            deliver(deferred, context)
        }
    }

    private func reject(_ error: HTTPParseError, _ context: some ConnectionContext) {
        context.configuration.onRejection?(peer, error)
        let response = OutgoingResponse.text(error.status, "\(HTTPStatus.reason(error.status)): \(error.reason)\n")
        writeHead(response.prepared, keepAlive: false, version: .http1_1, context)
        output.append(body: response.prepared.body)
        closeWhenFlushed = true
    }

    private func writeHead(_ prepared: PreparedResponse, keepAlive: Bool, version: HTTPVersion, _ context: some ConnectionContext) {
        output.append(copying: prepared.head)
        if !keepAlive {
            output.append(copying: context.headEndClose)
        } else if version.minor == 0 {
            output.append(copying: context.headEndKeepAlive10)
        } else {
            output.append(copying: context.headEndKeepAlive)
        }
    }

    private func deliver(_ deferred: Deferred, _ context: some ConnectionContext) {
        var d = deferred
        // A response that waited through the start of a shutdown must say it is the last.
        if context.isStopping { d.keepAlive = false }
        let prepared = d.response.prepared
        switch d.response.delivery {
        case .normal:
            writeHead(prepared, keepAlive: d.keepAlive, version: d.version, context)
            if !d.isHead { output.append(body: prepared.body) }
            finishResponse(keepAlive: d.keepAlive)
        case .dribble(let chunks, let duration):
            writeHead(prepared, keepAlive: d.keepAlive, version: d.version, context)
            let body = d.isHead ? [] : prepared.body
            let pieces = Self.split(body, into: max(1, chunks))
            guard !pieces.isEmpty else { finishResponse(keepAlive: d.keepAlive); return }
            let interval = Int64(max(0, duration)) / Int64(pieces.count)
            phase = .dribbling(Dribble(pieces: pieces, next: 0, intervalMilliseconds: interval, keepAlive: d.keepAlive))
            context.scheduleTimer(at: context.now + interval, for: self)
        case .reset:
            Posix.setLingerZero(fd)
            close()
        case .closeWithoutResponse:
            output.removeAll()
            close()
        case .rawThenClose(let bytes):
            output.append(body: bytes)
            closeWhenFlushed = true
            phase = .active
        case .hang:
            phase = .hanging
        }
    }

    private func finishResponse(keepAlive: Bool) {
        phase = .active
        if !keepAlive { closeWhenFlushed = true }
    }

    static func split(_ body: [UInt8], into count: Int) -> [[UInt8]] {
        guard !body.isEmpty else { return [] }
        let n = min(count, body.count)
        return (0..<n).map { i in Array(body[(body.count * i / n)..<(body.count * (i + 1) / n)]) }
    }

    /// A timer of this connection fired: a delay ended or the next dribble piece is due.
    func timerFired(_ context: some ConnectionContext) {
        switch phase {
        case .delayed(let d):
            deliver(d, context)
            flush(context)
        case .dribbling(var dribble):
            output.append(body: dribble.pieces[dribble.next])
            dribble.next += 1
            if dribble.next == dribble.pieces.count {
                finishResponse(keepAlive: dribble.keepAlive)
            } else {
                phase = .dribbling(dribble)
                context.scheduleTimer(at: context.now + dribble.intervalMilliseconds, for: self)
            }
            flush(context)
        default:
            return
        }
    }

    // MARK: output

    func flush(_ context: some ConnectionContext) {
        guard !isClosed else { return }
        if !output.isEmpty {
            switch output.flush(to: fd) {
            case .failed:
                close()
                return
            case .blocked:
                return
            case .done:
                lastActivity = context.now
            }
        }
        guard case .active = phase else { return }
        if closeWhenFlushed {
            Posix.shutdownWrite(fd)
            phase = .lingering(until: context.now + Self.lingerMilliseconds)
        } else if !pending.isEmpty {
            // Pipelined requests held back by back-pressure or a delayed response.
            processPending(context)
            updateHeaderClock(context)
            if !output.isEmpty { flush(context) }
        }
    }

    // MARK: time

    /// Applies the header and idle timeouts and the linger deadline.
    func checkTimeouts(_ context: some ConnectionContext) {
        let now = context.now
        switch phase {
        case .lingering(let until):
            if now >= until { close() }
        case .active:
            guard output.isEmpty, !closeWhenFlushed else { return }
            if parser.isReadingBody {
                // A body that stops arriving: no progress for the idle timeout.
                if now - lastActivity >= context.configuration.idleTimeoutMilliseconds {
                    reject(HTTPParseError(.requestTimeout, "the request body stopped arriving"), context)
                    flush(context)
                }
            } else if let started = requestStartedAt {
                if now - started >= context.configuration.headerTimeoutMilliseconds {
                    reject(HTTPParseError(.requestTimeout, "the request did not arrive in time"), context)
                    flush(context)
                }
            } else if now - lastActivity >= context.configuration.idleTimeoutMilliseconds {
                close()
            }
        default:
            return
        }
    }

    /// Between requests with nothing owed and no request begun: the connection a full server
    /// may close to make room for a new client (longest idle first).
    var isEvictable: Bool {
        if case .lingering = phase { return true }
        guard case .active = phase else { return false }
        return output.isEmpty && pending.isEmpty && !parser.isMidRequest && !closeWhenFlushed
    }

    /// At shutdown: idle connections go now; the rest close after their current response.
    func beginShutdown(_ context: some ConnectionContext) {
        if isIdle {
            close()
        } else if case .active = phase, output.isEmpty, !parser.isMidRequest, pending.isEmpty {
            close()
        }
    }

    func close() {
        guard !isClosed else { return }
        phase = .closed
        output.removeAll()
        Posix.close(fd)
    }
}
