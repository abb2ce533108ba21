/// A min-heap of deadlines for one event loop. A delayed response is an entry here, not a
/// sleeping thread: the loop's poll timeout is the time to the earliest entry.
struct TimerQueue {
    struct Entry {
        var deadline: Int64
        var sequence: UInt64
        var connectionID: UInt64
        var fd: Int32
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var earliest: Int64? { heap.first?.deadline }

    mutating func schedule(at deadline: Int64, connectionID: UInt64, fd: Int32) {
        nextSequence += 1
        heap.append(Entry(deadline: deadline, sequence: nextSequence, connectionID: connectionID, fd: fd))
        siftUp(heap.count - 1)
    }

    /// Removes and returns every entry due at `now`, earliest first.
    mutating func popDue(now: Int64) -> [Entry] {
        var due: [Entry] = []
        while let first = heap.first, first.deadline <= now {
            due.append(first)
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(0)
            }
        }
        return due
    }

    private func less(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline != b.deadline ? a.deadline < b.deadline : a.sequence < b.sequence
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, less(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, less(heap[right], heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
