#if canImport(SystemSupport)
import SystemSupport
#endif

/// What a handler gives back for one request: the response now (the fast path: nothing is
/// allocated or handed between threads), or a promise of it.
package enum Reply: Sendable {
    case now(OutgoingResponse)
    case later(PendingResponse)
}

/// Where a completed pending response goes: the server's event loop (its mailbox). A protocol
/// rather than a closure, so handing a response over allocates nothing per request.
package protocol PendingResponseReceiver: AnyObject, Sendable {
    func receive(_ response: consuming OutgoingResponse, connection: UInt64, fd: Int32)
}

/// A response that arrives later: a proxy waiting for its upstream, an admin call reading disk.
///
/// The responder creates it, returns `.later(pending)` and calls `complete(_:)` once, from any
/// thread. The server delivers the response on the connection's own loop, in order with the
/// other responses of that connection. If the client goes away or the server stops first, the
/// pending response is cancelled: `isCancelled` turns true and `onCancel` handlers run, so a
/// proxy can drop its upstream request.
///
/// Wrappers of the engine's chain (journal, log, delay, CORS) cannot change a response that does
/// not exist yet; they register `adjust` (changes applied at completion, in registration order:
/// innermost wrapper first) and `observe` (told the final response, or nil if cancelled).
package final class PendingResponse: Sendable {
    private struct State {
        var response: OutgoingResponse?
        var completed = false
        var cancelled = false
        var delivered = false
        var deliver: (@Sendable (OutgoingResponse) -> Void)?
        var receiver: (any PendingResponseReceiver)?
        var connection: UInt64 = 0
        var fd: Int32 = -1
        var cancelHandlers: [@Sendable () -> Void] = []
        var adjustments: [@Sendable (inout OutgoingResponse) -> Void] = []
        var observers: [@Sendable (OutgoingResponse?) -> Void] = []
    }

    private let state = Locked(State())

    package init() {}

    // MARK: The responder's side

    /// Completes with `response`; only the first call counts, and none after a cancellation.
    package func complete(_ response: consuming OutgoingResponse) {
        // Carried through the lock in an optional and moved out of it, never copied: a copy
        // retains the head, the body and the fields once more.
        var carried: OutgoingResponse? = consume response
        var deliver: (@Sendable (OutgoingResponse) -> Void)?
        var receiver: (any PendingResponseReceiver)?
        var observers: [@Sendable (OutgoingResponse?) -> Void] = []
        var connection: UInt64 = 0
        var fd: Int32 = -1
        let handOver = state.withLock { s -> Bool in
            guard !s.completed, !s.cancelled else { return false }
            s.completed = true
            if !s.adjustments.isEmpty {
                for adjust in s.adjustments { adjust(&carried!) }
                s.adjustments = []
            }
            // Completed: cancelling is no longer possible, and its handlers may hold the responder.
            if !s.cancelHandlers.isEmpty { s.cancelHandlers = [] }
            guard s.deliver != nil || s.receiver != nil else {
                s.response = carried.take()  // kept for the server, which has not asked yet
                return false
            }
            s.delivered = true
            (deliver, receiver, connection, fd) = (s.deliver, s.receiver, s.connection, s.fd)
            if !s.observers.isEmpty { observers = s.observers }
            return true
        }
        guard handOver, let response = carried.take() else { return }
        observers.forEach { $0(response) }
        if let receiver { receiver.receive(response, connection: connection, fd: fd) } else { deliver?(response) }
    }

    /// True once the client has gone or the server is stopping: stop working on the answer.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Runs `handler` when the response is cancelled (at once if it already is).
    package func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.cancelled { return true }
            if !s.completed { s.cancelHandlers.append(handler) }
            return false
        }
        if runNow { handler() }
    }

    // MARK: Wrappers

    package func adjust(_ change: @escaping @Sendable (inout OutgoingResponse) -> Void) {
        state.withLock { $0.adjustments.append(change) }
    }

    package func observe(_ observer: @escaping @Sendable (OutgoingResponse?) -> Void) {
        let cancelled = state.withLock { s -> Bool in
            if !s.cancelled { s.observers.append(observer) }
            return s.cancelled
        }
        if cancelled { observer(nil) }
    }

    // MARK: The server's side

    /// Called once, with the completed response (at once, on this thread, if it is already
    /// complete; else on the thread that completes it).
    package func whenComplete(_ deliver: @escaping @Sendable (OutgoingResponse) -> Void) {
        let (ready, observers) = state.withLock { s -> (OutgoingResponse?, [@Sendable (OutgoingResponse?) -> Void]) in
            guard !s.cancelled, !s.delivered else { return (nil, []) }
            guard s.completed, let response = s.response else {
                s.deliver = deliver
                return (nil, [])
            }
            s.delivered = true
            return (response, s.observers)
        }
        if let ready {
            observers.forEach { $0(ready) }
            deliver(ready)
        }
    }

    /// The server's fast form of `whenComplete`: the response goes to `receiver` with the
    /// connection it belongs to, without a closure per request.
    package func whenComplete(send receiver: any PendingResponseReceiver, connection: UInt64, fd: Int32) {
        let (ready, observers) = state.withLock { s -> (OutgoingResponse?, [@Sendable (OutgoingResponse?) -> Void]) in
            guard !s.cancelled, !s.delivered else { return (nil, []) }
            guard s.completed, let response = s.response else {
                (s.receiver, s.connection, s.fd) = (receiver, connection, fd)
                return (nil, [])
            }
            s.delivered = true
            return (response, s.observers)
        }
        if let ready {
            observers.forEach { $0(ready) }
            receiver.receive(ready, connection: connection, fd: fd)
        }
    }

    /// The client went away or the server is stopping. Does nothing once delivered.
    package func cancel() {
        let (handlers, observers) = state.withLock {
            s -> ([@Sendable () -> Void], [@Sendable (OutgoingResponse?) -> Void]) in
            guard !s.cancelled, !s.delivered else { return ([], []) }
            s.cancelled = true
            s.deliver = nil
            s.receiver = nil
            defer {
                s.cancelHandlers = []
                s.observers = []
            }
            return (s.cancelHandlers, s.observers)
        }
        handlers.forEach { $0() }
        observers.forEach { $0(nil) }
    }
}
