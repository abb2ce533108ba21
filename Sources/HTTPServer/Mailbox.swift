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

    private let queue = Locked<[Message]>([])
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

    /// From any thread.
    func post(_ message: Message) {
        let first = queue.withLock { q -> Bool in
            q.append(message)
            return q.count == 1
        }
        guard first else { return }
        do {
            try Posix.wake(wakeWrite)
        } catch {
            onError?("event loop wake-up failed: \(error)")
        }
    }

    func receive(_ response: OutgoingResponse, connection: UInt64, fd: Int32) {
        post(.deliver(connection: connection, fd: fd, response))
    }

    /// On the loop: the pipe is drained before the queue is taken, so a message posted in
    /// between still finds a wake-up waiting.
    func take() -> [Message] {
        Posix.drain(wakeRead)
        return queue.withLock { q in
            defer { q.removeAll(keepingCapacity: true) }
            return q
        }
    }
}
