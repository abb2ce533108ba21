import Dispatch
import HTTP1
import JSON
import StubEngine
import SystemSupport

/// Limits and timings of the inspector's event streams (`GET /__admin/events`).
package struct EventFeedLimits: Sendable {
    /// A comment line this often, so proxies and browsers keep a quiet stream open.
    package var heartbeatMilliseconds = 15_000
    /// Entries recorded within this window go out together: one wake-up and one write per
    /// burst, not per request.
    package var batchMilliseconds = 20
    /// Unsent entries a stream may owe while its client takes nothing; past it the stream is
    /// dropped (the page reconnects and catches up from the journal). nil: half the journal.
    package var maxBacklog: Int?
    /// Streams open at once; more get 503.
    package var maxFeeds = 32
    /// How long a browser waits before reconnecting (the `retry:` field).
    package var retryMilliseconds = 1_000

    package init() {}
}

/// One open event stream: the journal's listener, writing the entries its page has not seen.
///
/// The journal is the queue: the feed keeps only a cursor (the last id written) and, when told
/// of a change, reads what follows it, at most once per batch window and on its own serial
/// queue, never on the event loop that recorded the request. A client that stops reading
/// blocks only its own stream: `BodyStream.write` says when a quarter megabyte waits, the feed
/// stops writing until the client catches up, and if meanwhile it owes more than `maxBacklog`
/// entries it is dropped. The page then reconnects with `Last-Event-ID`, and what it missed
/// comes from the journal while the journal still has it (a `gap` event says what it lost).
final class EventFeed: JournalListener {
    private let journal: Journal
    /// Webhook calls go out as `webhook` events (without an id: `Last-Event-ID` counts journal
    /// entries only), each time one is made or ends.
    private let webhooks: WebhookLog
    private let stream: BodyStream
    private let limits: EventFeedLimits
    private let maxBacklog: Int
    private let queue = DispatchQueue(label: "stubserver.events")
    private let onEnd: @Sendable () -> Void

    /// Touched from the event loops (a change noted) and the connection (the client left).
    private struct Flags {
        var drainScheduled = false
        /// The client has a quarter megabyte unread: write nothing until it takes some.
        var blocked = false
        var ended = false
    }

    /// Where the page is: read and written only on the feed's queue (a lock that is never
    /// contended), so encoding a burst never holds up a loop that records a request.
    private struct Position {
        /// The id of the last entry written (or skipped as lost).
        var cursor: Int
        var clears: Int
        /// Whether to say so when entries after the cursor left the ring unseen: not on the
        /// first read of a page that asked for "whatever you still have".
        var reportsGaps: Bool
        /// The webhook log's change count last written, and its clears.
        var webhookVersion = 0
        var webhookClears: Int
        /// The journal's count of stream changes last read: changes after it go out as `stream`.
        var streamChanges: Int
    }

    private let flags = Locked(Flags())
    private let position: Locked<Position>

    init(
        journal: Journal,
        webhooks: WebhookLog,
        stream: BodyStream,
        limits: EventFeedLimits,
        after cursor: Int,
        reportsGaps: Bool,
        onEnd: @escaping @Sendable () -> Void
    ) {
        self.journal = journal
        self.webhooks = webhooks
        self.stream = stream
        self.limits = limits
        self.maxBacklog = limits.maxBacklog ?? max(64, journal.capacity / 2)
        self.onEnd = onEnd
        position = Locked(
            Position(
                cursor: cursor,
                clears: journal.clearCount,
                reportsGaps: reportsGaps,
                webhookClears: webhooks.changes(after: Int.max).clears,
                streamChanges: journal.streamChanges(after: Int.max).count
            )
        )
    }

    /// Starts the stream: the preamble at once, then what the page missed, then live entries.
    func start(preamble: [UInt8]) {
        stream.write(preamble)
        journal.addListener(self)
        webhooks.addListener(self)
        // After listening, so a client already gone removes the listener at once. Weak: the
        // stream keeps its handlers, and the journal keeps the feed while it listens.
        stream.onWritable { [weak self] in self?.resume() }
        stream.onCancel { [weak self] in self?.end(sending: nil) }
        queue.async { self.drain() }
        scheduleHeartbeat()
    }

    // MARK: JournalListener

    func journalChanged() {
        let schedule = flags.withLock { f -> Bool in
            guard !f.drainScheduled, !f.ended else { return false }
            f.drainScheduled = true
            return true
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: .now() + .milliseconds(limits.batchMilliseconds)) { self.drain() }
    }

