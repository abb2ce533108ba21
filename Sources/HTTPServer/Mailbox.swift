import HTTP1
import SystemSupport

/// How other threads reach an event loop: a locked queue of messages and a wake-up pipe the loop
/// watches. Posting writes to the pipe only when the queue was empty, so a burst of completions
/// costs one wake-up.
final class Mailbox: PendingResponseReceiver {
    enum Message: Sendable {
        /// A connection accepted by the accepting loop, handed to this one.
        case adopt(fd: Int32, peer: String)
        /// The server is full and the accepting loop has no idle connection: close this loop's
        /// longest-idle one to make room.
        case evictOne
        /// A pending response of a connection completed.
        case deliver(connection: UInt64, fd: Int32, OutgoingResponse)
        /// A streamed body of a connection has something to take.
        case streamReady(connection: UInt64, fd: Int32)
        /// Work that must run on this loop (the HTTP client's exchanges).
        case task(@Sendable () -> Void)
        case stop
    }

    private struct State {
        var messages: [Message] = []
        /// The loop's thread, once it runs.
        var owner: UInt = 0
    }

    private let state = Locked(State())
    let wakeRead: Int32
    let wakeWrite: Int32
    private let onError: (@Sendable (String) -> Void)?

    init(onError: (@Sendable (String) -> Void)?) throws(SocketError) {
        let pipe = try Posix.makePipe()
        wakeRead = pipe.read
        wakeWrite = pipe.write
        self.onError = onError
    }

    deinit {
        Posix.close(wakeRead)
        Posix.close(wakeWrite)
    }

    /// Called by the loop's thread when it starts.
    func setOwner(_ thread: UInt) { state.withLock { $0.owner = thread } }

    /// From any thread. A message from another thread wakes the loop only when the queue was
    /// empty (one wake-up per burst); one from the loop's own thread (a proxied answer completed
    /// by an upstream connection on the same loop) never does: the loop looks at the queue before
    /// it waits (`hasMessages`), so posting costs no system call.
    func post(_ message: Message) {
        let me = Posix.currentThreadID()
        let wake = state.withLock { s -> Bool in
            s.messages.append(message)
            return s.messages.count == 1 && s.owner != me
        }
        guard wake else { return }
        do {
            try Posix.wake(wakeWrite)
        } catch {
            onError?("event loop wake-up failed: \(error)")
        }
    }

    func receive(_ response: OutgoingResponse, connection: UInt64, fd: Int32) {
        post(.deliver(connection: connection, fd: fd, response))
    }

    /// On the loop, when the wake-up pipe is readable: the pipe is drained before the queue is
    /// taken, so a message posted in between still finds a wake-up waiting.
    func drainAndTake() -> [Message] {
        Posix.drain(wakeRead)
        return take()
    }

    /// On the loop, before it waits: messages posted meanwhile (its own, or others' that found
    /// the queue busy and wrote no wake-up). A wake-up written for them may still be in the pipe;
    /// it costs one empty pass, never a lost message.
    func take() -> [Message] {
        state.withLock { s in
            defer { s.messages.removeAll(keepingCapacity: true) }
            return s.messages
        }
    }

    var hasMessages: Bool { state.withLock { !$0.messages.isEmpty } }
}
