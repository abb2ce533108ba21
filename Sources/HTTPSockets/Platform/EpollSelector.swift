#if os(Linux)
@preconcurrency import Glibc
import CSystemLinux

/// Linux's epoll, level-triggered, through the `CSystemLinux` shim (Glibc's Swift module does
/// not export epoll). Interest changes are one `epoll_ctl` each, made only when they change.
final class EpollSelector: Selector {
    private let epfd: Int32
    private let capacity = 1024
    private let scratch: UnsafeMutableRawPointer
    private let ready: UnsafeMutablePointer<cstub_ready_event>

    init() throws(SocketError) {
        let fd = cstub_epoll_create()
        guard fd >= 0 else { throw .system(call: "epoll_create1", errno: errno) }
        epfd = fd
        scratch = .allocate(byteCount: Int(cstub_epoll_event_size()) * capacity, alignment: 16)
        ready = .allocate(capacity: capacity)
    }

    deinit {
        scratch.deallocate()
        ready.deallocate()
    }

    func add(_ fd: Int32, _ interest: Interest) throws(SocketError) {
        try control(cstub_epoll_ctl_add, fd, interest)
    }

    func change(_ fd: Int32, from old: Interest, to new: Interest) throws(SocketError) {
        try control(cstub_epoll_ctl_mod, fd, new)
    }

    func unwatch(_ fd: Int32, from old: Interest) throws(SocketError) {
        try control(cstub_epoll_ctl_del, fd, [])
    }

    func forgetClosed(_ fd: Int32) {}

    func wait(timeoutMilliseconds: Int32, into events: inout [ReadyEvent]) throws(SocketError) {
        events.removeAll(keepingCapacity: true)
        let count = try Posix.retryingEINTR("epoll_wait") {
            cstub_epoll_wait(epfd, scratch, ready, Int32(capacity), timeoutMilliseconds)
        }
        for i in 0..<Int(count) {
            let flags = ready[i].events
            events.append(
                ReadyEvent(
                    fd: ready[i].fd,
                    readable: flags & (cstub_epollin | cstub_epollrdhup) != 0,
                    writable: flags & cstub_epollout != 0,
                    failed: flags & (cstub_epollerr | cstub_epollhup) != 0
                )
            )
        }
    }

    func close() { Posix.close(epfd) }

    private func control(_ op: Int32, _ fd: Int32, _ interest: Interest) throws(SocketError) {
        var events: UInt32 = 0
        if interest.contains(.read) { events |= cstub_epollin | cstub_epollrdhup }
        if interest.contains(.write) { events |= cstub_epollout }
        guard cstub_epoll_ctl(epfd, op, fd, events) == 0 else { throw .system(call: "epoll_ctl", errno: errno) }
    }
}
#endif
