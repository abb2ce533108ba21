import Foundation
import HTTP1
import SystemSupport

/// One request as the journal keeps it.
package struct JournalEntry: Sendable {
    package internal(set) var id: Int
    /// Milliseconds since 1970.
    package let receivedAtMilliseconds: Int
    package let method: String
    package let path: String
    package let target: String
    package let queryItems: [QueryItem]
    package let headers: HeaderFields
    /// At most `Journal.maximumBodyBytes`; `bodySize` is the real size.
    package let body: [UInt8]
    package let bodySize: Int
    package let stubID: String?
    package let stubName: String?
    package let status: Int
    package let durationMilliseconds: Double
    package let nearMiss: NearMissReport?
    /// For a forwarded request: the upstream, its status and time (or why it failed).
    package let proxy: ProxyReport?

    /// The request again, for `find` and `count` (the stub matcher runs on it).
    var request: IncomingRequest {
        IncomingRequest(method: method, target: target, path: path, queryItems: queryItems, headers: headers, body: body,
                    authority: headers["Host"])
    }
}

/// The last N requests, a ring buffer: memory stays bounded however long the server runs (bodies
/// over 64 KiB are kept truncated, with their real size). Its own lock: recording a request does
/// not wait for matching.
package final class Journal: Sendable {
    package static let maximumBodyBytes = 64 * 1024
    package let capacity: Int
    private let state: Locked<(entries: [JournalEntry?], next: Int, nextID: Int)>

    package init(capacity: Int) {
        self.capacity = max(0, capacity)
        state = Locked((Array(repeating: nil, count: max(0, capacity)), 0, 1))
    }

    package var isEnabled: Bool { capacity > 0 }

    /// `response` is nil when the client left before a promised answer came.
    func record(_ request: IncomingRequest, _ kind: OutcomeKind, _ response: OutgoingResponse?, durationMilliseconds: Double) {
        guard capacity > 0 else { return }
        let stub: Stub?
        let proxy: ProxyReport?
        switch kind {
        case .stub(let s): (stub, proxy) = (s, nil)
        case .proxied(let report, let s): (stub, proxy) = (s, report)
        default: (stub, proxy) = (nil, nil)
        }
        let nearMiss: NearMissReport? = if case .noMatch(let report) = kind { report.resolved } else { nil }
        // Built outside the lock, and the entry it replaces is released outside it too: every
        // event loop records every request, so the critical section is a swap and two counters.
        var entry = JournalEntry(
            id: 0, receivedAtMilliseconds: Int(Date().timeIntervalSince1970 * 1000), method: request.method,
            path: request.path, target: request.target, queryItems: request.queryItems, headers: request.headers,
            body: request.body.count > Self.maximumBodyBytes ? Array(request.body.prefix(Self.maximumBodyBytes)) : request.body,
            bodySize: request.body.count, stubID: stub?.id, stubName: stub?.name,
            status: response?.prepared.status ?? 0, durationMilliseconds: durationMilliseconds, nearMiss: nearMiss,
            proxy: proxy)
        let replaced: JournalEntry? = state.withLock { s in
            entry.id = s.nextID
            s.nextID += 1
            let old = s.entries[s.next]
            s.entries[s.next] = entry
            s.next = (s.next + 1) % capacity
            return old
        }
        _ = replaced
    }

    /// Oldest first.
    package var entries: [JournalEntry] {
        state.withLock { s in
            guard capacity > 0 else { return [] }
            return (0..<capacity).compactMap { s.entries[(s.next + $0) % capacity] }
        }
    }

    package func clear() {
        state.withLock { s in
            s.entries = Array(repeating: nil, count: capacity)
            s.next = 0
        }
    }
}
