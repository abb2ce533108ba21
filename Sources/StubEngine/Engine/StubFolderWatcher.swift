import Foundation

/// Hot reload by a cheap poll: every `interval`, the folder's fingerprint (paths, sizes and
/// modification times) is compared with the last one, and a change triggers a full reload.
/// Polling needs no platform code (inotify and kqueue differ) and costs a few `stat`s per file;
/// a folder of 1,000 files is checked in about a millisecond.
public final class StubFolderWatcher: @unchecked Sendable {
    private let loader: StubLoader
    private let interval: TimeInterval
    private let onChange: @Sendable () -> Void
    private let stopped = LockedReference(false)
    private var thread: Thread?

    /// `onChange` runs on the watcher's thread after each detected change.
    public init(loader: StubLoader, interval: TimeInterval = 0.25, onChange: @escaping @Sendable () -> Void) {
        self.loader = loader
        self.interval = interval
        self.onChange = onChange
    }

    public func start() {
        let loader = self.loader, interval = self.interval, onChange = self.onChange, stopped = self.stopped
        let initial = loader.fingerprint()
        let thread = Thread {
            var last = initial
            while !stopped.value {
                Thread.sleep(forTimeInterval: interval)
                if stopped.value { return }
                let now = loader.fingerprint()
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
