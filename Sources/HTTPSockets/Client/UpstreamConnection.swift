import HTTP1

/// One connection to an upstream, confined to its event loop's thread like a server
/// `Connection`: it connects, writes one request at a time, parses the response and streams its
/// body to the caller, then goes back to the loop's pool of idle connections when the response
/// allows it (RFC 9112 §9.3).
final class UpstreamConnection {
    /// `tunnel`: the upstream switched protocols (`101`); bytes pass both ways unparsed.
    enum Phase { case connecting, handshaking, sending, awaitingHead, body, idle, tunnel, closed }

    let id: UInt64
    let fd: Int32
    let endpoint: ClientEndpoint
    /// The address it connected to: where a request retried after it turned out closed goes.
    let address: SocketAddress
    unowned(unsafe) let loop: EventLoop  // unchecked, as `Connection.loop` is: the loop outlives it
    var phase: Phase
    var registeredInterest: Interest = []
    private var parser = ResponseParser()
    /// Bytes for the socket: the request as it is, or the TLS session's ciphertext.
    var outbound: [UInt8] = []
    private var sent = 0
    /// Over TLS: the session, the request not yet given to it, and room for plaintext out.
    let tls: TLSSession?
    var plaintext: [UInt8] = []
    let plainBuffer: UnsafeMutableRawBufferPointer?
    private var pending: [UInt8] = []
    var exchange: UpstreamExchange?
    private var stream: BodyStream?
    private var head: ResponseHead?
    /// A head whose body is still arriving within the read being parsed (see `openStream`).
    private var held: (head: ResponseHead, milliseconds: Int64, body: [UInt8])?
    /// Reading paused: the caller's stream is full (back-pressure toward the upstream).
    private var paused = false
    private var startedAt: Int64 = 0
    private(set) var lastProgress: Int64
    /// The deadline of this connection's pending timer entry, if one is pending.
    private var armedDeadline: Int64?
    /// Used before: a closed-while-idle surprise is retried once for idempotent requests.
    private var reused = false
    /// After a `101`: the upgraded connection as its owner sees it (`UpstreamConnection+Tunnel`).
    var tunnel: ConnectionUpgrade?
    /// The tunnel's owner ended it: close once what it gave has been written.
    var tunnelEnding = false

    init(
        id: UInt64,
        fd: Int32,
        endpoint: ClientEndpoint,
        address: SocketAddress,
        loop: EventLoop,
        connecting: Bool,
        tls: TLSSession?
    ) {
        self.id = id
        self.fd = fd
        self.endpoint = endpoint
        self.address = address
        self.loop = loop
        self.tls = tls
        // TLS records carry at most 16 KiB of plaintext.
        self.plainBuffer = tls == nil ? nil : .allocate(byteCount: 16 * 1024, alignment: 16)
        self.phase = connecting ? .connecting : (tls == nil ? .sending : .handshaking)
        self.lastProgress = loop.now
    }

    deinit { plainBuffer?.deallocate() }

    var isClosed: Bool { phase == .closed }

    var interest: Interest {
        var wanted: Interest
        switch phase {
        case .connecting: return .write
        case .handshaking, .sending, .awaitingHead, .idle: wanted = .read
        case .body: wanted = paused ? [] : .read
        case .tunnel: wanted = tunnel?.isInputPaused == true ? [] : .read
        case .closed: return []
        }
        if sent < outbound.count { wanted.insert(.write) }
        return wanted
    }

    // MARK: exchanges

    /// Starts an exchange on this connection (new, or taken from the pool).
    func begin(_ exchange: UpstreamExchange, reused: Bool) {
        self.exchange = exchange
        self.reused = reused
        startedAt = loop.now
        lastProgress = loop.now
        head = nil
        var headers = exchange.request.headers
        let body = exchange.request.body
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(exchange.request.method) {
            headers.set("Content-Length", String(body.count))
        }
        var request: [UInt8]
        do {
            request = try RequestHeadEncoder(unsafeValues: .replaceWithSpace).encode(
                method: exchange.request.method,
                target: exchange.request.target,
                headers: headers
            )
        } catch {
            fail(.response("the request cannot be sent: \(error)"), retry: false)
            return
        }
        request += body
        if tls == nil {
            outbound = request
            sent = 0
        } else {
            plaintext = request
        }
        parser.expectResponse(toMethod: exchange.request.method, upgrading: exchange.request.upgrade)
        // Every exchange gets its deadline, on a pooled connection too: one once ran on the
        // timer left from the connection's previous exchange, and after that had fired (the
        // connection idle for longer than the timeout) it had none and waited for ever.
        armTimer(at: loop.now + exchange.timeoutMilliseconds)
        let task = exchange.task
        let mailbox = loop.mailbox
        let id = self.id
        let fd = self.fd
        let loop = self.loop
        task.whenCancelled { mailbox.post(.task { loop.cancelUpstream(id: id, fd: fd) }) }
        switch phase {
        case .connecting:
            return
        case .handshaking:
            advanceHandshake()
        default:
            phase = .sending
            encrypt()
            flush()
        }
    }

