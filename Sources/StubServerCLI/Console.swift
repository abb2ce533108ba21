#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SystemSupport

/// Where the command line writes. Request log lines are buffered and flushed by a background
/// thread within a few milliseconds, so a burst of requests costs one write, not one per line;
/// everything else (the ready line, errors) is written at once. The flusher sleeps on a
/// semaphore while nothing is buffered: an idle server wakes no thread (it used to wake the
/// flusher 50 times a second, which a laptop pays for in battery).
final class Console: @unchecked Sendable {
    private let buffered = Locked<[UInt8]>([])
    /// Signalled by the line that finds the buffer empty: the first of a batch.
    private let lineWaiting = DispatchSemaphore(value: 0)
    let colour: Bool

    init() {
        colour = ProcessSignals.isTerminal(1) && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    /// A line on stdout, now.
    func out(_ line: String) {
        let bytes = buffered.withLock { pending -> [UInt8] in
            pending.append(contentsOf: line.utf8)
            pending.append(0x0A)
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        StandardStreams.out(bytes)
    }

    /// A line on stderr, now (stdout's pending lines first, to keep the order).
    func err(_ line: String) {
        flush()
        StandardStreams.err(Array((line + "\n").utf8))
    }

    /// A request log line: written within a few milliseconds.
    func log(_ line: String) {
        let firstOfBatch = buffered.withLock { pending -> Bool in
            let wasEmpty = pending.isEmpty
            pending.append(contentsOf: line.utf8)
            pending.append(0x0A)
            return wasEmpty
        }
        if firstOfBatch { lineWaiting.signal() }
    }

    func flush() {
        let bytes = buffered.withLock { pending -> [UInt8] in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        guard !bytes.isEmpty else { return }
        StandardStreams.out(bytes)
    }

    func startFlushing() {
        SystemThread.start(name: "stubserver.log") { [self] in
            while true {
                lineWaiting.wait()
                // The rest of the batch: lines that come within 20 ms share one write. A signal
                // left over from a batch `err` already flushed costs one empty pass, no more.
                SystemThread.sleep(milliseconds: 20)
                flush()
            }
        }
    }

    func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
