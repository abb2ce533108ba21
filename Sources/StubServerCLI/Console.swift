#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Where the command line writes. Request log lines are buffered and flushed by a background
/// thread every few milliseconds, so a burst of requests costs one write, not one per line;
/// everything else (the ready line, errors) is written at once.
final class Console: @unchecked Sendable {
    private let buffered = Locked<[UInt8]>([])
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
        buffered.withLock {
            $0.append(contentsOf: line.utf8)
            $0.append(0x0A)
        }
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
                SystemThread.sleep(milliseconds: 20)
                flush()
            }
        }
    }

    func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