    /// The caller gave up (its client left): this connection's byte stream is mid-exchange and
    /// cannot be reused.
    func cancel() {
        stream?.cancel()
        close()
    }

    // MARK: readiness

    func handleWritable() {
        switch phase {
        case .connecting:
            let error = ClientSockets.connectionError(fd)
            guard error == 0 else {
                // Refused: the name's next address, if it has one.
                if let exchange, let next = exchange.nextAddress() {
                    self.exchange = nil
                    close()
                    loop.connect(exchange, to: next)
                    return
                }
                fail(.connect("\(endpoint): \(Posix.errorDescription(error))"), retry: false)
                return
            }
            if tls == nil {
                phase = .sending
                flush()
            } else {
                phase = .handshaking
                advanceHandshake()
            }
        case .closed:
            return
        default:
            flush()
        }
    }

    /// Sends what the socket takes of `outbound`; once the whole request has gone, waits for
    /// the head.
    func flush() {
        while sent < outbound.count {
            let result = outbound.withUnsafeBytes { Posix.send(fd, UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            switch result {
            case .bytes(let n):
                sent += n
                lastProgress = loop.now
            case .wouldBlock:
                return
            case .endOfFile, .failed:
                fail(.response("\(endpoint) closed the connection while the request was sent"), retry: reused)
                return
            }
        }
        outbound = []
        sent = 0
        if phase == .sending && plaintext.isEmpty { phase = .awaitingHead }
        if phase == .tunnel { tunnelFlushed() }
    }

    func handleReadable() {
        switch Posix.read(fd, into: loop.readBuffer) {
        case .wouldBlock:
            return
        case .endOfFile, .failed:
            inputEnded()
        case .bytes(let n):
            lastProgress = loop.now
            let bytes = UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<n])
            if let tls { decrypt(bytes, tls) } else { receive(bytes) }
        }
    }

    /// The upstream closed its side: the response ends here (a body delimited by the close),
    /// or it is cut short.
    func inputEnded() {
        switch phase {
        case .idle, .tunnel:
            close()
        case .connecting, .handshaking:
            fail(.connect("\(endpoint) closed the connection during the TLS handshake"), retry: false)
        default:
            handle(parser.endOfInput(), input: UnsafeBufferPointer(start: nil, count: 0))
            if !isClosed && phase != .idle { close() }
        }
    }

