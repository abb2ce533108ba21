import HTTP1

/// Time and ending: the header, idle and write-stall timeouts, shutdown, close.
extension Connection {
    /// Applies the timeouts of every state; called a few times a second.
    func checkTimeouts() {
        let now = loop.now
        let configuration = loop.configuration
        if handshakeTimedOut(now: now) {
            let limit = Self.span(configuration.headerTimeoutMilliseconds)
            close(because: "no TLS handshake within \(limit) (the header timeout)")
            return
        }
        if !output.isEmpty, now - lastWriteProgress >= configuration.writeTimeoutMilliseconds {
            // A client that reads nothing of its response cannot hold the slot forever.
            let limit = Self.span(configuration.writeTimeoutMilliseconds)
            close(because: "the client took nothing for \(limit) (the write timeout)")
            return
        }
        switch phase {
        case .lingering(let until):
            if now >= until { close() }
        case .tunneling(let relay):
            tunnelTimedOut(relay, now: now)
        case .active:
            guard output.isEmpty, !closeWhenFlushed else { return }
            if parser.isReadingBody {
                // A body that stops arriving: no progress for the idle timeout.
                if now - lastActivity >= configuration.idleTimeoutMilliseconds {
                    reject(HTTPParseError(.requestTimeout, "the request body stopped arriving"))
                    flush()
                }
            } else if let started = requestStartedAt {
                if now - started >= configuration.headerTimeoutMilliseconds {
                    reject(HTTPParseError(.requestTimeout, "the request did not arrive in time"))
                    flush()
                }
            } else if now - lastActivity >= configuration.idleTimeoutMilliseconds {
                close(because: idleTimeoutReason)
            }
        default:
            // Awaiting an answer, streaming (long-lived streams are exempt from the idle
            // timeout), delayed, dribbling, hanging: the write-stall timeout above is the bound.
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

    /// At shutdown: idle connections go now; long-lived streams are ended; delayed and dribbled
    /// answers are abandoned; the rest close after their current response (or at the end of the
    /// grace period).
    func beginShutdown() {
        noteEnd("the server stopped")
        switch phase {
        case .tunneling(let relay):
            endTunnel(relay, reason: "the server stopped")
        case .lingering, .hanging:
            close()
        case .delayed, .dribbling:
            // A delay or a dribble imitates a slow network: nobody waits for it to end, so the
            // answer is abandoned at once (and journaled so), after what was queued before it.
            flush()
            close()
        case .active:
            if output.isEmpty, !parser.isMidRequest, pending.isEmpty { close() } else { closeWhenFlushed = true }
        case .streaming(let state) where state.stream.isLongLived:
            // Server-sent events never end on their own: end them properly, then close.
            state.stream.cancel()
            pumpStream()
            if case .streaming = phase { endStream(state, complete: true) }
            closeWhenFlushed = true
            flush()
        default:
            return
        }
    }

    /// Closes the descriptor once, saying why (`endReason`, unless one was given already).
    func close(because reason: String) {
        noteEnd(reason)
        close()
    }

    /// Why the connection will end, unless a reason was given already; it ends later (after what
    /// is queued for the client has gone, say).
    func noteEnd(_ reason: String) {
        if endReason == nil { endReason = reason }
    }

    /// The idle timeout's reason, for a tunnel and any connection.
    var idleTimeoutReason: String {
        "idle for \(Self.span(loop.configuration.idleTimeoutMilliseconds)) (the idle timeout)"
    }

    /// A timeout's length as its flag gives it: whole seconds, else milliseconds.
    static func span(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    /// Closes the descriptor once; an answer still awaited or streamed is cancelled, so its
    /// responder knows the client is gone.
    func close() {
        switch phase {
        case .closed:
            return
        case .awaiting(let promise, _):
            promise.cancel()
        case .delayed(let response, _):
            response.deliveryReport?.end(.abandoned)
        case .dribbling(let dribble):
            dribble.report?.end(.abandoned)
        case .streaming(let state):
            if state.stream.isLongLived { loop.shared.streams.withLock { $0 -= 1 } }
            state.stream.cancel()
        case .tunneling(let relay):
            closeTunnel(relay)
        default:
            break
        }
        if let interceptedTunnel { closeInterceptedTunnel(interceptedTunnel) }
        phase = .closed
        output.removeAll()
        pending = []
        Posix.close(fd)
    }
}
