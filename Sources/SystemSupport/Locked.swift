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
///
/// A copy shares the value and the mutex (a reference to one storage object), as the class it
/// replaces did. The value and the mutex live in that one allocation: a class holding a
/// separately allocated mutex cost two allocations per lock, and a proxied request creates
/// four of them (its pending answer, its report, the client's task and its exchange).
///
/// Inlinable, so other modules get it specialised for their value: unspecialised, creating one
/// looked up `LockedStorage<Value>`'s metadata in the runtime's cache each time (it showed in the
/// proxy's profile), and every `withLock` was a generic call through the closure's context.
///
/// `public`, not `package`, for that reason alone: Swift 6.3 does not inline or specialise an
/// `@inlinable package` function in another module (checked with two modules and `nm`: the
/// caller kept an undefined reference to the generic `withLock`), while it does a `public` one.
/// SystemSupport is no product of the package, so `public` here promises nothing to users;
/// `scripts/check-api` allows exactly these four symbols.
public struct Locked<Value> {
    @usableFromInline let storage: LockedStorage<Value>

    @inlinable
    public init(_ value: consuming Value) {
        storage = LockedStorage.make(value)
    }

    @inlinable @inline(__always) @discardableResult
    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try storage.withLock(body)
    }

    /// A copy of the value, or a whole new one.
    @inlinable
    public var value: Value {
        get { withLock { $0 } }
        nonmutating set { withLock { $0 = newValue } }
    }
}

extension Locked: @unchecked Sendable where Value: Sendable {}

/// The value as the header of a managed buffer whose single element is the mutex.
@usableFromInline
final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    @inlinable
    static func make(_ value: consuming Value) -> LockedStorage<Value> {
        // Moved into the header, not copied: returning the captured value from the closure
        // copied it (a retain of each of its fields) and destroyed the original, for every lock
        // made; a pending answer makes one per request.
        var carried: Value? = consume value
        let buffer = create(minimumCapacity: 1) { _ in carried.take()! }
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
        return unsafeDowncast(buffer, to: LockedStorage<Value>.self)
    }

    deinit {
        // The header (the value) is destroyed by ManagedBuffer; the mutex is ours.
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }

    @inlinable @inline(__always)
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
