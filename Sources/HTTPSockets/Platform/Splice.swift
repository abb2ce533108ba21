#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif
#if os(Linux)
import CSystemLinux
#endif

/// A kernel pipe that a relay moves bytes through from one socket to another without copying
/// them into user space (splice(2), Linux only). `make` returns nil elsewhere, or when no pipe
/// can be had (out of descriptors): the relay then copies through a buffer.
struct SplicePipe {
    let readEnd: Int32
    let writeEnd: Int32
    /// How many bytes it holds before a splice into it stops.
    private(set) var capacity: Int
    private(set) var grown = false

    /// What a pipe that fills is asked to hold: a socket's worth of data per splice, fewer
    /// system calls. It starts at the system's default (64 KiB): the larger size is asked for
    /// only once it fills, so idle and light tunnels do not spend the user's pipe pages
    /// (/proc/sys/fs/pipe-user-pages-soft, 64 MiB), past which every new pipe of the user is
    /// small. Refused (past /proc/sys/fs/pipe-max-size, 1 MiB by default, or those pages), the
    /// pipe keeps its size.
    static let grownCapacity: Int32 = 1 << 20

    static func make() -> SplicePipe? {
        #if os(Linux)
        var fds: [Int32] = [-1, -1]
        guard cstub_pipe_nonblocking(&fds) == 0 else { return nil }
        return SplicePipe(readEnd: fds[0], writeEnd: fds[1], capacity: 64 * 1024)
        #else
        return nil
        #endif
    }

    /// Asks once for `grownCapacity`.
    mutating func grow() {
        guard !grown else { return }
        grown = true
        #if os(Linux)
        let granted = cstub_set_pipe_size(writeEnd, Self.grownCapacity)
        if granted > 0 { capacity = Int(granted) }
        #endif
    }

    func close() {
        Posix.close(readEnd)
        Posix.close(writeEnd)
    }
}

extension Posix {
    /// Up to `length` bytes from `from` to `to`, one of them a pipe, never blocking: `.bytes`,
    /// `.endOfFile` (the source socket ended), `.wouldBlock` (source dry or destination full),
    /// or `.failed` (EINVAL or ENOSYS: this kind of descriptor cannot be spliced).
    static func splice(from: Int32, to: Int32, length: Int) -> IOResult {
        #if os(Linux)
        while true {
            let n = cstub_splice(from, to, UInt(length))
            if n > 0 { return .bytes(n) }
            if n == 0 { return .endOfFile }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            return .failed(e)
        }
        #else
        return .failed(ENOSYS)
        #endif
    }

    /// Whether a splice failure says the descriptors cannot be spliced (copy instead).
    static func spliceUnsupported(_ code: Int32) -> Bool { code == EINVAL || code == ENOSYS }

    /// For an event loop's thread, before it runs: splice(2) into a socket whose peer has gone
    /// raises SIGPIPE (it takes no MSG_NOSIGNAL), which would end the process; blocked, the
    /// write fails with EPIPE as every other write here does.
    static func blockBrokenPipeSignal() {
        #if os(Linux)
        _ = cstub_block_sigpipe()
        #endif
    }

    /// ECONNRESET and EPIPE, told apart from other failures of a relayed connection.
    static func isReset(_ code: Int32) -> Bool { code == ECONNRESET }
    static func isBrokenPipe(_ code: Int32) -> Bool { code == EPIPE }
}
