@testable import HTTPSockets
import Testing

/// The loop's scratch buffers go back to the pool after a flush and out again for the next
/// response: the same memory, emptied, never a fresh allocation.
@Suite struct ScratchPoolTests {
    private func address(_ buffer: [UInt8]) -> UnsafeRawPointer? {
        buffer.withUnsafeBytes { $0.baseAddress }
    }

    @Test func aGivenBufferComesBackEmptyWithItsMemory() {
        let pool = ScratchPool()
        var buffer = pool.take()
        buffer.append(contentsOf: Array(repeating: 7, count: 1000))
        let memory = address(buffer)
        let capacity = buffer.capacity
        pool.give(consume buffer)
        let again = pool.take()
        #expect(again.isEmpty)
        #expect(again.capacity == capacity)
        // Regression: the pool emptied a second reference to the buffer, which allocated a new
        // one (and freed the old) for every response.
        #expect(address(again) == memory, "the same storage, not a copy")
    }
}
