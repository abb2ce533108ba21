import Foundation
@testable import HTTPSockets
import Testing

/// The selectors directly, each one the platform has: what the event loops rely on when a
/// connection closes and its descriptor number comes back for the next one.
@Suite struct SelectorTests {
    /// A closed descriptor leaves every selector by the close itself (`forgetClosed` makes no
    /// system call for epoll or kqueue): the same number, reused at once for another file, is
    /// added without a clash and reported ready for that file, and the old one is never reported.
    @Test func aClosedDescriptorsNumberCanBeAddedAgainAtOnce() throws {
        for kind in SelectorKind.available {
            let selector = try Selectors.make(kind)
            defer { selector.close() }
            let first = try Posix.makePipe()
            try selector.add(first.read, .read)
            var byte: UInt8 = 1
            #expect(write(first.write, &byte, 1) == 1)
            var events: [ReadyEvent] = []
            try selector.wait(timeoutMilliseconds: 1_000, into: &events)
            #expect(events.map(\.fd) == [first.read], "\(kind)")

            // Another pipe (made first, so its numbers differ), its read end then moved onto
            // the number just closed.
            let second = try Posix.makePipe()
            let number = first.read
            close(first.read)
            close(first.write)
            selector.forgetClosed(number)
            #expect(dup2(second.read, number) == number)
            close(second.read)
            defer {
                close(number)
                close(second.write)
            }
            try selector.add(number, .read)  // epoll would say EEXIST had the old one stayed
            try selector.wait(timeoutMilliseconds: 0, into: &events)
            #expect(events.isEmpty, "\(kind): nothing was written to the new pipe: \(events.map(\.fd))")
            #expect(write(second.write, &byte, 1) == 1)
            try selector.wait(timeoutMilliseconds: 1_000, into: &events)
            #expect(events.map(\.fd) == [number], "\(kind)")
            #expect(events.first?.readable == true, "\(kind)")
        }
    }
}
