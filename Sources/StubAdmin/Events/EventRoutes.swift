import HTTP1
import StubEngine
import SystemSupport

/// `GET /__admin/events`: the journal as server-sent events, for the inspector page. Each feed
/// listens to the engine's journal and webhook log (`JournalListener`), the hooks the engine
/// offers for it; the engine itself knows nothing of feeds.
///
/// Where a stream starts: after `Last-Event-ID` (the header a browser sends when it reconnects)
/// or `?since=ID` (a page's first connection; `since=0` is "everything the journal has"); with
/// neither, only what comes next. An id above the journal's newest is a page from before a
/// restart: it gets everything, and `hello` says `"restarted": true` so it clears its list.
package struct EventRoutes: AdminRouteSet {
    let limits: EventFeedLimits
    /// Event streams open now, bounded by `limits.maxFeeds`.
    private let openFeeds = Locked(0)

    package init(limits: EventFeedLimits = EventFeedLimits()) {
        self.limits = limits
    }

    /// How many streams are open (the tests check that a stream that ends is let go).
    package var openFeedCount: Int { openFeeds.value }

    static let path = AdminAPI.prefix + "/events"

    package var routes: [(method: String, path: String)] { [("GET", Self.path)] }

    package func claims(_ request: IncomingRequest) -> Bool {
        request.path == Self.path || request.path == Self.path + "/"
    }

    package func handle(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        guard request.method == "GET" else { return AdminAPI.unclaimed(request, engine: engine) }
        let limits = self.limits
        let admitted = openFeeds.withLock { open -> Bool in
            guard open < limits.maxFeeds else { return false }
            open += 1
            return true
        }
        guard admitted else {
            return AdminAPI.error(503, "\(limits.maxFeeds) event streams are open already; close an inspector tab")
        }
        let journal = engine.journal
        let newest = journal.lastID
        let asked =
            request.headers["Last-Event-ID"].flatMap { Int($0.trimmingSpaces()) }
            ?? request.queryValues("since").first.flatMap { Int($0) }
        var cursor = newest
        var reportsGaps = true
        var restarted = false
        if let asked {
            restarted = asked > newest
            cursor = restarted ? 0 : max(0, asked)
            reportsGaps = !restarted && asked > 0
        }
        var preamble = Array("retry: \(limits.retryMilliseconds)\n\n".utf8)
        EventEncoder.append(
            event: "hello",
            data: "{\"lastId\":\(newest),\"journal\":\(journal.capacity),\"restarted\":\(restarted)}",
            to: &preamble
        )

        let stream = BodyStream(length: nil, isLongLived: true)
        let openFeeds = self.openFeeds
        let feed = EventFeed(
            journal: journal,
            webhooks: engine.webhookLog,
            stream: stream,
            limits: limits,
            after: cursor,
            reportsGaps: reportsGaps
        ) {
            openFeeds.withLock { $0 -= 1 }
        }
        feed.start(preamble: preamble)
        let headers = HeaderFields([
            ("Content-Type", "text/event-stream; charset=utf-8"),
            ("Cache-Control", "no-store"),
            // A buffering reverse proxy (nginx) would hold events back: ask it not to.
            ("X-Accel-Buffering", "no"),
        ])
        return OutgoingResponse(
            PreparedResponse(status: 200, headers: headers, streamLength: nil),
            delivery: .stream(stream)
        )
    }
}
