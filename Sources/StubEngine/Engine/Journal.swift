#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import SystemSupport
import RegularExpressions

/// Told that the journal changed (an entry recorded, or the journal cleared). Called on the
/// recording thread outside the journal's lock, so it must only note the change and return.
package protocol JournalListener: AnyObject, Sendable {
    func journalChanged()
}

/// The last N requests, a ring buffer: memory stays bounded however long the server runs (bodies
/// over 64 KiB are kept truncated, with their real size). Its own lock: recording a request does
/// not wait for matching.
///
/// Listeners (the inspector's event streams) are told of changes and read what they have not
/// seen yet by id (`read(after:)`): the ring itself is every listener's queue, so a request costs
/// nothing more while nobody listens and one call per listener while someone does.
package final class Journal: Sendable {
    package static let maximumBodyBytes = 64 * 1024
    package let capacity: Int

    private struct State {
        var entries: [JournalEntry?]
        var next = 0
        var nextID = 1
        /// The newest id overwritten by the ring (not cleared): a reader behind it missed entries.
        var evictedThrough = 0
        /// How many times the journal was cleared, so a reader can tell.
        var clears = 0
        var listeners: [any JournalListener] = []
        var streamChanges: [Int] = []
        var streamChangeCount = 0
    }

    private let state: Locked<State>

    package init(capacity: Int) {
        self.capacity = max(0, capacity)
        state = Locked(State(entries: Array(repeating: nil, count: max(0, capacity))))
    }

    package var isEnabled: Bool { capacity > 0 }

    /// Why nothing can be listed, found or counted with the journal off: an error, never an
    /// empty list, so "never called" is not taken as checked.
    package static let offMessage =
        """
        the journal is off (--journal 0), so no request was recorded: none can be listed, found or counted; \
        give the journal a size to verify requests
        """

    /// `response` is nil when the client left before a promised answer came.
    func record(
        _ request: IncomingRequest,
        _ kind: OutcomeKind,
        _ response: OutgoingResponse?,
        receivedAt: Int64,
        durationMilliseconds: Double,
        regexAborts: [RegexAbort] = [],
        stream: StreamTranscript? = nil,
        contract: ContractReport? = nil,
        delivery: JournalDelivery? = nil
    ) {
        if let response {
            record(
                request,
                kind,
                answer: response,
                receivedAt: receivedAt,
                durationMilliseconds: durationMilliseconds,
                regexAborts: regexAborts,
                stream: stream,
                contract: contract,
                delivery: delivery
            )
        } else {
            record(
                request,
                kind,
                status: nil,
                response: nil,
                receivedAt: receivedAt,
                durationMilliseconds: durationMilliseconds,
                regexAborts: regexAborts,
                contract: contract,
                delivery: nil
            )
        }
    }

    /// An answered request. The answer is borrowed: the recorder passes the outcome's own, and
    /// an optional parameter made it copy the response (retaining each of its fields) to wrap it.
    func record(
        _ request: IncomingRequest,
        _ kind: OutcomeKind,
        answer: borrowing OutgoingResponse,
        receivedAt: Int64,
        durationMilliseconds: Double,
        regexAborts: [RegexAbort] = [],
        stream: StreamTranscript? = nil,
        contract: ContractReport? = nil,
        delivery: JournalDelivery? = nil
    ) {
        guard capacity > 0 else { return }
        let id = record(
            request,
            kind,
            status: answer.delivery.sendsStatusLine ? answer.prepared.status : nil,
            response: JournalResponse(answer, stream: stream),
            receivedAt: receivedAt,
            durationMilliseconds: durationMilliseconds,
            regexAborts: regexAborts,
            contract: contract,
            delivery: delivery
        )
        // A stream goes on after the answer: each change tells the listeners (the inspector).
        stream?.onChange { [weak self] in self?.streamChanged(entryID: id) }
    }

    @discardableResult
    private func record(
        _ request: IncomingRequest,
        _ kind: OutcomeKind,
        status: Int?,
        response: consuming JournalResponse?,
        receivedAt: Int64,
        durationMilliseconds: Double,
        regexAborts: [RegexAbort],
        contract: ContractReport?,
        delivery: JournalDelivery?
    ) -> Int {
        guard capacity > 0 else { return 0 }
        let stub: Stub?
        let proxy: ProxyReport?
        switch kind {
        case .stub(let s): (stub, proxy) = (s, nil)
        case .proxied(let report, let s): (stub, proxy) = (s, report)
        default: (stub, proxy) = (nil, nil)
        }
        let nearMiss: NearMissReport? = if case .noMatch(let report) = kind { report.resolved } else { nil }
        let refusal: String? =
            switch kind {
            case .refused(let reason): reason.summary
            case .proxyRefused(let reason): reason
            default: nil
            }
        let tunnel: ConnectionTunnel? = if case .tunnel(let tunnel) = kind { tunnel } else { nil }
        // Built outside the lock, and the entry it replaces is released outside it too: every
        // event loop records every request, so the critical section is a swap and two counters.
        // Swapped into its slot, not copied: a copy would retain the entry and the local's
        // release let it go again. After the swap `slot` holds the entry the ring let go.
        var slot: JournalEntry? = JournalEntry(
            id: 0,
            // `receivedAt` is the recorder's one clock read (`JournalRecorder`).
            receivedAtMilliseconds: Int(receivedAt / 1_000_000),
            request: request,
            headers: Self.withholdingCredentials(request, refused: refusal != nil),
            // A request being recorded keeps its whole body: it is what the recording matches on.
            body: request.body.count > Self.maximumBodyBytes && proxy?.recorded != true
                ? Array(request.body.prefix(Self.maximumBodyBytes)) : request.body,
            bodySize: request.body.count,
            stub: stub,
            status: status,
            durationMilliseconds: durationMilliseconds,
            nearMiss: nearMiss,
            proxy: proxy,
            response: response,
            refusal: refusal,
            regexAborts: regexAborts,
            contract: contract,
            delivery: delivery,
            tunnel: tunnel
        )
        let (id, listeners) = state.withLock { s -> (Int, [any JournalListener]) in
            let id = s.nextID
            slot!.id = id
            s.nextID += 1
            swap(&s.entries[s.next], &slot)
            if let evicted = slot?.id { s.evictedThrough = evicted }
            s.next = (s.next + 1) % capacity
            return (id, s.listeners)
        }
        slot = nil
        for listener in listeners { listener.journalChanged() }
        return id
    }

    /// A refused request may carry a real token (from another origin), and the forward proxy's
    /// credentials are the admin token: the journal is read in the inspector and by scripts, so
    /// it keeps that such a field was there, not its value. The fields to keep instead of the
    /// head's, or nil when there is nothing to withhold: only refused requests and proxy
    /// requests (CONNECT, absolute-form, inside a tunnel) look, not every request.
    private static func withholdingCredentials(_ request: borrowing IncomingRequest, refused: Bool) -> HeaderFields? {
        let authorization = refused && request.headers.contains("Authorization")
        let proxyAuthorization =
            (request.target.utf8.first != UInt8(ascii: "/") || request.tunnelAuthority != nil)
            && request.headers.contains("Proxy-Authorization")
        guard authorization || proxyAuthorization else { return nil }
        return HeaderFields(
            request.headers.map { field in
                let name = field.name.lowercased()
                let withheld =
                    (authorization && name == "authorization") || (proxyAuthorization && name == "proxy-authorization")
                return (field.name, withheld ? "(not kept)" : field.value)
            }
        )
    }

    // MARK: Streams

    /// The entries whose streams changed, newest last, with a running count: a listener reads
    /// those after the count it saw (`streamChanges(after:)`). Bounded: only the last
    /// `streamChangeCapacity` changes are kept.
    static let streamChangeCapacity = 256

    private func streamChanged(entryID: Int) {
        let listeners = state.withLock { s -> [any JournalListener] in
            s.streamChangeCount += 1
            s.streamChanges.append(entryID)
            if s.streamChanges.count > Self.streamChangeCapacity { s.streamChanges.removeFirst() }
            return s.listeners
        }
        for listener in listeners { listener.journalChanged() }
    }

    /// The ids of entries whose streams changed after change number `count` (each once), and the
    /// count now.
    package func streamChanges(after count: Int) -> (ids: [Int], count: Int) {
        state.withLock { s in
            let new = min(s.streamChanges.count, max(0, s.streamChangeCount - count))
            var seen = Set<Int>()
            let ids = s.streamChanges.suffix(new).filter { seen.insert($0).inserted }
            return (ids, s.streamChangeCount)
        }
    }

    /// What clients sent to the stubs, oldest first: every entry but the admin requests the
    /// server refused. Verification (find, count, `verify`) counts these only, so a web page's
    /// refused attempt cannot change what a test sees its app send.
    package var clientEntries: [JournalEntry] {
        entries.filter { $0.refusal == nil }
    }

    /// Oldest first.
    package var entries: [JournalEntry] {
        state.withLock { s in
            guard capacity > 0 else { return [] }
            return (0..<capacity).compactMap { s.entries[(s.next + $0) % capacity] }
        }
    }

    /// One entry by id, while the ring still holds it.
    package func entry(id: Int) -> JournalEntry? {
        state.withLock { s in
            // Ids are consecutive in the ring, so the slot follows from the distance to the newest.
            let distance = s.nextID - 1 - id
            guard capacity > 0, id > 0, distance >= 0, distance < capacity else { return nil }
            guard let entry = s.entries[(s.next - 1 - distance + capacity * 2) % capacity], entry.id == id else {
                return nil
            }
            return entry
        }
    }

    /// How many times the journal was cleared: a reader that saw another number missed a clear.
    package var clearCount: Int { state.withLock { $0.clears } }

    /// Removes the entries `predicate` picks (WireMock's remove by id or by pattern); returns
    /// them, oldest first. Their ids are not reused.
    @discardableResult
    package func remove(where predicate: (JournalEntry) -> Bool) -> [JournalEntry] {
        let (removed, listeners) = state.withLock { s -> ([JournalEntry], [any JournalListener]) in
            var removed: [JournalEntry] = []
            guard capacity > 0 else { return ([], []) }
            for offset in 0..<capacity {
                let slot = (s.next + offset) % capacity
                if let entry = s.entries[slot], predicate(entry) {
                    removed.append(entry)
                    s.entries[slot] = nil
                }
            }
            return (removed, removed.isEmpty ? [] : s.listeners)
        }
        for listener in listeners { listener.journalChanged() }
        return removed
    }

    /// The id of the newest entry ever recorded (0 before the first), cleared or not.
    package var lastID: Int { state.withLock { $0.nextID - 1 } }

    package func clear() {
        let listeners = state.withLock { s -> [any JournalListener] in
            s.entries = Array(repeating: nil, count: capacity)
            s.next = 0
            s.clears += 1
            return s.listeners
        }
        for listener in listeners { listener.journalChanged() }
    }

    // MARK: Listeners

    /// What a listener has not seen yet.
    package struct Unread: Sendable {
        /// Entries with ids above the reader's, oldest first.
        package var entries: [JournalEntry]
        /// The newest id the ring overwrote: entries from the reader's id up to it are gone.
        package var evictedThrough: Int
        package var clears: Int
        package var lastID: Int
    }

    /// Entries after `id`, oldest first, with what a reader needs to notice gaps and clears.
    package func read(after id: Int) -> Unread {
        state.withLock { s in
            let newest = s.nextID - 1
            let wanted = min(max(0, newest - id), capacity)
            var entries: [JournalEntry] = []
            entries.reserveCapacity(wanted)
            for back in stride(from: wanted, through: 1, by: -1) {
                if let entry = s.entries[(s.next - back + capacity) % capacity], entry.id > id { entries.append(entry) }
            }
            return Unread(entries: entries, evictedThrough: s.evictedThrough, clears: s.clears, lastID: newest)
        }
    }

    package func addListener(_ listener: any JournalListener) {
        state.withLock { $0.listeners.append(listener) }
    }

    package func removeListener(_ listener: any JournalListener) {
        state.withLock { $0.listeners.removeAll { $0 === listener } }
    }

    package var listenerCount: Int { state.withLock { $0.listeners.count } }
}
