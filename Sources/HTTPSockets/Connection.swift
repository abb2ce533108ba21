import HTTP1

/// One client connection. Confined to its event loop's thread: no locks, no sharing.
///
/// Requests are answered strictly in order. While a response waits (a timer, a pending answer,
/// a streamed or dribbled body) no further request is parsed; its bytes stay in `pending`.
/// Nothing called while parsing may touch `pending` (the parser is reading it); callers drop it
/// afterwards. The response side is in `ConnectionResponses.swift` and
/// `ConnectionStreams.swift`, time and shutdown in `ConnectionTimeouts.swift`.
final class Connection {
    enum Phase {
        /// Reading and answering requests.
        case active
        /// A response waits for its delay to pass.
        case delayed(OutgoingResponse, Exchange)
        /// The handler promised an answer; it arrives through the loop's mailbox.
        case awaiting(PendingResponse, Exchange)
        /// A body is being sent in timed pieces.
        case dribbling(Dribble)
        /// A body comes from a producer.
        case streaming(StreamState)
        /// Never answering; reading and discarding until the client leaves.
        case hanging
        /// A fault (reset, empty) waits for the responses queued before it to be written.
        case faulting(ResponseDelivery)
        /// The last response is written and our side shut down; discarding input until the
        /// client closes, so unread request bytes do not turn our close into a reset that
        /// destroys the response before the client reads it.
        case lingering(until: Int64)
        /// A blind `CONNECT` tunnel: bytes relayed to and from an upstream socket.
        case tunneling(TunnelRelay)
        case closed
    }

    /// What the response to one request needs to know about it.
    struct Exchange {
        var isHead: Bool
        var keepAlive: Bool
        var version: HTTPVersion
    }

    struct Dribble {
        var pieces: [[UInt8]]
        /// Told when the last piece is sent, or that the client or the server gave up first.
        var report: DeliveryReport?
        var next: Int
        var intervalMilliseconds: Int64
        var keepAlive: Bool
    }

    static let lingerMilliseconds: Int64 = 2_000
    /// Stop parsing pipelined requests while this much output is unsent (back-pressure).
    static let outputHighWater = 256 * 1024
    /// While an answer is awaited or streamed, input is still read (to notice a client that
    /// leaves) but only this much is held; past it reading stops.
    static let heldInputLimit = 64 * 1024

    let id: UInt64
    let fd: Int32
    let peer: String
    /// Unchecked: a connection lives only in its loop's table and is touched only on the loop's
    /// thread, so the loop always outlives it. A checked `unowned` reference cost an atomic
    /// increment and decrement on every use, a dozen times a request.
    unowned(unsafe) let loop: EventLoop
    // The state a request passes through, changed by mutating calls (parse, append, flush).
    // Unchecked for exclusive access at run time: like the connection, it is touched only on the
    // loop's thread, and nothing called during a change reaches back into the connection (other
    // threads go through the mailbox). Checked, each access cost about 80 instructions in the
    // runtime, some 2,000 a request: 15% of the HTTP layer's own work. The compiler's static
    // checks still apply.
    @exclusivity(unchecked) var phase: Phase = .active
    @exclusivity(unchecked) var parser: RequestParser
    @exclusivity(unchecked) var pending: [UInt8] = []
    @exclusivity(unchecked) var output: OutboundQueue
    /// How bytes reach the parser and the socket: plain, or through TLS (`ConnectionTLS.swift`).
    @exclusivity(unchecked) var transport: ConnectionTransport
    var closeWhenFlushed = false
    /// Set when an answer to `CONNECT` changed what the bytes behind it are (a tunnel): the
    /// parser stops, and what it has not read goes to the tunnel (`handOverPendingToTunnel`).
    var switchedTransport = false
    /// The intercepted `CONNECT` this connection carries, told when the connection ends.
    var interceptedTunnel: ConnectionTunnel?
    var interceptStartedAt: Int64 = 0
    /// Why the connection ends, when not by its client's (or, a blind tunnel's, both sides')
    /// closing: the first reason given wins (`close(because:)`). A tunnel's record, blind or
    /// intercepted, carries it.
    var endReason: String?
    /// When the current request's head began: its first byte other than the empty lines a
    /// client may send before a request (nil between requests). Stray CRLFs do not start the
    /// header clock (a CRLF, a pause, then a request once got 408).
    var requestStartedAt: Int64?
    /// The last progress: a request completed, body bytes consumed, response bytes written.
    /// Bytes that are not progress (empty lines between requests) do not count, so a client
    /// sending a CRLF every few seconds is still idle and times out (it once held a slot forever).
    var lastActivity: Int64
    /// The last time a write took bytes, or the output went from empty to not empty.
    var lastWriteProgress: Int64
    /// What the selector watches for this connection now.
    var registeredInterest: Interest = []

