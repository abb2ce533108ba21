import Dispatch
import HTTP1
import SystemSupport

/// What happened on one stream, as it happens: each event sent, each WebSocket message in
/// either direction, unmatched messages with their near-miss lines, and how the stream ended.
/// The journal entry of the request that opened the stream holds it, so the admin API and the
/// inspector show a stream while it is open.
///
/// Bounded: the first `keptFromStart` items and the latest `keptAtEnd` are kept, those between
/// only counted (`omitted`), so a stream that runs for days shows how it began and what it does
/// now; each item keeps at most `maximumItemBytes` of its text. At most about a megabyte each.
package final class StreamTranscript: Sendable {
    package enum Kind: String, Sendable {
        case events
        case websocket
    }

    package enum Direction: String, Sendable {
        /// From the server to the client.
        case sent
        /// From the client to the server.
        case received
        /// Something the server did or saw: a fault, a resumption, an unmatched message.
        case note
    }

    package struct Item: Sendable {
        /// Milliseconds since the stream opened.
        package let atMilliseconds: Int
        package let direction: Direction
        package let text: String
        /// Why a received message matched no rule: the near-miss lines of each rule.
        package let nearMiss: [String]
    }

    package struct Snapshot: Sendable {
        package let kind: Kind
        /// In order: the first items, then (when some were omitted) the latest.
        package let items: [Item]
        /// Items not kept: they came between `items[omittedAfter - 1]` and `items[omittedAfter]`.
        package let omitted: Int
        package let omittedAfter: Int
        /// Why it ended; nil while open.
        package let ended: String?
    }

    /// How much of a stream the journal shows without being asked: counts, and whether it is open.
    package struct Summary: Sendable, Equatable {
        package let kind: Kind
        /// Every item so far, kept or not.
        package let count: Int
        package let ended: String?
    }

    static let keptFromStart = 100
    static let keptAtEnd = 400
    static let maximumItemBytes = 2_048

    package let kind: Kind
    private let opened = DispatchTime.now()

    private struct State {
        var first: [Item] = []
        /// The latest items, a ring once full: `latestStart` is the oldest.
        var latest: [Item] = []
        var latestStart = 0
        var omitted = 0
        var ended: String?
        var onChange: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    package init(kind: Kind) {
        self.kind = kind
    }

    package var snapshot: Snapshot {
        state.withLock { s in
            let latest = Array(s.latest[s.latestStart...] + s.latest[..<s.latestStart])
            return Snapshot(
                kind: kind,
                items: s.first + latest,
                omitted: s.omitted,
                omittedAfter: s.first.count,
                ended: s.ended
            )
        }
    }

    package var summary: Summary {
        state.withLock { Summary(kind: kind, count: $0.first.count + $0.latest.count + $0.omitted, ended: $0.ended) }
    }

    package var isOpen: Bool { state.withLock { $0.ended == nil } }

    /// Told of each change (the journal, which tells its listeners). Set once, when recorded.
    func onChange(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onChange = handler }
    }

    func sent(_ label: String, bytes: [UInt8]) {
        add(.sent, label.isEmpty ? Self.text(bytes) : "\(label): \(Self.text(bytes))")
    }

    func sent(_ text: String) {
        add(.sent, text)
    }

    func received(_ text: String, nearMiss: [String] = []) {
        add(.received, text, nearMiss: nearMiss)
    }

    func note(_ text: String) {
        add(.note, text)
    }

    /// The stream is over; the first reason given counts.
    func end(_ why: String) {
        let handler = state.withLock { s -> (@Sendable () -> Void)? in
            guard s.ended == nil else { return nil }
            s.ended = why
            return s.onChange
        }
        handler?()
    }

    private func add(_ direction: Direction, _ text: String, nearMiss: [String] = []) {
        let elapsed = Int((DispatchTime.now().uptimeNanoseconds - opened.uptimeNanoseconds) / 1_000_000)
        let kept =
            text.utf8.count > Self.maximumItemBytes
            ? String(decoding: text.utf8.prefix(Self.maximumItemBytes), as: UTF8.self) + "…" : text
        let item = Item(atMilliseconds: elapsed, direction: direction, text: kept, nearMiss: nearMiss)
        let handler = state.withLock { s -> (@Sendable () -> Void)? in
            if s.first.count < Self.keptFromStart {
                s.first.append(item)
            } else if s.latest.count < Self.keptAtEnd {
                s.latest.append(item)
            } else {
                // The oldest of the latest gives way: it joins the omitted ones in the middle.
                s.latest[s.latestStart] = item
                s.latestStart = (s.latestStart + 1) % Self.keptAtEnd
                s.omitted += 1
            }
            return s.onChange
        }
        handler?()
    }

    /// An event's bytes as text, its final blank line left out.
    private static func text(_ bytes: [UInt8]) -> String {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 10 {
            end -= 1
        }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
