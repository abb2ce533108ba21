import HTTP1
import SystemSupport

/// Whether an answer that takes its time (a delay, a dribble) reached the client. Its journal
/// entry is recorded when the answer is chosen; the transport tells this later, through the
/// `DeliveryReport` it carries, so the journal never shows as sent, after its full delay, an
/// answer the client gave up on or the server stopped before sending.
package final class JournalDelivery: Sendable {
    package enum State: Sendable, Equatable {
        case underway
        case delivered
        case abandoned
    }

    private let receivedAt: Int64
    private let ended = Locked<(state: State, milliseconds: Double?)>((.underway, nil))

    /// `receivedAt`: when the request reached the engine (`WallClock` nanoseconds), the journal
    /// entry's one clock read, so timing the delivery costs nothing until it ends.
    init(receivedAt: Int64) {
        self.receivedAt = receivedAt
    }

    /// Milliseconds from `receivedAt` to now; never negative, though the wall clock may have
    /// been set back meanwhile.
    static func milliseconds(since receivedAt: Int64) -> Double {
        Double(max(0, WallClock.nanosecondsSince1970() - receivedAt)) / 1_000_000
    }

    package var state: State { ended.value.state }
    /// From the request to the last byte sent, or to the moment the answer was abandoned.
    package var measuredMilliseconds: Double? { ended.value.milliseconds }

    /// The report the transport carries with the answer.
    func report() -> DeliveryReport {
        DeliveryReport { [self] outcome in
            let elapsed = JournalDelivery.milliseconds(since: receivedAt)
            ended.withLock { $0 = (outcome == .delivered ? .delivered : .abandoned, elapsed) }
        }
    }
}
