import HTTP1

/// TLS on a connection (`--https`): the transport the connection reads and writes through.
/// On a port that speaks both, the first byte decides: 0x16 starts a TLS handshake (a TLS
/// record of type handshake), anything else is plain HTTP, as before. Everything above (the
/// parser, responses, faults, streams) sees plaintext and never knows which it was: bytes in
/// go through `receiveSecure`, bytes out through `OutboundQueue.flush(to:through:)`.
///
/// The handshake runs inside the loop like everything else, on memory buffers: a garbage or
/// stalled handshake costs this connection's slot until the header timeout, never another
/// client's time.
enum ConnectionTransport {
    case plain
    /// TLS is on and no byte has arrived yet.
    case undecided
    case handshaking(TLSSession)
    case established(TLSSession)
    /// The session failed or ended: input is discarded until the connection closes.
    case finished
    /// An intercepted `CONNECT` was answered: the client must start TLS now, for this
    /// certificate; anything else closes the connection.
    case awaitingInterceptedTLS(TLSServerContext)

    var session: TLSSession? {
        switch self {
        case .handshaking(let session), .established(let session): session
        case .plain, .undecided, .finished, .awaitingInterceptedTLS: nil
        }
    }
}

/// Telling TLS from plain HTTP on a port that speaks both.
package enum TLSSniffing {
    /// The byte every TLS connection starts with: a record of type handshake. No HTTP request
    /// starts with it (a method is a token of letters).
    package static let handshakeRecordType: UInt8 = 0x16

    /// Whether a connection whose first byte is `byte` speaks TLS.
    package static func startsTLS(_ byte: UInt8) -> Bool { byte == handshakeRecordType }
}

extension Connection {
    /// Bytes read from the socket while the transport is not plain.
    func receiveSecure(_ bytes: UnsafeRawBufferPointer) {
        switch transport {
        case .plain:
            receivePlaintext(bytes)
        case .finished:
            return
        case .undecided:
            guard let first = bytes.first, TLSSniffing.startsTLS(first), let tls = loop.configuration.tls,
                let session = TLSSession(server: tls.primary)
            else {
                transport = .plain
                receivePlaintext(bytes)
                return
            }
            transport = .handshaking(session)
            // The header clock covers the handshake: a client that stalls in it is cut off as
            // one that stalls in its request head is.
            requestStartedAt = loop.now
            feed(bytes, session)
        case .awaitingInterceptedTLS(let context):
            guard let first = bytes.first, TLSSniffing.startsTLS(first), let session = TLSSession(server: context)
            else {
                // Not TLS inside a tunnel the client asked to be intercepted: nothing to answer.
                transport = .finished
                pending = []
                output.removeAll()
                close(because: "the client did not start TLS")
                return
            }
            transport = .handshaking(session)
            feed(bytes, session)
        case .handshaking(let session), .established(let session):
            feed(bytes, session)
        }
    }

    private func feed(_ bytes: UnsafeRawBufferPointer, _ session: TLSSession) {
        guard session.feed(bytes) else {
            endSession(because: "the client's TLS records could not be taken")
            return
        }
        if case .handshaking = transport {
            switch session.handshake() {
            case .done:
                transport = .established(session)
                requestStartedAt = nil
                lastActivity = loop.now
            case .needInput:
                output.appendCiphertext(from: session)
                flush()
                return
            case .closed:
                output.appendCiphertext(from: session)
                endSession(because: "the client ended the TLS handshake")
                return
            case .failed(let why):
                // Whatever alert the library wrote (a refused protocol version, say) goes out first.
                output.appendCiphertext(from: session)
                endSession(because: "the TLS handshake failed: \(why)")
                return
            }
        }
        readPlaintext(session)
    }

    /// Decrypts all that the session can give and hands it on; then sends what the session wrote
    /// (TLS 1.3 tickets, alerts) with the connection's own output.
    private func readPlaintext(_ session: TLSSession) {
        reading: while !isClosed {
            let (count, step) = session.read(into: loop.readBuffer)
            if count > 0 {
                receivePlaintext(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
                continue
            }
            switch step {
            case .done, .needInput:
                break reading
            case .closed:
                // close_notify: as a TCP end of input is for a plain connection.
                endOfInput()
                break reading
            case .failed(let why):
                output.appendCiphertext(from: session)
                endSession(because: "TLS failed: \(why)")
                return
            }
        }
        guard !isClosed else { return }
        output.appendCiphertext(from: session)
        flush()
    }

    /// A session that failed: what it still has to say is written, then the connection closes.
    private func endSession(because reason: String) {
        noteEnd(reason)
        transport = .finished
        pending = []
        // Plaintext queued for the session can no longer go out; an alert already sealed can.
        output.dropPlaintext()
        guard case .active = phase, !output.isEmpty else {
            close()
            return
        }
        closeWhenFlushed = true
        flush()
    }

    /// Before our side closes a TLS connection: its close_notify, so the client knows the
    /// response was not cut short. True when there is one to send first.
    func sealCloseNotify() -> Bool {
        guard case .established(let session) = transport else { return false }
        transport = .finished
        session.closeNotify()
        output.appendCiphertext(from: session)
        return !output.isEmpty
    }

    /// A handshake still unfinished at the header timeout: its slot is freed.
    func handshakeTimedOut(now: Int64) -> Bool {
        switch transport {
        case .handshaking, .awaitingInterceptedTLS: break
        default: return false
        }
        guard let started = requestStartedAt else { return false }
        return now - started >= loop.configuration.headerTimeoutMilliseconds
    }
}
