#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The outcome of a read or write on a non-blocking descriptor.
enum IOResult: Equatable {
    case bytes(Int)
    case endOfFile
    case wouldBlock
    case failed(Int32)
}

/// The syscall funnel: every call retries EINTR, captures errno at once and maps EAGAIN to
/// `.wouldBlock`. Nothing outside Platform/ touches libc.
enum Posix {
    // MARK: descriptors

    static func setNonBlockingAndCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        let fdFlags = fcntl(fd, F_GETFD, 0)
        if fdFlags >= 0 { _ = fcntl(fd, F_SETFD, fdFlags | FD_CLOEXEC) }
    }

    /// Closes once; EINTR is not retried (the descriptor is gone either way on Linux and Darwin).
    static func close(_ fd: Int32) {
        _ = closeFunction(fd)
    }

    static func shutdownWrite(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_WR)) }
    static func shutdownBoth(_ fd: Int32) { _ = shutdown(fd, Int32(SHUT_RDWR)) }

    /// SO_LINGER with a zero timeout: the next close sends RST instead of FIN.
    static func setLingerZero(_ fd: Int32) {
        var l = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var v = value
        _ = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Per accepted socket: non-blocking (Linux does not inherit it from the listener),
    /// TCP_NODELAY (no 40 ms Nagle/delayed-ACK stalls) and, on Darwin, SO_NOSIGPIPE.
    static func configureAccepted(_ fd: Int32) {
        setNonBlockingAndCloseOnExec(fd)
        setOption(fd, LibC.ipprotoTCP, TCP_NODELAY, 1)
        #if canImport(Darwin)
        setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
    }

    // MARK: I/O

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .endOfFile }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            return .failed(e)
        }
    }

    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let n = sendFunction(fd, bytes.baseAddress, bytes.count, LibC.msgNoSignal)
            if n >= 0 { return .bytes(n) }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            return .failed(e)
        }
    }

    /// Two buffers in one syscall (head and a large body), without SIGPIPE.
    static func send(_ fd: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> IOResult {
        var vectors = [
            iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
            iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count),
        ]
        return vectors.withUnsafeMutableBufferPointer { iov in
            var message = msghdr()
            message.msg_iov = iov.baseAddress
            message.msg_iovlen = numericCast(iov.count)
            while true {
                let n = sendmsg(fd, &message, LibC.msgNoSignal)
                if n >= 0 { return .bytes(n) }
                let e = errno
                if e == EINTR { continue }
                if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
                return .failed(e)
            }
        }
    }

    // MARK: polling

    typealias PollDescriptor = pollfd
    static let pollIn = Int16(POLLIN)
    static let pollOut = Int16(POLLOUT)
    static let pollErrorOrHangup = Int16(POLLERR | POLLHUP | POLLNVAL)

    static func pollDescriptor(_ fd: Int32, _ events: Int16) -> pollfd {
        pollfd(fd: fd, events: events, revents: 0)
    }

    /// Waits for readiness; EINTR counts as a wake with nothing ready.
    static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) -> Int {
        let n = fds.withUnsafeMutableBufferPointer { buf in
            pollFunction(buf.baseAddress, nfds_t(buf.count), timeoutMilliseconds)
        }
        return n < 0 ? 0 : Int(n)
    }

    /// A non-blocking, close-on-exec pipe (pipe2 is not exported by Glibc's Swift module).
    static func makePipe() throws(SocketError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .system(call: "pipe", errno: errno) }
        setNonBlockingAndCloseOnExec(fds[0])
        setNonBlockingAndCloseOnExec(fds[1])
        return (fds[0], fds[1])
    }

    static func writeByte(_ fd: Int32) {
        var b: UInt8 = 1
        _ = write(fd, &b, 1)
    }

    static func drain(_ fd: Int32) {
        var buf = [UInt8](repeating: 0, count: 64)
        while buf.withUnsafeMutableBytes({ readFunction(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    // MARK: clocks

    /// Monotonic milliseconds, for timers and timeouts (never goes back with the wall clock).
    static func monotonicMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Unix seconds, for the Date header.
    static func wallClockSeconds() -> Int { Int(time(nil)) }

    // MARK: process

    /// For the command-line tool only: a library must not change the host's signal handling.
    static func ignoreSIGPIPE() { _ = signal(SIGPIPE, SIG_IGN) }

    /// Raises the soft descriptor limit to the hard one (macOS starts at 256).
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(LibC.rlimitNoFile, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = min(limit.rlim_max, 65_536)
        _ = setrlimit(LibC.rlimitNoFile, &limit)
    }

    static func errorDescription(_ code: Int32) -> String {
        guard let s = strerror(code) else { return "errno \(code)" }
        return String(cString: s)
    }

    // Module-qualified C functions: inside `Posix` the short names would resolve to our own.
    #if canImport(Glibc)
    private static let closeFunction = Glibc.close
    private static let sendFunction = Glibc.send
    private static let readFunction = Glibc.read
    private static let pollFunction = Glibc.poll
    #elseif canImport(Musl)
    private static let closeFunction = Musl.close
    private static let sendFunction = Musl.send
    private static let readFunction = Musl.read
    private static let pollFunction = Musl.poll
    #else
    private static let closeFunction = Darwin.close
    private static let sendFunction = Darwin.send
    private static let readFunction = Darwin.read
    private static let pollFunction = Darwin.poll
    #endif
}

extension Posix {
    static func processorCount() -> Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? Int(n) : 1
    }
}
