import HTTP1
import StubEngine
import SystemSupport

/// Captures proxied exchanges while a recording session runs: the request as received, the
/// upstream's answer as it went to the client (its body tapped from the stream as it passes,
/// so recording adds no wait), in the order the requests arrived. The engine knows it only as
/// one of its exchange observers (`ForwardedExchangeObserver`); `stop(on:)` writes what it kept.
package final class Recorder: ForwardedExchangeObserver {
    /// A body larger than this is passed through but not recorded (the report says so).
    package static let maximumBodyBytes = 64 << 20

    struct Session {
        var settings: RecordingSettings
        /// The fallback rule before the session replaced it (restored at the end).
        var previousRule: ProxyRule?
        var captured: [(sequence: Int, exchange: RecordedExchange)] = []
        var nextSequence = 0
        var inFlight: Set<Int> = []
        /// Streams still open (events, WebSockets): recorded as far as they went when the
        /// session ends.
        var openStreams: [Int: StreamCapture] = [:]
        var skipped: [String] = []
    }

    package struct Status: Sendable {
        package var recording: Bool
        package var upstream: String?
        package var output: String?
        package var captured: Int
        package var inFlight: Int
    }

    /// What a session gathered, in request order.
    package struct Harvest: Sendable {
        package var settings: RecordingSettings
        package var previousRule: ProxyRule?
        package var exchanges: [RecordedExchange]
        package var skipped: [String]
    }

    private let state = Locked<Session?>(nil)

    package init() {}

    package var isRecording: Bool { state.withLock { $0 != nil } }

    func begin(_ settings: RecordingSettings, previousRule: ProxyRule?) -> Bool {
        state.withLock { session in
            guard session == nil else { return false }
            session = Session(settings: settings, previousRule: previousRule)
            return true
        }
    }

    func end() -> Harvest? {
        let ended = state.withLock { session -> Session? in
            defer { session = nil }
            return session
        }
        guard var s = ended else { return nil }
        // Outside the lock: a capture takes its own, and its taps take this one to settle.
        for (sequence, capture) in s.openStreams where s.inFlight.remove(sequence) != nil {
            s.captured.append((sequence, capture.exchange))
        }
        if !s.inFlight.isEmpty {
            s.skipped.append("\(s.inFlight.count) exchange(s) still in flight when the recording stopped")
        }
        let exchanges = s.captured.sorted { $0.sequence < $1.sequence }.map(\.exchange)
        return Harvest(settings: s.settings, previousRule: s.previousRule, exchanges: exchanges, skipped: s.skipped)
    }

    package var status: Status {
        state.withLock { s in
            Status(
                recording: s != nil,
                upstream: s?.settings.upstream?.upstream.description,
                output: s?.settings.output,
                captured: s?.captured.count ?? 0,
                inFlight: s?.inFlight.count ?? 0
            )
        }
    }

    /// The settings, when `request` is to be recorded.
    func settings(for request: IncomingRequest) -> RecordingSettings? {
        state.withLock { s in
            guard let settings = s?.settings, settings.records(path: request.path) else { return nil }
            return settings
        }
    }

    /// A request to record asks the upstream for an unencoded body (`Accept-Encoding:
    /// identity`), so recorded bodies can be read and edited.
    package func follow(_ request: IncomingRequest, host: String?) -> ForwardedExchangeFollower? {
        guard let settings = settings(for: request) else { return nil }
        return ForwardedExchangeFollower(setHeaders: [("Accept-Encoding", "identity")]) { [self] pending in
            capture(request, settings: settings, pending: pending, host: host)
        }
    }

    /// Follows `pending` (the forwarded request's answer) and keeps the exchange once its body
    /// has passed in full.
    /// `host`: the host a forward-proxy client addressed, for the stub's `host` condition.
    func capture(_ request: IncomingRequest, settings: RecordingSettings, pending: PendingResponse, host: String? = nil)
    {
        if let resolved = Self.pathResolvedElsewhere(request) {
            state.withLock { s in
                let sent = "\(request.method) \(request.target.prefix(200))"
                s?.skipped.append(
                    "\(sent): the path resolves to \(resolved), another path; "
                        + "not recorded (stubs match resolved paths, so its stub would answer \(resolved))"
                )
            }
            return
        }
        guard
            let sequence = state.withLock({ s -> Int? in
                guard s != nil else { return nil }
                defer { s!.nextSequence += 1 }
                s!.inFlight.insert(s!.nextSequence)
                return s!.nextSequence
            })
        else { return }
        let fields = settings.requestHeaders.compactMap { name in request.headers[name].map { (name: name, value: $0) }
        }
        var recorded = RecordedExchange(
            method: request.method,
            path: request.path,
            query: RecordedExchange.query(of: request),
            requestHeaders: fields,
            requestBody: request.body,
            requestContentType: request.headers["Content-Type"] ?? "",
            status: 0,
            requestCookies: RecordedExchange.cookies(request.headers.values("Cookie")),
            serverURLs: Self.serverURLs(request, rule: settings.upstream)
        )
        recorded.host = host
        let base = recorded
        // `adjust` runs when the answer completes, before any body byte is written.
        pending.adjust { [self] response in
            guard response.prepared.headers["X-Stubserver-Proxy"] == nil else {
                settle(sequence, nil, skipped: nil)  // the proxy's own 502 or 504: nothing to record
                return
            }
            var exchange = base
            exchange.status = response.prepared.status
            exchange.headers = response.prepared.headers.map { ($0.name, $0.value) }
            if followStream(sequence, exchange, response, request) { return }
            guard case .stream(let stream) = response.delivery else {
                exchange.body = response.prepared.body
                settle(sequence, exchange, skipped: nil)
                return
            }
            let collector = Locked<[UInt8]?>([])
            let head = exchange
            stream.tap { [self] event in
                switch event {
                case .bytes(let piece):
                    collector.withLock { body in
                        guard body != nil else { return }
                        if body!.count + piece.count > Self.maximumBodyBytes {
                            body = nil
                        } else {
                            body!.append(contentsOf: piece)
                        }
                    }
                case .finished:
                    guard let body = collector.value else {
                        settle(
                            sequence,
                            nil,
                            skipped:
                                """
                                \(request.method) \(request.path): body over \(Self.maximumBodyBytes >> 20) \
                                MiB, not recorded
                                """
                        )
                        return
                    }
                    var whole = head
                    whole.body = body
                    settle(sequence, whole, skipped: nil)
                case .broken:
                    settle(
                        sequence,
                        nil,
                        skipped: "\(request.method) \(request.path): the body was cut off, not recorded"
                    )
                }
            }
        }
        pending.onCancel { [self] in settle(sequence, nil, skipped: nil) }
    }

    /// The path the server matches, when the path as sent decodes to another one: `/a%2F..%2Fb`
    /// is sent upstream as it is, but resolves to `/b`. Recorded, it became a stub for `/b`
    /// holding the answer for another path.
    /// Absolute URLs that lead back to the recorded server: the upstream's (below its base path,
    /// which the client reaches under the rule's stripped prefix), and the recorder's own as the
    /// client addressed it (what an upstream behind `--preserve-host` builds links from).
    static func serverURLs(_ request: IncomingRequest, rule: ProxyRule?) -> [(absolute: String, path: String)] {
        var urls: [(absolute: String, path: String)] = []
        if let rule {
            let upstream = rule.upstream
            for origin in ServerLinks.variants(scheme: upstream.scheme, authority: upstream.authority) {
                urls.append((origin + upstream.basePath, rule.stripPrefix ?? ""))
            }
        }
        if let authority = request.authority, !authority.isEmpty {
            urls += ServerLinks.variants(scheme: "http", authority: authority).map { ($0, "") }
        }
        return urls
    }

    static func pathResolvedElsewhere(_ request: IncomingRequest) -> String? {
        let sent = request.target.prefix { $0 != "?" }
        guard sent.hasPrefix("/") else { return nil }
        let decoded = PercentDecoding.decode(sent, strict: false) ?? String(sent)
        return decoded == request.path ? nil : request.path
    }

    /// An event stream or a WebSocket: recorded as it passes, with its timing; true when the
    /// answer is one.
    private func followStream(
        _ sequence: Int,
        _ exchange: RecordedExchange,
        _ response: OutgoingResponse,
        _ request: IncomingRequest
    ) -> Bool {
        let capture = StreamCapture(exchange)
        let ended: @Sendable () -> Void = { [self] in
            let cut =
                capture.truncated
                ? "\(request.method) \(request.path): recorded as far as its first \(StreamCapture.maximumItems) "
                    + "events or messages (or the frames it could read)" : nil
            settle(sequence, capture.exchange, skipped: cut)
        }
        switch response.delivery {
        case .upgrade(let upgrade):
            state.withLock { $0?.openStreams[sequence] = capture }
            capture.followWebSocket(upgrade, ended: ended)
        case .stream(let stream) where ProxiedStreams.isEventStream(response.prepared.headers):
            state.withLock { $0?.openStreams[sequence] = capture }
            capture.followEvents(stream, ended: ended)
        default:
            return false
        }
        return true
    }

    private func settle(_ sequence: Int, _ exchange: RecordedExchange?, skipped: String?) {
        state.withLock { s in
            s?.openStreams[sequence] = nil
            guard s != nil, s!.inFlight.remove(sequence) != nil else { return }
            if let exchange { s!.captured.append((sequence, exchange)) }
            if let skipped { s!.skipped.append(skipped) }
        }
    }
}
