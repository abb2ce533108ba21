import Foundation

/// Hot reload by a cheap poll: every `interval`, the folder's fingerprint (paths, sizes and
/// modification times) is compared with the last one, and a change triggers a full reload.
/// Polling works the same on Linux and macOS (inotify and kqueue differ, and kqueue needs a
/// descriptor per file). The fingerprint is injected: the command line passes the `lstat`-based
/// one from the platform layer, which checks 1,000 files in about a millisecond.
public final class StubFolderWatcher: @unchecked Sendable {
    private let fingerprint: @Sendable () -> [String: String]
    private let interval: TimeInterval
    private let onChange: @Sendable () -> Void
    private let stopped = Guarded(false)
    private var thread: Thread?

    /// `onChange` runs on the watcher's thread after each detected change.
    public init(loader: StubLoader, interval: TimeInterval = 0.25,
                fingerprint: (@Sendable () -> [String: String])? = nil,
                onChange: @escaping @Sendable () -> Void) {
        self.fingerprint = fingerprint ?? { loader.fingerprint() }
        self.interval = interval
        self.onChange = onChange
    }

    public func start() {
        let fingerprint = self.fingerprint, interval = self.interval, onChange = self.onChange, stopped = self.stopped
        let initial = fingerprint()
        let thread = Thread {
            var last = initial
            while !stopped.value {
                Thread.sleep(forTimeInterval: interval)
                if stopped.value { return }
                let now = fingerprint()
                if now != last {
                    last = now
                    onChange()
                }
            }
        }
        thread.name = "stubserver.watch"
        thread.start()
        self.thread = thread
    }

    public func stop() { stopped.value = true }
}
