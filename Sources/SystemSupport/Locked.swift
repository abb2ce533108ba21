#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// A value behind a pthread mutex, read and changed only inside `withLock`: the one lock type of
/// the package. `Synchronization.Mutex` needs macOS 15 and the package supports macOS 13, so this
/// is a small backport. It is `Sendable` only when its value is, so it cannot smuggle a
/// non-Sendable value across threads.
package final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var stored: Value

    package init(_ value: Value) {
        stored = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    @discardableResult
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&stored)
    }

    /// A copy of the value, or a whole new one.
    package var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}

extension Locked: @unchecked Sendable where Value: Sendable {}
