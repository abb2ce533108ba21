import Dispatch
import HTTP1
import SystemSupport
import WebSocket

/// A recorded event stream: each event the upstream sent, with when it arrived.
package struct RecordedEvents: Sendable {
    package struct Event: Sendable {
        package var block: ServerSentEventBlock
        /// Milliseconds after the response's head.
        package var atMilliseconds: Int
    }

    package var events: [Event] = []
    /// The upstream ended the stream; false when it was still open (the client left, or the
    /// recording stopped first), which a replay imitates by holding the stream open.
    package var ended = false
}

/// A recorded WebSocket connection: the messages both ways, in order, with when they passed,
/// and the upstream's close.
package struct RecordedWebSocket: Sendable {
    package enum Direction: Sendable {
        case fromClient
        case fromUpstream
    }

    package struct Message: Sendable {
        package var direction: Direction
        package var message: WebSocketEndpoint.Message
        /// Milliseconds after the `101`.
        package var atMilliseconds: Int
    }

    package var messages: [Message] = []
    /// The upstream's close frame, and when it came.
    package var upstreamClose: (code: UInt16, reason: String, atMilliseconds: Int)?
}

/// Follows a forwarded stream for the recorder as it passes: what it has seen so far is the
/// exchange at any time (a stream still open when the recording stops is recorded as far as it
/// went). Reads copies of the bytes (`BodyStream.tap`, `ConnectionUpgrade.tapInput`).
final class StreamCapture: Sendable {
    /// Events and messages kept per stream: a stream that runs for hours is recorded as far as
    /// its first ten thousand, and the report says so.
    static let maximumItems = 10_000

    fileprivate struct State {
        var exchange: RecordedExchange
        var splitter = ServerSentEventSplitter()
        var fromClient = WebSocketMessageReader()
        var fromUpstream = WebSocketMessageReader()
        var truncated = false
    }

    private let started = DispatchTime.now()
    private let state: Locked<State>

    init(_ exchange: RecordedExchange) {
        state = Locked(State(exchange: exchange))
    }

    /// The exchange as far as it went.
    var exchange: RecordedExchange { state.withLock { $0.exchange } }
    var truncated: Bool { state.withLock { $0.truncated } }

    private var elapsed: Int { Int((DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1_000_000) }

    /// Watches an event stream; `ended` runs once when it ends either way.
    func followEvents(_ stream: BodyStream, ended: @escaping @Sendable () -> Void) {
        state.withLock { $0.exchange.events = RecordedEvents() }
        stream.tap { [self] event in
            let at = elapsed
            switch event {
            case .bytes(let piece):
                state.withLock { s in
                    for block in s.splitter.append(piece) { s.addEvent(block, at: at) }
                }
            case .finished:
                state.withLock { s in
                    if let last = s.splitter.finish() { s.addEvent(last, at: at) }
                    s.exchange.events?.ended = true
                }
                ended()
            case .broken:
                ended()
            }
        }
    }

    /// Watches a WebSocket passed through; `ended` runs once when the connection ends.
    func followWebSocket(_ upgrade: ConnectionUpgrade, ended: @escaping @Sendable () -> Void) {
        state.withLock { $0.exchange.webSocket = RecordedWebSocket() }
        upgrade.tapInput { [self] bytes in
            let at = elapsed
            state.withLock { s in
                for item in s.fromClient.read(bytes) { s.add(item, .fromClient, at: at) }
            }
        }
        upgrade.output.tap { [self] event in
            let at = elapsed
            switch event {
            case .bytes(let bytes):
                state.withLock { s in
                    for item in s.fromUpstream.read(bytes) { s.add(item, .fromUpstream, at: at) }
                }
            case .finished, .broken:
                ended()
            }
        }
    }
}

extension StreamCapture.State {
    fileprivate mutating func addEvent(_ block: ServerSentEventBlock, at: Int) {
        guard exchange.events!.events.count < StreamCapture.maximumItems else {
            truncated = true
            return
        }
        exchange.events!.events.append(.init(block: block, atMilliseconds: at))
    }

    fileprivate mutating func add(
        _ item: WebSocketMessageReader.Item,
        _ direction: RecordedWebSocket.Direction,
        at: Int
    ) {
        switch item {
        case .message(let message):
            guard exchange.webSocket!.messages.count < StreamCapture.maximumItems else {
                truncated = true
                return
            }
            exchange.webSocket!.messages.append(.init(direction: direction, message: message, atMilliseconds: at))
        case .close(let code, let reason):
            if direction == .fromUpstream, exchange.webSocket!.upstreamClose == nil {
                exchange.webSocket!.upstreamClose = (code, reason, at)
            }
        case .unreadable:
            truncated = true
        }
    }
}
