#if canImport(Darwin)
@preconcurrency import Darwin

/// macOS's kqueue: one read and one write filter per descriptor, added once and then enabled or
/// disabled as interest changes (`EV_ENABLE`/`EV_DISABLE`), so a change is one `kevent` call.
final class KqueueSelector: Selector {
    private let kq: Int32
    private var received: [kevent] = Array(repeating: kevent(), count: 1024)

    init() throws(SocketError) {
        let fd = kqueue()
        guard fd >= 0 else { throw .system(call: "kqueue", errno: errno) }
        kq = fd
        Posix.setCloseOnExec(fd)
    }

    func add(_ fd: Int32, _ interest: Interest) throws(SocketError) {
        try apply([
            Self.change(fd, EVFILT_READ, EV_ADD | (interest.contains(.read) ? EV_ENABLE : EV_DISABLE)),
            Self.change(fd, EVFILT_WRITE, EV_ADD | (interest.contains(.write) ? EV_ENABLE : EV_DISABLE)),
        ])
    }

    func change(_ fd: Int32, from old: Interest, to new: Interest) throws(SocketError) {
        var changes: [kevent] = []
        if old.contains(.read) != new.contains(.read) {
            changes.append(Self.change(fd, EVFILT_READ, new.contains(.read) ? EV_ENABLE : EV_DISABLE))
        }
        if old.contains(.write) != new.contains(.write) {
            changes.append(Self.change(fd, EVFILT_WRITE, new.contains(.write) ? EV_ENABLE : EV_DISABLE))
        }
        if !changes.isEmpty { try apply(changes) }
    }

    /// Disabled filters report nothing, an end of file included.
    func unwatch(_ fd: Int32, from old: Interest) throws(SocketError) {
        try change(fd, from: old, to: [])
    }

    /// Closing the descriptor removed its filters (kqueue(2)), so a reused number starts clean.
    func forgetClosed(_ fd: Int32) {}

    func wait(timeoutMilliseconds: Int32, into events: inout [ReadyEvent]) throws(SocketError) {
        events.removeAll(keepingCapacity: true)
        var timeout = timespec(
            tv_sec: Int(timeoutMilliseconds / 1000),
            tv_nsec: Int(timeoutMilliseconds % 1000) * 1_000_000
        )
        let count = try Posix.retryingEINTR("kevent") {
            received.withUnsafeMutableBufferPointer { buffer in
                withUnsafePointer(to: &timeout) { t in
                    kevent(kq, nil, 0, buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds < 0 ? nil : t)
                }
            }
        }
        for i in 0..<Int(count) {
            let e = received[i]
            let failed = e.flags & UInt16(EV_ERROR) != 0
            events.append(
                ReadyEvent(
                    fd: Int32(e.ident),
                    readable: e.filter == Int16(EVFILT_READ),
                    writable: e.filter == Int16(EVFILT_WRITE),
                    failed: failed
                )
            )
        }
    }

    func close() { Posix.close(kq) }

    private static func change(_ fd: Int32, _ filter: Int32, _ flags: Int32) -> kevent {
        kevent(ident: UInt(fd), filter: Int16(filter), flags: UInt16(flags), fflags: 0, data: 0, udata: nil)
    }

    private func apply(_ changes: [kevent]) throws(SocketError) {
        let rc = changes.withUnsafeBufferPointer { kevent(kq, $0.baseAddress, Int32($0.count), nil, 0, nil) }
        if rc < 0 { throw .system(call: "kevent", errno: errno) }
    }
}
#endif
