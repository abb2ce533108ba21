import Foundation
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// A TCP listener on 127.0.0.1 whose connections a test drives itself, byte by byte: the far
/// end of a tunnel or a relay, which must see exactly what was sent, half-closes and resets.
public final class LoopbackListener: @unchecked Sendable {
    public let port: Int
    private let fd: Int32

    public init() throws {
        let s = socket(AF_INET, ScriptedUpstream.streamType, 0)
        guard s >= 0 else { throw WireConnection.Failure.connect(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(s, 16) == 0 else {
            let e = errno
            _ = WireConnection.systemClose(s)
            throw WireConnection.Failure.connect(e)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &length) }
        }
        fd = s
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { _ = WireConnection.systemClose(fd) }

    /// The next connection, within the deadline.
    public func accept(timeoutMilliseconds: Int32 = 10_000) throws -> WireConnection {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, timeoutMilliseconds) > 0 else { throw WireConnection.Failure.timeout }
        #if canImport(Glibc)
        let accepted = Glibc.accept(fd, nil, nil)
        #else
        let accepted = Darwin.accept(fd, nil, nil)
        #endif
        guard accepted >= 0 else { throw WireConnection.Failure.connect(errno) }
        return WireConnection(adopting: accepted)
    }
}

/// Bytes sent from another thread while the test reads: how many went so far, and when all did
/// (or the peer stopped taking them).
public final class BackgroundSend: @unchecked Sendable {
    private let lock = NSLock()
    private var sentSoFar = 0
    private let finished = DispatchSemaphore(value: 0)

    /// Sends `bytes` on `connection` in pieces of `piece`, then half-closes if asked.
    public init(_ bytes: [UInt8], on connection: WireConnection, piece: Int = 64 * 1024, thenShutDown: Bool = false) {
        nonisolated(unsafe) let connection = connection
        Thread.detachNewThread { [self] in
            var offset = 0
            while offset < bytes.count {
                let end = Swift.min(offset + piece, bytes.count)
                guard connection.sendAll(bytes[offset..<end]) else { break }
                offset = end
                lock.withLock { sentSoFar = offset }
            }
            if thenShutDown && offset == bytes.count { connection.shutdownWrite() }
            finished.signal()
        }
    }

    public var sent: Int { lock.withLock { sentSoFar } }

    /// True when the sending ended within the deadline.
    public func wait(timeoutSeconds: Double = 60) -> Bool {
        finished.wait(timeout: .now() + timeoutSeconds) == .success
    }
}

/// Test data that does not repeat at any power-of-two stride, so a byte lost, doubled or moved
/// anywhere shows.
public func patternBytes(_ count: Int, seed: UInt32) -> [UInt8] {
    var state = seed | 1
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}
