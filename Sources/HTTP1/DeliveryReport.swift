#if canImport(SystemSupport)
import SystemSupport
#endif

/// How an answer that takes its time (a delay, a dribbled body) ended, told by the transport
/// that carried it: sent whole, or abandoned, because the client left or the server stopped
/// before it was. The journal attaches one to such an answer, so it does not record as sent an
/// answer nobody received.
package final class DeliveryReport: Sendable {
    package enum Outcome: Sendable, Equatable {
        case delivered
        case abandoned
    }

    private let handler: Locked<(@Sendable (Outcome) -> Void)?>

    /// `handler` runs once, with the first outcome told.
    package init(_ handler: @escaping @Sendable (Outcome) -> Void) {
        self.handler = Locked(handler)
    }

    package func end(_ outcome: Outcome) {
        let handler = handler.withLock { stored -> (@Sendable (Outcome) -> Void)? in
            defer { stored = nil }
            return stored
        }
        handler?(outcome)
    }
}
