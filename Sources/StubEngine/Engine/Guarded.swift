import Foundation

/// A value behind a lock, read and changed only inside `withLock`. The engine's shared state
/// lives in one of these, so there is one owner and one lock to reason about.
public final class Guarded<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    public var value: Value {
        get { withLock { $0 } }
        set { withLock { $0 = newValue } }
    }
}
