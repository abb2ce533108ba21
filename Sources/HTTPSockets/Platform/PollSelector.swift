#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The portable selector: `poll` over an array kept between waits (a descriptor's slot is
/// changed in place, never rebuilt), so only the kernel's scan is O(descriptors).
final class PollSelector: Selector {
    private var descriptors: [pollfd] = []
    private var slots: [Int32: Int] = [:]

    func add(_ fd: Int32, _ interest: Interest) throws(SocketError) {
        slots[fd] = descriptors.count
        descriptors.append(pollfd(fd: fd, events: Self.events(interest), revents: 0))
    }

    func change(_ fd: Int32, from old: Interest, to new: Interest) throws(SocketError) {
        guard let slot = slots[fd] else { return }
        descriptors[slot].events = Self.events(new)
    }

    func unwatch(_ fd: Int32, from old: Interest) throws(SocketError) { forgetClosed(fd) }

    func forgetClosed(_ fd: Int32) {
        guard let slot = slots.removeValue(forKey: fd) else { return }
        let last = descriptors.count - 1
        if slot != last {
            descriptors[slot] = descriptors[last]
            slots[descriptors[slot].fd] = slot
        }
        descriptors.removeLast()
    }

    func wait(timeoutMilliseconds: Int32, into events: inout [ReadyEvent]) throws(SocketError) {
        events.removeAll(keepingCapacity: true)
        let count = try Posix.retryingEINTR("poll") {
            descriptors.withUnsafeMutableBufferPointer {
                Posix.pollFunction($0.baseAddress, nfds_t($0.count), timeoutMilliseconds)
            }
        }
        guard count > 0 else { return }
        for d in descriptors where d.revents != 0 {
            events.append(
                ReadyEvent(
                    fd: d.fd,
                    readable: d.revents & Int16(POLLIN) != 0,
                    writable: d.revents & Int16(POLLOUT) != 0,
                    failed: d.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0
                )
            )
        }
    }

    func close() {}

    private static func events(_ interest: Interest) -> Int16 {
        (interest.contains(.read) ? Int16(POLLIN) : 0) | (interest.contains(.write) ? Int16(POLLOUT) : 0)
    }
}
