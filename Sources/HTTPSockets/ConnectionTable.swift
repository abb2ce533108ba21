/// A loop's connections by descriptor.
///
/// An array indexed by the descriptor rather than a dictionary: the kernel hands out the lowest
/// free descriptor, so they are small dense integers, and the lookup every readiness event and
/// every delivered answer makes is an index instead of a hash (the hash alone was about 75
/// instructions a lookup). The array grows to the highest descriptor the loop has held: eight
/// bytes a descriptor, 80 KB at ten thousand connections.
struct ConnectionTable {
    private var slots: [Connection?] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    subscript(fd: Int32) -> Connection? {
        let index = Int(fd)
        guard index >= 0, index < slots.count else { return nil }
        return slots[index]
    }

    mutating func insert(_ connection: Connection) {
        let index = Int(connection.fd)
        precondition(index >= 0, "a connection without a descriptor")
        if index >= slots.count {
            slots.append(contentsOf: repeatElement(nil, count: max(index + 1, slots.count * 2) - slots.count))
        }
        if slots[index] == nil { count += 1 }
        slots[index] = connection
    }

    /// Forgets `connection` if its descriptor still holds it (not a later connection that reused
    /// the descriptor). Returns whether it did.
    @discardableResult
    mutating func remove(_ connection: Connection) -> Bool {
        let index = Int(connection.fd)
        guard index >= 0, index < slots.count, slots[index] === connection else { return false }
        slots[index] = nil
        count -= 1
        return true
    }

    /// Every connection, in descriptor order, read in place: for walks that change nothing (a
    /// full server looks for its longest-idle connection on every accept; a copy of thousands of
    /// references each time was an allocation and a retain and release per connection).
    var inPlace: some Sequence<Connection> { slots.lazy.compactMap { $0 } }

    /// Every connection, in descriptor order: a copy, so the caller may remove while it walks.
    var all: [Connection] {
        var result: [Connection] = []
        result.reserveCapacity(count)
        for case let connection? in slots { result.append(connection) }
        return result
    }
}
