import Foundation
@testable import HTTPSockets
import Testing

/// The mailbox's wake-up rule: a post writes to the pipe only when the loop said it is about to
/// wait, and only once per wait. A lost wake-up would not fail the wire tests (the loop wakes at
/// least once a second anyway); it would only make answers late, so it is checked here directly.
@Suite struct MailboxTests {
    /// Bytes waiting in the wake-up pipe, read without blocking.
    private func pendingWakeUps(_ mailbox: Mailbox) -> Int {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { read(mailbox.wakeRead, $0.baseAddress, $0.count) }
        return max(0, n)
    }

    /// How many messages the loop would handle now (the batch it gets back is then emptied, as
    /// the loop empties it).
    private func takeCount(_ mailbox: Mailbox) -> Int {
        var batch: [Mailbox.Message] = []
        mailbox.take(into: &batch)
        return batch.count
    }

    @Test func aPostToAWaitingLoopWakesItOnce() throws {
        let mailbox = try Mailbox(onError: nil)
        #expect(mailbox.readyToWait())
        mailbox.post(.task {})
        mailbox.post(.task {})
        #expect(pendingWakeUps(mailbox) == 1, "the first post wakes the loop, the second finds it woken")
        #expect(takeCount(mailbox) == 2)
    }

    @Test func aPostToARunningLoopWritesNothingAndIsFoundBeforeItWaits() throws {
        let mailbox = try Mailbox(onError: nil)
        #expect(mailbox.readyToWait())
        mailbox.loopAwoke()  // woke for a socket, not for the mailbox
        mailbox.post(.task {})
        #expect(pendingWakeUps(mailbox) == 0)
        #expect(!mailbox.readyToWait(), "the loop must take the message before it waits")
        #expect(takeCount(mailbox) == 1)
        #expect(mailbox.readyToWait())
        mailbox.post(.task {})
        #expect(pendingWakeUps(mailbox) == 1, "waiting again: the next post wakes it")
    }

    @Test func postsFromManyThreadsAreAllTakenWithOneWakeUpPerWait() async throws {
        let mailbox = try Mailbox(onError: nil)
        var taken = 0
        #expect(mailbox.readyToWait())
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { for _ in 0..<500 { mailbox.post(.task {}) } } }
        }
        let wakeUps = pendingWakeUps(mailbox)
        mailbox.loopAwoke()
        while !mailbox.readyToWait() { taken += takeCount(mailbox) }
        #expect(taken == 4_000)
        #expect(wakeUps == 1)
    }

    /// The loop and the mailbox trade arrays: what the loop hands back (emptied, with its
    /// capacity) receives the next posts, so a busy loop allocates no array per look.
    @Test func takingTradesTheLoopsEmptiedBatchForThePosts() throws {
        let mailbox = try Mailbox(onError: nil)
        var batch: [Mailbox.Message] = []
        batch.reserveCapacity(64)
        let lent = batch.withUnsafeBufferPointer { $0.baseAddress }
        mailbox.take(into: &batch)  // the mailbox now holds the loop's 64-slot array
        #expect(batch.isEmpty)
        for _ in 0..<10 { mailbox.post(.evictOne) }
        mailbox.take(into: &batch)
        #expect(batch.count == 10)
        #expect(batch.withUnsafeBufferPointer { $0.baseAddress } == lent, "the posts went into the lent array")
    }
}
