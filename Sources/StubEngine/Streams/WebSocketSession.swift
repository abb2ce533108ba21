import Dispatch
import HTTP1
import SystemSupport
import WebSocket

/// One open WebSocket connection of a stub: the protocol (`WebSocketEndpoint`) over the
/// connection's upgraded byte streams, and the stub's script on top: messages sent on open,
/// rules answering the client's messages, pushes from the admin API, the close.
///
/// Input arrives on the connection's loop and is handled there (parsing and matching are
/// quick); replies with a delay, templates and the close wait on one shared serial queue of
/// timers, so an open connection costs this object and no thread.
package final class WebSocketSession: Sendable {
    static let queue = DispatchQueue(label: "stubserver.websockets")
    /// How long the server waits for the client's close frame after sending its own.
    static let closeGraceMilliseconds = 2_000

    package let id: Int
    package let stub: Stub
    package let path: String
    package let peer: String
    package let openedAtMilliseconds: Int
    let transcript: StreamTranscript
    private let script: WebSocketScript
    private let upgrade: ConnectionUpgrade
    private let inputs: TemplateInputs
    private let hub: WebSocketHub

    private struct State {
        var endpoint = WebSocketEndpoint(maximumMessageBytes: WebSocketScript.maximumMessageBytes)
        var ended = false
        var received = 0
        var sent = 0
    }

    private let state = Locked(State())

    init(
        id: Int,
        stub: Stub,
        script: WebSocketScript,
        upgrade: ConnectionUpgrade,
        inputs: TemplateInputs,
        hub: WebSocketHub,
        openedAtMilliseconds: Int
    ) {
        self.id = id
        self.stub = stub
        self.script = script
        self.upgrade = upgrade
        self.inputs = inputs
        self.hub = hub
        self.path = inputs.request.path
        self.peer = inputs.request.peer
        self.openedAtMilliseconds = openedAtMilliseconds
        transcript = StreamTranscript(kind: .websocket)
    }

    /// Counts of messages each way, for the admin API's listing.
    package var counts: (received: Int, sent: Int) { state.withLock { ($0.received, $0.sent) } }

    /// Starts listening and runs `onOpen` (and the scripted close).
    func start() {
        hub.add(self)
        upgrade.output.onCancel { [weak self] in self?.ended("the client closed the connection (1006)") }
        upgrade.onInput { [weak self] bytes in self?.receive(bytes) }
        perform(script.onOpen, message: nil, close: script.close)
    }

    // MARK: From the client (on the connection's loop)

    private func receive(_ bytes: [UInt8]) {
        let reaction = state.withLock { s -> WebSocketEndpoint.Reaction in
            var reaction = s.endpoint.receive(bytes)
            s.received += reaction.messages.count
            if !reaction.output.isEmpty { upgrade.output.write(reaction.output) }
            reaction.output = []
            return reaction
        }
        for message in reaction.messages { answer(message) }
        if reaction.closeConnection {
            if let closed = reaction.closedWith {
                transcript.note("closed by the client or the protocol: \(closed.code) \(closed.reason)")
            }
            upgrade.output.finish()
            ended(reaction.closedWith.map { "closed: \($0.code) \($0.reason)" } ?? "closed")
        }
    }

    /// The first rule whose condition holds answers; none: `onUnmatched`, journaled with the
    /// near-miss lines of every rule.
    private func answer(_ message: WebSocketEndpoint.Message) {
        let messageFacts = RequestFacts(Self.messageRequest(message, peer: peer))
        let shown = Self.describe(message)
        for rule in script.rules where rule.match.map({ RequestMatcher.bodyMatches($0, messageFacts) }) ?? true {
            transcript.received(shown)
            perform(rule.replies, message: messageFacts, close: rule.close)
            return
        }
        let nearMiss = script.rules.enumerated().flatMap { index, rule in
            rule.match.map { matcher in
                RequestMatcher.bodyMismatches(matcher, messageFacts).map {
                    "onMessage[\(index)]: \($0.condition) expected \($0.expected), got \($0.actual)"
                }
            } ?? []
        }
        transcript.received(shown, nearMiss: nearMiss.isEmpty ? ["no onMessage rules"] : nearMiss)
        if script.onUnmatched == .close {
            closeNow(code: WebSocketProtocolError.policyViolation, reason: "no rule matched the message")
        }
    }

    /// A message as a request the body matchers read: its text (or bytes) as the body.
    private static func messageRequest(_ message: WebSocketEndpoint.Message, peer: String) -> IncomingRequest {
        let body: [UInt8]
        switch message {
        case .text(let text): body = Array(text.utf8)
        case .binary(let bytes): body = bytes
        }
        return IncomingRequest(
            method: "MESSAGE",
            target: "/",
            path: "/",
            rawQuery: nil,
            queryItems: [],
            headers: HeaderFields(),
            body: body,
            peer: peer,
            authority: nil
        )
    }

    static func describe(_ message: WebSocketEndpoint.Message) -> String {
        switch message {
        case .text(let text): text
        case .binary(let bytes): "(binary, \(bytes.count) bytes)"
        }
    }

    // MARK: Sending

    /// Sends `sends` one after another (each after its delay), then the close if one is given.
    private func perform(_ sends: [WebSocketScript.Send], message: RequestFacts?, close: WebSocketScript.Close?) {
        var due = DispatchTime.now()
        // Rendered now, on the thread that has the message: facts are not shared across threads.
        let context = inputs.context(message: message)
        for send in sends {
            let outgoing = render(send.payload, context)
            due = due + .milliseconds(send.delayMilliseconds)
            if send.delayMilliseconds == 0 && due <= .now() {
                self.send(outgoing)
            } else {
                Self.queue.asyncAfter(deadline: due) { [weak self] in self?.send(outgoing) }
            }
        }
        if let close {
            due = due + .milliseconds(close.afterMilliseconds)
            Self.queue.asyncAfter(deadline: due) { [weak self] in self?.closeNow(code: close.code, reason: close.reason)
            }
        }
    }

    private func render(_ payload: WebSocketScript.Payload, _ context: TemplateContext) -> WebSocketEndpoint.Message {
        switch payload {
        case .text(let text): return .text(text)
        case .binary(let bytes): return .binary(bytes)
        case .templated(let template):
            return .text(
                template.renderString(context)
                    ?? "stubserver: the reply template rendered more than \(context.maximumRenderedBytes) bytes"
            )
        }
    }

    /// Sends a message now; false when the connection is closing or gone.
    @discardableResult
    package func send(_ message: WebSocketEndpoint.Message) -> Bool {
        let sent = state.withLock { s -> Bool in
            let bytes = s.endpoint.send(message)
            guard !bytes.isEmpty, !s.ended else { return false }
            s.sent += 1
            upgrade.output.write(bytes)
            return true
        }
        if sent { transcript.sent(Self.describe(message)) }
        return sent
    }

    /// Starts the closing handshake; the connection ends when the client answers, or after
    /// the grace period.
    func closeNow(code: UInt16, reason: String) {
        let started = state.withLock { s -> Bool in
            let bytes = s.endpoint.close(code: code, reason: reason)
            guard !bytes.isEmpty, !s.ended else { return false }
            upgrade.output.write(bytes)
            return true
        }
        guard started else { return }
        transcript.note("closing: \(code) \(reason)")
        Self.queue.asyncAfter(deadline: .now() + .milliseconds(Self.closeGraceMilliseconds)) { [weak self] in
            guard let self else { return }
            self.upgrade.output.finish()
            self.ended("closed by the server: \(code) \(reason) (the client did not answer the close)")
        }
    }

    private func ended(_ why: String) {
        let first = state.withLock { s -> Bool in
            defer { s.ended = true }
            return !s.ended
        }
        guard first else { return }
        hub.remove(self)
        transcript.end(why)
    }
}

/// The open WebSocket connections of an engine, for the admin API: list them, push to them.
package final class WebSocketHub: Sendable {
    private struct State {
        var sessions: [Int: WebSocketSession] = [:]
        var nextID = 1
    }

    private let state = Locked(State())

    package init() {}

    func makeID() -> Int {
        state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
    }

    func add(_ session: WebSocketSession) {
        state.withLock { $0.sessions[session.id] = session }
    }

    func remove(_ session: WebSocketSession) {
        state.withLock { _ = $0.sessions.removeValue(forKey: session.id) }
    }

    /// Oldest first.
    package var open: [WebSocketSession] {
        state.withLock { $0.sessions.values.sorted { $0.id < $1.id } }
    }

    /// Sends to every open connection of the stub with this id or name; how many took it.
    package func send(_ message: WebSocketEndpoint.Message, toStub key: String) -> Int {
        open.filter { $0.stub.id == key || $0.stub.name == key }.reduce(0) { $0 + ($1.send(message) ? 1 : 0) }
    }
}
