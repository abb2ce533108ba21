import HTTP1
import SystemSupport

/// How other threads reach an event loop: a locked queue of messages and a wake-up pipe the loop
/// watches. Posting writes to the pipe only when the loop is waiting (or about to), and only the
/// first post after it went to wait does: a loop that is busy finds the messages before it waits
/// again, so under load most completions cost no system call at all.
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
        /// From the moment the loop found the queue empty and went to wait until a post wrote a
        /// wake-up or the loop woke by itself.
        var loopIsWaiting = false
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

    /// From any thread. Only the first post after the loop went to wait writes a wake-up; the
    /// loop's own posts (a proxied answer completed by an upstream connection on the same loop)
    /// never do, since the loop is running when it makes them and looks at the queue before it
    /// waits (`readyToWait`).
    func post(_ message: consuming Message) {
        // Moved into the queue, not copied: a delivered response holds several buffers, and a
        // copy would retain each of them once more.
        var carried: Message? = consume message
        let wake = state.withLock { s -> Bool in
            s.messages.append(carried.take()!)
            guard s.loopIsWaiting else { return false }
            s.loopIsWaiting = false  // one wake-up for everything posted until the loop looks again
            return true
        }
        guard wake else { return }
        do {
            try Posix.wake(wakeWrite)
        } catch {
            onError?("event loop wake-up failed: \(error)")
        }
    }

    func receive(_ response: consuming OutgoingResponse, connection: UInt64, fd: Int32) {
        post(.deliver(connection: connection, fd: fd, consume response))
    }

    /// On the loop, when the wake-up pipe is readable. A wake-up written late (its poster was
    /// overtaken by the loop waking for another reason) costs one empty pass, never a message.
    func drainAndTake(into batch: inout [Message]) {
        Posix.drain(wakeRead)
        take(into: &batch)
    }

    /// On the loop: what was posted since it last looked, exchanged for `batch` (which must be
    /// empty). The two arrays trade places, so neither is copied or reallocated: the loop gives
    /// back the emptied batch of its last look, with its capacity, for the next posts.
    func take(into batch: inout [Message]) {
        state.withLock { s in swap(&s.messages, &batch) }
    }

    /// On the loop, just before it waits: false if messages are queued (take them first); true
    /// if none are, and from then on the next post writes a wake-up. Checking and marking under
    /// one lock is what makes a post in between impossible to miss.
    func readyToWait() -> Bool {
        state.withLock { s in
            guard s.messages.isEmpty else { return false }
            s.loopIsWaiting = true
            return true
        }
    }

    /// On the loop, once its wait returned: it is looking again, so posts need not wake it.
    func loopAwoke() { state.withLock { $0.loopIsWaiting = false } }
}
