/// What a descriptor is watched for.
struct Interest: OptionSet, Sendable, Equatable {
    let rawValue: UInt8
    static let read = Interest(rawValue: 1)
    static let write = Interest(rawValue: 2)
}

/// One descriptor the selector found ready.
struct ReadyEvent {
    var fd: Int32 = -1
    var readable = false
    var writable = false
    /// An error or a hang-up: reading will say which (end of file, or a failure).
    var failed = false
}

/// Which readiness mechanism an event loop uses. epoll on Linux and kqueue on macOS scale with
/// the ready descriptors, not the open ones; poll is the portable fallback (kept honest: the
/// connection tests run against it too).
package enum SelectorKind: String, Sendable, CaseIterable {
    case epoll, kqueue, poll

    package static var platformDefault: SelectorKind {
        #if os(Linux)
        .epoll
        #elseif canImport(Darwin)
        .kqueue
        #else
        .poll
        #endif
    }

    /// The selectors this platform has, the default first.
    package static var available: [SelectorKind] {
        #if os(Linux)
        [.epoll, .poll]
        #elseif canImport(Darwin)
        [.kqueue, .poll]
        #else
        [.poll]
        #endif
    }
}

/// The readiness interface of an event loop: interest is registered when a descriptor arrives
/// and changed only when it changes (the loop never rebuilds a set per wake-up). Level-triggered:
/// a descriptor stays ready until its data is read or its buffer has room.
protocol Selector: AnyObject {
    func add(_ fd: Int32, _ interest: Interest) throws(SocketError)
    func change(_ fd: Int32, from old: Interest, to new: Interest) throws(SocketError)
    /// Stops watching an open descriptor altogether. epoll and poll report a hang-up or an error
    /// whatever the interest, so an empty interest does not silence a socket shut both ways:
    /// this does. Nothing may be asked of the descriptor afterwards but `forgetClosed`.
    func unwatch(_ fd: Int32, from old: Interest) throws(SocketError)
    /// After the descriptor was closed. Closing it took it out of epoll's and kqueue's sets (a
    /// socket is never duplicated and is close-on-exec), so only the poll selector, which keeps
    /// its own list, has anything to do. The loops used to ask the kernel to remove it after the
    /// close: a failing system call (EBADF) for every closed connection.
    func forgetClosed(_ fd: Int32)
    /// Waits up to `timeoutMilliseconds` (-1: forever) and replaces `events` with the ready ones.
    /// EINTR is retried inside; any other failure is thrown, never reported as "nothing ready".
    func wait(timeoutMilliseconds: Int32, into events: inout [ReadyEvent]) throws(SocketError)
    func close()
}

enum Selectors {
    static func make(_ kind: SelectorKind) throws(SocketError) -> any Selector {
        switch kind {
        case .poll:
            return PollSelector()
        case .epoll:
            #if os(Linux)
            return try EpollSelector()
            #else
            throw .system(call: "epoll (not on this platform)", errno: 0)
            #endif
        case .kqueue:
            #if canImport(Darwin)
            return try KqueueSelector()
            #else
            throw .system(call: "kqueue (not on this platform)", errno: 0)
            #endif
        }
    }
}