    /// Response bytes (plaintext): parsed now, or kept until the rest of a head arrives.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        if phase == .idle {
            close()
            return
        }  // bytes nobody asked for: the stream is off
        if phase == .tunnel {
            tunnel?.received(Array(bytes))
            return
        }
        if pending.isEmpty {
            let used = bytes.withMemoryRebound(to: UInt8.self) { parse($0) }
            if used < bytes.count, !isClosed { pending.append(contentsOf: bytes[used...]) }
        } else {
            pending.append(contentsOf: bytes)
            let used = pending.withUnsafeBufferPointer { parse($0) }
            if isClosed { pending = [] } else { pending.removeFirst(used) }
        }
        if phase == .tunnel, !pending.isEmpty {
            // Sent right behind the 101: the new protocol's first bytes.
            let early = pending
            pending = []
            tunnel?.received(early)
        }
        // The body goes on past this read: the client gets the head and what came, now.
        if held != nil, !isClosed { openStream() }
    }

    /// Parses what has arrived; returns the bytes consumed.
    private func parse(_ input: UnsafeBufferPointer<UInt8>) -> Int {
        var offset = 0
        while !isClosed, phase != .idle, phase != .tunnel {
            let (event, consumed) = parser.parse(UnsafeBufferPointer(rebasing: input[offset...]))
            let base = offset
            offset += consumed
            if case .needMore = event, consumed == 0 { return offset }
            handle(event, input: input, base: base, unread: input.count - offset)
        }
        return offset
    }

    /// `unread`: bytes of `input` after this event's. Any after a response's end mean the
    /// upstream sent more than the response it owed (a body longer than its Content-Length, a
    /// body on a HEAD or 204 answer): those bytes would be read as the next request's response,
    /// so the connection closes instead of going back to the pool.
    private func handle(
        _ event: ResponseParser.Event,
        input: UnsafeBufferPointer<UInt8>,
        base: Int = 0,
        unread: Int = 0
    ) {
        switch event {
        case .needMore, .informational:
            return
        case .head(let received):
            head = received
            let milliseconds = loop.now - startedAt
            if received.status == 101 {
                // The parser gives a 101 as a head only to a request that offered an upgrade.
                switchProtocols(received, milliseconds: milliseconds)
            } else if received.framing == .none {
                exchange?.answer(.success(ClientResponse(head: received, body: .none, milliseconds: milliseconds)))
            } else {
                // Held until this read is parsed: a body that arrives whole with its head (most
                // API answers) goes out as bytes, with no stream to set up and hop through.
                phase = .body
                held = (received, milliseconds, [])
            }
        case .body(let range):
            let piece = UnsafeBufferPointer(rebasing: input[(base + range.lowerBound)..<(base + range.upperBound)])
            if held != nil {
                held!.body.append(contentsOf: piece)
                if held!.body.count > Self.heldBodyLimit { openStream() }
            } else if let stream, !stream.write(Array(piece)) {
                paused = !stream.isCancelled
            }
        case .end:
            if let whole = held {
                held = nil
                exchange?.answer(
                    .success(
                        ClientResponse(head: whole.head, body: .complete(whole.body), milliseconds: whole.milliseconds)
                    )
                )
            }
            stream?.finish()
            stream = nil
            let reusable = (head?.connectionReusable ?? false) && unread == 0
            exchange?.task.done()
            exchange = nil
            if reusable && !loop.isStopping {
                phase = .idle
                loop.poolUpstream(self)
            } else {
                close()
            }
        case .failure(let error):
            fail(.response("\(endpoint): \(error.reason)"), retry: error.kind == .noResponse && reused)
        }
    }

    /// The largest body answered whole; past it (or when a read ends before the body does) the
    /// body streams.
    static let heldBodyLimit = 64 * 1024

    /// Answers the held head with a stream, starting with what arrived so far.
    private func openStream() {
        guard let (received, milliseconds, early) = held else { return }
        held = nil
        let stream = BodyStream(length: { if case .length(let n) = received.framing { n } else { nil } }())
        let mailbox = loop.mailbox
        let id = self.id
        let fd = self.fd
        let loop = self.loop
        stream.onWritable { mailbox.post(.task { loop.resumeUpstream(id: id, fd: fd) }) }
        stream.onCancel { mailbox.post(.task { loop.cancelUpstream(id: id, fd: fd) }) }
        self.stream = stream
        exchange?.answer(.success(ClientResponse(head: received, body: .stream(stream), milliseconds: milliseconds)))
        if !early.isEmpty, !stream.write(early) { paused = !stream.isCancelled }
    }

    /// The caller's stream has room again.
    func resume() {
        paused = false
    }

    // MARK: ending

    /// Before a response head: the caller hears why (or, for an idempotent request on a reused
    /// connection the upstream had closed, it is sent again on a new one). After it: the body is
    /// cut off (the client sees it end early, as it would from the upstream).
    func fail(_ failure: ClientFailure, retry: Bool) {
        let exchange = self.exchange
        self.exchange = nil
        if held != nil {
            // Nothing has gone to the client yet: it hears why instead of a cut body.
            held = nil
            exchange?.answer(.failure(failure))
            close()
            return
        }
        if let stream {
            stream.abort()
            self.stream = nil
        } else if let exchange {
            if retry, exchange.isIdempotent, head == nil {
                close()
                // Here: an exchange sent on a pooled connection has no address of its own.
                loop.startExchange(exchange, address: address)
                return
            }
            exchange.answer(.failure(failure))
        }
        close()
    }

    /// A timer of this connection: no head in time, or a body that stopped arriving.
    /// `deadline`: the entry's. Only the entry armed last counts; one it replaced (a later
    /// deadline) is ignored when it comes due.
    func timerFired(deadline: Int64) {
        guard deadline == armedDeadline else { return }
        armedDeadline = nil
        guard let exchange, !isClosed else { return }
        let timeout = exchange.timeoutMilliseconds
        if loop.now - lastProgress >= timeout || (head == nil && loop.now - startedAt >= timeout) {
            fail(.timeout(timeout), retry: false)
        } else {
            armTimer(at: min(lastProgress, head == nil ? startedAt : lastProgress) + timeout)
        }
    }

    /// One entry in the loop's timers per connection, not one per exchange (a busy pooled
    /// connection would pile up one per request): an entry already due sooner stays, and when
    /// it fires it arms the one the exchange then needs.
    private func armTimer(at deadline: Int64) {
        if let armed = armedDeadline, armed <= deadline { return }
        armedDeadline = deadline
        loop.scheduleUpstreamTimer(at: deadline, for: self)
    }

    func close() {
        guard !isClosed else { return }
        phase = .closed
        stream?.abort()
        stream = nil
        // The upstream's side of a tunnel has ended: its owner hears it as a client leaving.
        tunnel?.output.cancel()
        tunnel = nil
        exchange?.task.done()
        Posix.close(fd)
    }
}