    // MARK: On the feed's queue

    /// Writes every entry after the cursor, or drops the feed if its client is too far behind.
    private func drain() {
        let (blocked, ended) = flags.withLock { f -> (Bool, Bool) in
            f.drainScheduled = false
            return (f.blocked, f.ended)
        }
        guard !ended else { return }
        var at = position.value
        if blocked {
            guard journal.lastID - at.cursor > maxBacklog else { return }
            var farewell: [UInt8] = []
            EventEncoder.append(
                event: "dropped",
                data: "{\"reason\":\"more than \(maxBacklog) requests behind\"}",
                to: &farewell
            )
            end(sending: farewell)
            return
        }
        let read = journal.read(after: at.cursor)
        var out: [UInt8] = []
        if read.clears != at.clears {
            at.clears = read.clears
            EventEncoder.append(event: "cleared", data: "{}", to: &out)
        }
        if at.reportsGaps, read.evictedThrough > at.cursor {
            // The ring overwrote entries this page never got: say which, then go on.
            EventEncoder.append(
                event: "gap",
                data: "{\"after\":\(at.cursor),\"through\":\(read.evictedThrough)}",
                to: &out
            )
        }
        at.reportsGaps = true
        out.reserveCapacity(out.count + read.entries.count * 256)
        var encoder = EventEncoder()
        for entry in read.entries { encoder.append(entry, to: &out) }
        at.cursor = max(at.cursor, read.entries.last?.id ?? 0, read.evictedThrough)
        appendStreamChanges(&at, to: &out)
        appendWebhooks(&at, to: &out)
        position.value = at
        guard !out.isEmpty else { return }
        if !stream.write(out) { flags.withLock { $0.blocked = true } }
    }

    /// Streams that changed since the last write (each once per batch, however much it sent), for
    /// entries the page has: their summary, so the list's row and an open detail keep up live.
    private func appendStreamChanges(_ at: inout Position, to out: inout [UInt8]) {
        let changed = journal.streamChanges(after: at.streamChanges)
        at.streamChanges = changed.count
        for id in changed.ids where id <= at.cursor {
            guard let summary = journal.entry(id: id)?.response?.stream?.summary else { continue }
            EventEncoder.append(streamOf: id, summary, to: &out)
        }
    }

    /// Webhook calls made or ended since the last write (a page that opens gets every call the
    /// log still has), after a `webhooks-cleared` event when the log was cleared meanwhile.
    private func appendWebhooks(_ at: inout Position, to out: inout [UInt8]) {
        let changed = webhooks.changes(after: at.webhookVersion)
        if changed.clears != at.webhookClears {
            at.webhookClears = changed.clears
            EventEncoder.append(event: "webhooks-cleared", data: "{}", to: &out)
        }
        for record in changed.records {
            EventEncoder.append(event: "webhook", data: JSONSerializer.string(AdminJSON.webhook(record)), to: &out)
        }
        at.webhookVersion = changed.version
    }

    /// The client took what was waiting: write what accumulated meanwhile.
    private func resume() {
        queue.async {
            let wasBlocked = self.flags.withLock { f -> Bool in
                defer { f.blocked = false }
                return f.blocked
            }
            if wasBlocked { self.drain() }
        }
    }

    /// A comment line every interval while the feed lives (weak: an ended feed is let go).
    private func scheduleHeartbeat() {
        queue.asyncAfter(deadline: .now() + .milliseconds(limits.heartbeatMilliseconds)) { [weak self] in
            guard let self else { return }
            let (ended, blocked) = flags.withLock { ($0.ended, $0.blocked) }
            guard !ended else { return }
            if !blocked, !stream.write(EventEncoder.heartbeat) { flags.withLock { $0.blocked = true } }
            scheduleHeartbeat()
        }
    }

    /// Ends the feed once: by the client leaving or the server stopping (the stream is already
    /// cancelled), or by dropping a client too far behind (a last event, then the end of the body,
    /// after which the browser reconnects on its own).
    private func end(sending farewell: [UInt8]?) {
        let first = flags.withLock { f -> Bool in
            defer { f.ended = true }
            return !f.ended
        }
        guard first else { return }
        journal.removeListener(self)
        webhooks.removeListener(self)
        if let farewell {
            stream.write(farewell)
            stream.finish()
        }
        onEnd()
    }
}
