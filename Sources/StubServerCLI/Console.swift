import Foundation
import HTTPServer
import SystemSupport

/// Where the command line writes. Request log lines are buffered and flushed by a background
/// thread every few milliseconds, so a burst of requests costs one write, not one per line;
/// everything else (the ready line, errors) is written at once.
final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private var buffered: [UInt8] = []
    private var flusher: Thread?
    let colour: Bool

    init() {
        colour = ProcessSignals.isTerminal(1) && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    /// A line on stdout, now.
    func out(_ line: String) {
        lock.lock()
        buffered.append(contentsOf: line.utf8)
        buffered.append(0x0A)
        let bytes = buffered
        buffered.removeAll(keepingCapacity: true)
        lock.unlock()
        FileHandle.standardOutput.write(Data(bytes))
    }

    /// A line on stderr, now (stdout's pending lines first, to keep the order).
    func err(_ line: String) {
        flush()
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// A request log line: written within a few milliseconds.
    func log(_ line: String) {
        lock.lock()
        buffered.append(contentsOf: line.utf8)
        buffered.append(0x0A)
        lock.unlock()
    }

    func flush() {
        lock.lock()
        guard !buffered.isEmpty else { lock.unlock(); return }
        let bytes = buffered
        buffered.removeAll(keepingCapacity: true)
        lock.unlock()
        FileHandle.standardOutput.write(Data(bytes))
    }

    func startFlushing() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.02)
                flush()
            }
        }
        thread.name = "stubserver.log"
        thread.start()
        flusher = thread
    }

    func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
