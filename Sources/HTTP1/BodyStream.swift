#if canImport(SystemSupport)
import SystemSupport
#endif

/// A response body produced in pieces, with back-pressure: a proxied body arriving from its
/// upstream, server-sent events, a large file read a piece at a time.
///
/// The producer writes from any thread. `write` returns false once a quarter of a megabyte is
/// waiting to reach the client; the producer should then wait for `onWritable`, which runs when
/// the socket has drained below a sixteenth of that, so memory stays bounded however slowly the
/// client reads. The server frames the pieces: as they are with a known length, as chunks when
/// the length is unknown (or until close for an HTTP/1.0 client).
///
/// `finish()` ends the body; `abort()` breaks the connection (the client sees a truncated body,
/// which is what a failed upstream must look like). When the client goes away or the server
/// stops, the stream is cancelled: writes return false and `onCancel` handlers run.
package final class BodyStream: Sendable {
    /// Back-pressure marks, in bytes not yet written to the socket.
    package static let highWater = 256 * 1024
    package static let lowWater = 16 * 1024

    /// nil: unknown, framed by the server.
    package let length: Int?
    /// Long-lived (server-sent events): exempt from the idle timeout, counted by the server,
    /// ended (not cut) when it stops.
    package let isLongLived: Bool

    private struct State {
        var pieces: [[UInt8]] = []
        var queued = 0
        /// Bytes the connection has taken but not yet written.
        var unsent = 0
        var finished = false
        var aborted = false
        /// Aborted with a TCP reset rather than a close (a stub's fault mid-stream).
        var resets = false
        var cancelled = false
        var waitingForRoom = false
        var notify: (@Sendable () -> Void)?
        var writableHandler: (@Sendable () -> Void)?
        var cancelHandlers: [@Sendable () -> Void] = []
        var tap: (@Sendable (Tapped) -> Void)?

        /// Once the body is over, the producer's handlers go: they usually hold the producer,
        /// which holds the stream, and the cycle would keep both (and what the producer was
        /// writing) alive for good.
        mutating func dropProducerHandlers() {
            writableHandler = nil
            cancelHandlers = []
        }
    }

    private let state = Locked(State())

    /// What a tap sees: each piece as written, then how the body ended.
    package enum Tapped: Sendable {
        case bytes([UInt8])
        case finished
        /// Aborted by the producer or cancelled by the client: the body is incomplete.
        case broken
    }

    package init(length: Int? = nil, isLongLived: Bool = false) {
        self.length = length
        self.isLongLived = isLongLived
    }

    // MARK: The producer's side

    /// Queues a piece for the client. Returns false when the producer should wait for
    /// `onWritable` (too much is waiting) or stop (cancelled); the piece is queued either way
    /// unless the stream is cancelled or ended.
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return !isCancelled }
        let (notify, room, tap) = state.withLock {
            s -> ((@Sendable () -> Void)?, Bool, (@Sendable (Tapped) -> Void)?) in
            guard !s.cancelled, !s.finished, !s.aborted else { return (nil, false, nil) }
            let wasEmpty = s.pieces.isEmpty
            s.pieces.append(bytes)
            s.queued += bytes.count
            let room = s.queued + s.unsent < Self.highWater
            if !room { s.waitingForRoom = true }
            return (wasEmpty ? s.notify : nil, room, s.tap)
        }
        tap?(.bytes(bytes))
        notify?()
        return room
    }

    /// Ends the body after what was written.
    package func finish() {
        let (notify, tap) = state.withLock { s -> ((@Sendable () -> Void)?, (@Sendable (Tapped) -> Void)?) in
            guard !s.cancelled, !s.finished, !s.aborted else { return (nil, nil) }
            s.finished = true
            s.dropProducerHandlers()
            defer { s.tap = nil }
            return (s.notify, s.tap)
        }
        tap?(.finished)
        notify?()
    }

    /// Breaks the response off: the connection closes without ending the body properly, after
    /// what was written; with `resetting`, with a TCP reset instead of a clean close.
    package func abort(resetting: Bool = false) {
        let (notify, tap) = state.withLock { s -> ((@Sendable () -> Void)?, (@Sendable (Tapped) -> Void)?) in
            guard !s.cancelled, !s.finished, !s.aborted else { return (nil, nil) }
            s.aborted = true
            s.resets = resetting
            s.dropProducerHandlers()
            defer { s.tap = nil }
            return (s.notify, s.tap)
        }
        tap?(.broken)
        notify?()
    }

    /// Sees every piece written from now on and how the body ends (the recorder keeps proxied
    /// bodies this way). Set it before the producer writes; several taps see it in the order set.
    package func tap(_ observer: @escaping @Sendable (Tapped) -> Void) {
        state.withLock { s in
            // The recorder and the OpenAPI contract may both watch one forwarded body.
            guard let earlier = s.tap else {
                s.tap = observer
                return
            }
            s.tap = { event in
                earlier(event)
                observer(event)
            }
        }
    }

    /// Runs on the connection's loop whenever the client has taken enough after `write`
    /// returned false (and once at the start, when the server is ready for the first piece).
    package func onWritable(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.writableHandler = handler }
    }

    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    package func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if !s.cancelled { s.cancelHandlers.append(handler) }
            return s.cancelled
        }
        if runNow { handler() }
    }

    // MARK: The connection's side

    /// What the connection takes from the stream at one time.
    package struct Batch {
        package var pieces: [[UInt8]]
        package var finished: Bool
        package var aborted: Bool
        /// The abort is a TCP reset.
        package var resets = false
    }

    /// The connection is ready: `notify` (which must hop to the connection's loop) runs when
    /// there is something to take.
    package func attach(notify: @escaping @Sendable () -> Void) {
        let (pending, writable) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
            s.notify = notify
            return (!s.pieces.isEmpty || s.finished || s.aborted, s.writableHandler)
        }
        writable?()
        if pending { notify() }
    }

    /// Takes what is queued; `unsent` is what the connection still holds unwritten.
    package func take(unsent: Int) -> Batch {
        state.withLock { s in
            let batch = Batch(pieces: s.pieces, finished: s.finished, aborted: s.aborted, resets: s.resets)
            s.pieces = []
            s.unsent = unsent + s.queued
            s.queued = 0
            return batch
        }
    }

    /// The connection wrote some: with little left unsent, a waiting producer may go on.
    package func drained(unsent: Int) {
        let handler = state.withLock { s -> (@Sendable () -> Void)? in
            s.unsent = unsent
            guard s.waitingForRoom, s.queued + unsent < Self.lowWater, !s.cancelled else { return nil }
            s.waitingForRoom = false
            return s.writableHandler
        }
        handler?()
    }

    /// The client went away, or the server stops.
    package func cancel() {
        let (handlers, tap) = state.withLock { s -> ([@Sendable () -> Void], (@Sendable (Tapped) -> Void)?) in
            guard !s.cancelled else { return ([], nil) }
            s.cancelled = true
            s.pieces = []
            s.queued = 0
            s.notify = nil
            defer {
                s.dropProducerHandlers()
                s.tap = nil
            }
            return (s.cancelHandlers, s.finished || s.aborted ? nil : s.tap)
        }
        tap?(.broken)
        handlers.forEach { $0() }
    }
}
