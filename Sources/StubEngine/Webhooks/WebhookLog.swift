#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import SystemSupport

/// One webhook call as the server made it (or did not): what was sent, when, and how it ended.
package struct WebhookRecord: Sendable {
    package enum State: String, Sendable {
        /// Waiting for its delay, or for the answer.
        case pending
        /// The target answered (any status).
        case sent
        /// No answer: refused, unreachable, timed out, a broken response, no transport.
        case failed
        /// Not made: the triggering request was at the depth limit.
        case skipped
    }

    package let id: Int
    /// When the stub answered (milliseconds since 1970).
    package let firedAtMilliseconds: Int
    package let stubID: String
    package let stubName: String
    /// The request that caused it: `POST /orders`.
    package let trigger: String
    /// `X-Stubserver-Webhook-Depth` of the call (the trigger's plus one).
    package let depth: Int
    package let call: WebhookCall
    /// The webhook's own delay, drawn for this call (after the answer went out).
    package let delayMilliseconds: Int
    package internal(set) var state: State
    package internal(set) var status: Int?
    /// From sending the call to the target's response head.
    package internal(set) var durationMilliseconds: Int64?
    package internal(set) var error: String?
    /// When it was sent (milliseconds since 1970).
    package internal(set) var sentAtMilliseconds: Int?
    /// The log's change count when this record last changed (event streams send what changed).
    package internal(set) var version = 0
}

/// The last webhook calls, oldest first: their own list beside the journal (they are requests
/// the server made, not ones it received, so they are never counted or matched as requests).
/// Bounded like the journal; updated in place as each call ends.
package final class WebhookLog: Sendable {
    package let capacity: Int

    private struct State {
        var list: [WebhookRecord] = []
        var nextID = 1
        /// Counts every change: a record added or ended.
        var version = 0
        var clears = 0
        var listeners: [any JournalListener] = []
    }

    private let state = Locked(State())

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds a call and returns its id.
    func add(
        stub: Stub,
        trigger: String,
        depth: Int,
        call: WebhookCall,
        delayMilliseconds: Int,
        state recordState: WebhookRecord.State = .pending,
        error: String? = nil
    ) -> Int {
        var kept = call
        if kept.body.count > Journal.maximumBodyBytes { kept.body = Array(kept.body.prefix(Journal.maximumBodyBytes)) }
        let now = Int(Date().timeIntervalSince1970 * 1000)
        let (id, listeners) = state.withLock { s -> (Int, [any JournalListener]) in
            let id = s.nextID
            s.nextID += 1
            s.version += 1
            var record = WebhookRecord(
                id: id,
                firedAtMilliseconds: now,
                stubID: stub.id,
                stubName: stub.name,
                trigger: trigger,
                depth: depth,
                call: kept,
                delayMilliseconds: delayMilliseconds,
                state: recordState,
                error: error
            )
            record.version = s.version
            s.list.append(record)
            if s.list.count > capacity { s.list.removeFirst(s.list.count - capacity) }
            return (id, s.listeners)
        }
        for listener in listeners { listener.journalChanged() }
        return id
    }

    /// The call went out: when.
    func markSent(_ id: Int) {
        let now = Int(Date().timeIntervalSince1970 * 1000)
        update(id, notifying: false) { $0.sentAtMilliseconds = now }
    }

    /// How it ended: a status from the target, or why there was none.
    func finish(_ id: Int, status: Int?, milliseconds: Int64?, error: String?) {
        update(id, notifying: true) { record in
            record.state = error == nil ? .sent : .failed
            record.status = error == nil ? status : nil
            record.durationMilliseconds = milliseconds
            record.error = error
        }
    }

    private func update(_ id: Int, notifying: Bool, _ change: (inout WebhookRecord) -> Void) {
        let listeners = state.withLock { s -> [any JournalListener] in
            // Ids are consecutive in the list (only whole clears remove), so the index follows.
            guard let first = s.list.first?.id, id >= first, id - first < s.list.count else { return [] }
            change(&s.list[id - first])
            guard notifying else { return [] }
            s.version += 1
            s.list[id - first].version = s.version
            return s.listeners
        }
        for listener in listeners { listener.journalChanged() }
    }

    /// Oldest first.
    package var all: [WebhookRecord] { state.withLock { $0.list } }

    /// Records added or ended after change `version`, oldest first, with the newest change and
    /// the number of clears so far.
    package func changes(after version: Int) -> (records: [WebhookRecord], version: Int, clears: Int) {
        state.withLock { s in (s.list.filter { $0.version > version }, s.version, s.clears) }
    }

    package func clear() {
        let listeners = state.withLock { s -> [any JournalListener] in
            s.list = []
            s.clears += 1
            s.version += 1
            return s.listeners
        }
        for listener in listeners { listener.journalChanged() }
    }

    /// Told of every change, outside the lock (the inspector's event streams, tests).
    package func addListener(_ listener: any JournalListener) {
        state.withLock { $0.listeners.append(listener) }
    }

    package func removeListener(_ listener: any JournalListener) {
        state.withLock { $0.listeners.removeAll { $0 === listener } }
    }
}
