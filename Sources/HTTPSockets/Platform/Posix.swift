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

/// The syscall funnel: every call retries EINTR here and nowhere else, captures errno at once,
/// maps EAGAIN to `.wouldBlock`, and reports every other failure (never as "nothing happened").
/// Nothing outside Platform/ touches libc.
enum Posix {
    /// Runs `call` until it does not fail with EINTR; a -1 with any other errno throws.
    static func retryingEINTR<T: BinaryInteger>(_ name: String, _ call: () -> T) throws(SocketError) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let e = errno
            if e == EINTR { continue }
            throw .system(call: name, errno: e)
        }
    }

    // MARK: descriptors

    /// Non-blocking and close-on-exec; false (errno kept) if either could not be set.
    @discardableResult
    static func setNonBlockingAndCloseOnExec(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
        return setCloseOnExec(fd)
    }

    @discardableResult
    static func setCloseOnExec(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFD, 0)
        return flags >= 0 && fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0
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

    @discardableResult
    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
        var v = value
        return setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0
    }

    /// Per accepted socket: non-blocking (Linux does not inherit it from the listener),
    /// TCP_NODELAY (no 40 ms Nagle/delayed-ACK stalls) and, on Darwin, SO_NOSIGPIPE. False when
    /// the socket cannot be made non-blocking (it must then be closed: a blocking socket would
    /// stall the loop); the other two are optimisations and only reported by their result.
    static func configureAccepted(_ fd: Int32) -> Bool {
        guard setNonBlockingAndCloseOnExec(fd) else { return false }
        setOption(fd, LibC.ipprotoTCP, TCP_NODELAY, 1)
        #if canImport(Darwin)
        guard setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1) else { return false }
        #endif
        return true
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

    // MARK: wake-ups

    /// A non-blocking, close-on-exec pipe (pipe2 is not exported by Glibc's Swift module).
    static func makePipe() throws(SocketError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .system(call: "pipe", errno: errno) }
        guard setNonBlockingAndCloseOnExec(fds[0]), setNonBlockingAndCloseOnExec(fds[1]) else {
            let e = errno
            close(fds[0])
            close(fds[1])
            throw .system(call: "fcntl on the wake-up pipe", errno: e)
        }
        return (fds[0], fds[1])
    }

    /// One byte into a wake-up pipe. A full pipe already holds a wake-up (EAGAIN is success);
    /// anything else is a broken pipe the caller must hear about.
    static func wake(_ fd: Int32) throws(SocketError) {
        var b: UInt8 = 1
        while true {
            if write(fd, &b, 1) == 1 { return }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return }
            throw .system(call: "write to the wake-up pipe", errno: e)
        }
    }

    /// Empties a wake-up pipe. The mailbox writes at most one byte per wait, so one read
    /// normally does it; a full buffer means more may remain, and only then is there a second.
    static func drain(_ fd: Int32) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            while readFunction(fd, buffer.baseAddress, buffer.count) == buffer.count {}
        }
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

    static func errorDescription(_ code: Int32) -> String {
        guard let s = strerror(code) else { return "errno \(code)" }
        return String(cString: s)
    }

    static func processorCount() -> Int {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? Int(n) : 1
    }

    // Module-qualified C functions: inside `Posix` the short names would resolve to our own.
    #if canImport(Glibc)
    private static let closeFunction = Glibc.close
    private static let sendFunction = Glibc.send
    private static let readFunction = Glibc.read
    static let pollFunction = Glibc.poll
    #elseif canImport(Musl)
    private static let closeFunction = Musl.close
    private static let sendFunction = Musl.send
    private static let readFunction = Musl.read
    static let pollFunction = Musl.poll
    #else
    private static let closeFunction = Darwin.close
    private static let sendFunction = Darwin.send
    private static let readFunction = Darwin.read
    static let pollFunction = Darwin.poll
    #endif
}

extension Posix {
    /// The calling thread's identity, to tell whether code runs on a given event loop.
    static func currentThreadID() -> UInt {
        #if canImport(Glibc)
        UInt(pthread_self())  // pthread_t is an unsigned long
        #else
        UInt(bitPattern: pthread_self())  // a pointer on Darwin and Musl
        #endif
    }
}

extension Posix {
    /// Whether a read of an idle connection would return something (bytes, end of file or an
    /// error) rather than block, without taking any byte: checked before an idle upstream
    /// connection is reused, which it may be only when nothing at all is waiting.
    static func hasPendingInput(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        while true {
            let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            if n >= 0 { return true }
            let e = errno
            if e == EINTR { continue }
            return !(e == EAGAIN || e == EWOULDBLOCK)
        }
    }
}
