import HTTP1

/// Streamed bodies: pieces from a producer, framed and written with back-pressure.
extension Connection {
    struct StreamState {
        let stream: BodyStream
        /// Chunked framing (unknown length, HTTP/1.1).
        let chunked: Bool
        /// Bytes still owed when the length was announced.
        var remaining: Int?
        let keepAlive: Bool
        /// Set for a connection handed to another protocol: the stream is its output, unframed,
        /// and what the client sends goes to the upgrade (`ConnectionUpgrades.swift`).
        var upgrade: ConnectionUpgrade? = nil
    }

    func startStream(_ stream: BodyStream, _ prepared: PreparedResponse, _ exchange: Exchange) {
        let allowsBody = PreparedResponse.allowsBody(prepared.status)
        let length = allowsBody ? stream.length : 0
        // Unknown length: chunks for 1.1; for 1.0, the body ends when the connection does.
        let chunked = length == nil && exchange.version.minor >= 1
        var exchange = exchange
        if length == nil && !chunked { exchange.keepAlive = false }
        enqueue(head: prepared, exchange, chunked: chunked && !exchange.isHead)
        guard !exchange.isHead, allowsBody, length != 0 else {
            stream.cancel()
            finishResponse(keepAlive: exchange.keepAlive)
            return
        }
        phase = .streaming(
            StreamState(stream: stream, chunked: chunked, remaining: length, keepAlive: exchange.keepAlive)
        )
        if stream.isLongLived { loop.shared.streams.withLock { $0 += 1 } }
        let mailbox = loop.mailbox
        let id = self.id
        let fd = self.fd
        stream.attach { mailbox.post(.streamReady(connection: id, fd: fd)) }
    }

    /// The producer has written (or ended): take its pieces into the output.
    func pumpStream() {
        guard case .streaming(var state) = phase else { return }
        let batch = state.stream.take(unsent: output.byteCount)
        for piece in batch.pieces where !piece.isEmpty {
            if var remaining = state.remaining {
                // More than the announced length would be read as the next response: cut it.
                guard piece.count <= remaining else {
                    endStream(state, complete: false)
                    return
                }
                remaining -= piece.count
                state.remaining = remaining
            }
            if state.chunked { enqueue(body: Array(String(piece.count, radix: 16).utf8) + [13, 10]) }
            enqueue(body: piece)
            if state.chunked { enqueue(body: [13, 10]) }
        }
        if batch.aborted {
            endStream(state, complete: false, resetting: batch.resets)
        } else if batch.finished {
            // A body shorter than its Content-Length cannot be ended properly: close.
            endStream(state, complete: state.remaining == nil || state.remaining == 0)
        } else {
            phase = .streaming(state)
        }
        flush()
    }

    /// The socket took some output: a producer waiting for room may go on.
    func streamDrained() {
        guard case .streaming(let state) = phase else { return }
        state.stream.drained(unsent: output.byteCount)
    }

    /// Ends the body: properly (last chunk, keep-alive as agreed) or by closing (with a reset
    /// once what was written is out, when `resetting`).
    func endStream(_ state: StreamState, complete: Bool, resetting: Bool = false) {
        if state.stream.isLongLived { loop.shared.streams.withLock { $0 -= 1 } }
        if complete {
            if state.chunked { enqueue(body: Self.lastChunk) }
            finishResponse(keepAlive: state.keepAlive)
        } else {
            state.stream.cancel()
            if resetting {
                phase = .faulting(.reset)
                return
            }
            // What was written stays readable, then the connection ends: the client sees a
            // body cut short.
            phase = .active
            closeWhenFlushed = true
        }
    }

    static let lastChunk = Array("0\r\n\r\n".utf8)
}