    init(id: UInt64, fd: Int32, peer: String, loop: EventLoop) {
        self.id = id
        self.fd = fd
        self.peer = peer
        self.loop = loop
        self.parser = RequestParser(limits: loop.configuration.limits, peer: peer)
        self.output = OutboundQueue(pool: loop.scratchPool)
        self.transport = loop.configuration.tls == nil ? .plain : .undecided
        self.lastActivity = loop.now
        self.lastWriteProgress = loop.now
    }

    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }
    var isHanging: Bool {
        if case .hanging = phase { return true }
        return false
    }

    /// What to watch for: input while it can be used (or, while an answer is awaited or
    /// streamed, to notice the client leaving), output while some is unsent.
    var interest: Interest {
        var wanted: Interest = []
        switch phase {
        case .active:
            if !closeWhenFlushed && output.byteCount < Self.outputHighWater { wanted.insert(.read) }
        case .streaming(let state) where state.upgrade != nil:
            // A relay whose other side is slow pauses reading (back-pressure toward the client).
            if state.upgrade?.isInputPaused == false { wanted.insert(.read) }
        case .awaiting, .streaming, .delayed, .dribbling:
            if pending.count < Self.heldInputLimit { wanted.insert(.read) }
        case .hanging, .lingering:
            wanted.insert(.read)
        case .tunneling(let relay):
            return relay.clientInterest
        case .faulting, .closed:
            break
        }
        if !output.isEmpty { wanted.insert(.write) }
        return wanted
    }

    // MARK: input

    func handleReadable() {
        switch Posix.read(fd, into: loop.readBuffer) {
        case .wouldBlock:
            return
        case .endOfFile:
            endOfInput()
        case .failed(let code):
            noteEnd(Self.failure(of: .client, code, writing: false))
            endOfInput()
        case .bytes(let n):
            let bytes = UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<n])
            if case .plain = transport { receivePlaintext(bytes) } else { receiveSecure(bytes) }
        }
    }

    /// Request bytes, as the client sent them (decrypted first on a TLS connection).
    func receivePlaintext(_ bytes: UnsafeRawBufferPointer) {
        switch phase {
        case .active:
            receive(bytes)
        case .hanging, .lingering, .closed:
            return  // discarded
        case .streaming(let state) where state.upgrade != nil:
            lastActivity = loop.now
            state.upgrade?.received(Array(bytes))
        case .tunneling(let relay):
            holdFromClient(relay, bytes)
        case .delayed, .dribbling, .awaiting, .streaming, .faulting:
            pending.append(contentsOf: bytes)
        }
    }

    func endOfInput() {
        switch phase {
        case .active where !output.isEmpty:
            // The client half-closed after sending; finish writing what it asked for.
            closeWhenFlushed = true
        case .faulting:
            // Keep going: the client may still read. A write error will end it.
            closeWhenFlushed = true
        case .awaiting, .streaming, .delayed, .dribbling:
            // As nginx does: a client that closes while its answer is being prepared (or held
            // back by a delay, or dribbled) has left; the responder is told (cancellation) so a
            // proxy can drop its upstream request, and a delayed answer is abandoned, not sent.
            close()
        case .tunneling(let relay):
            tunnelClientEnded(relay)
        default:
            close()
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        let wasReadingBody = parser.isReadingBody
        if pending.isEmpty {
            // Common case: parse straight from the loop's read buffer; keep only the leftover.
            let used = bytes.withMemoryRebound(to: UInt8.self) { parseRequests(from: $0) }
            if used < bytes.count, !closeWhenFlushed, !isHanging, !isClosed {
                pending.append(contentsOf: bytes[used...])
            }
        } else {
            pending.append(contentsOf: bytes)
            processPending()
        }
        handOverPendingToUpgrade()
        handOverPendingToTunnel()
        if wasReadingBody || parser.isReadingBody { lastActivity = loop.now }
        updateHeaderClock()
        flush()
    }

    /// Starts the header clock when a head has begun and stops it between requests.
    func updateHeaderClock() {
        // While TLS is being set up the clock times the handshake, which the parser knows
        // nothing of: an intercepted tunnel whose client never sends its ClientHello was left
        // to the idle timeout when the CONNECT's own read stopped the clock here.
        switch transport {
        case .awaitingInterceptedTLS, .handshaking: return
        default: break
        }
        if parser.isMidRequest && !parser.isReadingBody {
            if requestStartedAt == nil { requestStartedAt = loop.now }
        } else {
            requestStartedAt = nil
        }
    }

    func processPending() {
        guard !pending.isEmpty else { return }
        let used = pending.withUnsafeBufferPointer { parseRequests(from: $0) }
        if closeWhenFlushed || isHanging || isClosed {
            pending = []
        } else if used > 0 {
            pending.removeFirst(used)
        }
    }

    /// Parses and answers as many requests as may be answered now; returns bytes consumed.
    private func parseRequests(from input: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0
        // Stops when every byte is consumed: the parser answers `needMore` to no bytes in every
        // state it can be in here, and asking it cost a call after each request (callgrind).
        while offset < input.count, case .active = phase, !closeWhenFlushed,
            output.byteCount < Self.outputHighWater
        {
            let (event, consumed) = parser.parse(UnsafeBufferPointer(rebasing: input[offset...]))
            offset += consumed
            switch event {
            case .needMore:
                if consumed == 0 { return offset }
            case .sendContinue:
                output.append(copying: Self.continueLine)
            case .request:
                requestStartedAt = nil
                lastActivity = loop.now
                respond(to: parser.takeRequest())
                // After CONNECT the bytes that follow are the tunnel's, not requests.
                if switchedTransport { return offset }
            case .failure(let error):
                reject(error)
                return input.count
            }
        }
        return offset
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    // MARK: output

    func flush() {
        guard !isClosed else { return }
        if case .tunneling(let relay) = phase {
            relayToClient(relay)
            return
        }
        if !output.isEmpty {
            let before = output.bytesWritten
            let result = output.flush(to: fd, through: transport.session)
            if output.bytesWritten > before { lastWriteProgress = loop.now }
            switch result {
            case .failed:
                close(because: "writing to the client failed")
                return
            case .blocked:
                streamDrained()
                return
            case .done:
                lastActivity = loop.now
            }
        }
        streamDrained()
        switch phase {
        case .faulting(let fault):
            applyFault(fault)
        case .active:
            if closeWhenFlushed {
                if sealCloseNotify() {
                    flush()
                    return
                }
                Posix.shutdownWrite(fd)
                phase = .lingering(until: loop.now + Self.lingerMilliseconds)
            } else if !pending.isEmpty {
                // Pipelined requests held back by back-pressure or a response that waited.
                processPending()
                updateHeaderClock()
                if !output.isEmpty { flush() }
            }
        default:
            return
        }
    }

    /// Queues bytes, starting the write-stall clock if the output was empty.
    func enqueue(head prepared: PreparedResponse, _ exchange: Exchange, chunked: Bool = false) {
        if output.isEmpty { lastWriteProgress = loop.now }
        output.append(copying: prepared.head)
        if chunked { output.append(copying: Self.chunkedLine) }
        if prepared.carriesDateAndServer {
            // A relayed response keeps the upstream's Date and Server.
            output.append(
                copying: !exchange.keepAlive
                    ? Self.bareEndClose : exchange.version.minor == 0 ? Self.bareEndKeepAlive10 : Self.bareEnd
            )
        } else if !exchange.keepAlive {
            output.append(copying: loop.headEndClose)
        } else if exchange.version.minor == 0 {
            output.append(copying: loop.headEndKeepAlive10)
        } else {
            output.append(copying: loop.headEndKeepAlive)
        }
    }

    func enqueue(body: [UInt8]) {
        if output.isEmpty { lastWriteProgress = loop.now }
        output.append(body: body)
    }

    private static let chunkedLine = Array("Transfer-Encoding: chunked\r\n".utf8)
    private static let bareEnd = Array("\r\n".utf8)
    private static let bareEndKeepAlive10 = Array("Connection: keep-alive\r\n\r\n".utf8)
    private static let bareEndClose = Array("Connection: close\r\n\r\n".utf8)
}
