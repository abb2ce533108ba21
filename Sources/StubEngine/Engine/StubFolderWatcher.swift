#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Hot reload by a cheap poll: every `interval`, the folder's fingerprint (paths, sizes and
/// modification times) is compared with the last one, and a change triggers a full reload.
/// Polling works the same on Linux and macOS (inotify and kqueue differ, and kqueue needs a
/// descriptor per file). The fingerprint is the loader's (`FolderWalk`, `lstat`-based: 1,000 files
/// in about a millisecond), so the watcher sees exactly the files the loader reads.
package final class StubFolderWatcher: @unchecked Sendable {
    private let fingerprint: @Sendable () -> [String: String]
    private let interval: TimeInterval
    private let onChange: @Sendable () -> Void
    private let stopped = Locked(false)
    private let started = Locked(false)

    /// `onChange` runs on the watcher's thread after each detected change.
    package init(loader: StubLoader, interval: TimeInterval = 0.25,
                fingerprint: (@Sendable () -> [String: String])? = nil,
                onChange: @escaping @Sendable () -> Void) {
        self.fingerprint = fingerprint ?? { loader.fingerprint() }
        self.interval = interval
        self.onChange = onChange
    }

    /// Starts the polling thread; a second call does nothing (it once started a second thread).
    package func start() {
        guard started.withLock({ wasStarted in
            defer { wasStarted = true }
            return !wasStarted
        }) else { return }
        let fingerprint = self.fingerprint, interval = self.interval, onChange = self.onChange, stopped = self.stopped
        let initial = fingerprint()
        SystemThread.start(name: "stubserver.watch") {
            var last = initial
            while !stopped.value {
                SystemThread.sleep(milliseconds: Int(interval * 1000))
                if stopped.value { return }
                let now = fingerprint()
                if now != last {
                    last = now
                    onChange()
                }
            }
        }
    }

    package func stop() { stopped.value = true }
}
