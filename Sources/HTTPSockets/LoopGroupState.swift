import SystemSupport

/// What the loops of one server share: the connection cap, how many idle connections each
/// holds (for making room when full), and the open long-lived streams.
final class LoopGroupState: Sendable {
    let slots: ConnectionSlots
    private let evictable: Locked<[Int]>
    let streams = Locked(0)

    init(loops: Int, maxConnections: Int) {
        slots = ConnectionSlots(limit: maxConnections)
        evictable = Locked(Array(repeating: 0, count: loops))
    }

    func setEvictable(_ count: Int, loop: Int) { evictable.withLock { $0[loop] = count } }

    var anyEvictable: Bool { evictable.withLock { $0.contains { $0 > 0 } } }

    /// A loop holding an idle connection, `preferring` that one when it does.
    func loopWithEvictable(preferring: Int) -> Int? {
        evictable.withLock { counts in
            if counts[preferring] > 0 {
                counts[preferring] -= 1
                return preferring
            }
            guard let index = counts.firstIndex(where: { $0 > 0 }) else { return nil }
            counts[index] -= 1
            return index
        }
    }
}

/// The server-wide connection cap, shared by the loops. Taken only at accept and close, never
/// per request.
final class ConnectionSlots: Sendable {
    private let limit: Int
    private let used = Locked(0)

    init(limit: Int) { self.limit = limit }

    var hasRoom: Bool { used.withLock { $0 < limit } }
    var count: Int { used.withLock { $0 } }

    func reserve() -> Bool {
        used.withLock { n in
            guard n < limit else { return false }
            n += 1
            return true
        }
    }

    func release(_ count: Int) { used.withLock { $0 -= count } }

    /// Takes a slot even at the limit: a connection replacing one just closed.
    func forceReserve() { used.withLock { $0 += 1 } }
}
