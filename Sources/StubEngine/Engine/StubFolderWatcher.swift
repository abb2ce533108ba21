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
/// in about a millisecond), so the watcher sees exactly the files the loader reads. A poll that
/// cannot list the folder (out of descriptors) is no change: it is skipped, said once, and the
/// stubs stay as they are (it once looked like every file deleted, and unloaded them all).
package final class StubFolderWatcher: @unchecked Sendable {
    private let fingerprint: @Sendable () throws -> [String: String]
    private let interval: TimeInterval
    private let onChange: @Sendable () -> Void
    private let onUnreadable: @Sendable (_ why: String) -> Void
    private let stopped = Locked(false)
    private let started = Locked(false)

    /// `onChange` runs on the watcher's thread after each detected change; `onUnreadable` when
    /// the folder first cannot be listed (once until it can be again).
    package init(
        loader: StubLoader,
        interval: TimeInterval = 0.25,
        fingerprint: (@Sendable () throws -> [String: String])? = nil,
        onUnreadable: @escaping @Sendable (_ why: String) -> Void = { _ in },
        onChange: @escaping @Sendable () -> Void
    ) {
        self.fingerprint = fingerprint ?? { try loader.fingerprint() }
        self.interval = interval
        self.onUnreadable = onUnreadable
        self.onChange = onChange
    }

    /// Starts the polling thread; a second call does nothing (it once started a second thread).
    package func start() {
        guard
            started.withLock({ wasStarted in
                defer { wasStarted = true }
                return !wasStarted
            })
        else { return }
        let fingerprint = self.fingerprint
        let interval = self.interval
        let onChange = self.onChange
        let stopped = self.stopped
        let onUnreadable = self.onUnreadable
        // nil when the folder could not be listed at start: the first good look then reloads.
        let initial = try? fingerprint()
        SystemThread.start(name: "stubserver.watch") {
            var last = initial
            var unreadable = false
            while !stopped.value {
                SystemThread.sleep(milliseconds: Int(interval * 1000))
                if stopped.value { return }
                let now: [String: String]
                do {
                    now = try fingerprint()
                } catch {
                    if !unreadable { onUnreadable("\(error)") }
                    unreadable = true
                    continue
                }
                unreadable = false
                if now != last {
                    last = now
                    onChange()
                }
            }
        }
    }

    package func stop() { stopped.value = true }
}
