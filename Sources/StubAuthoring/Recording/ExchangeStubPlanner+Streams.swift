import HTTP1
import JSON
import StubEngine
import SystemSupport
import WebSocket

/// Recorded streams as stubs: an event stream as `events` with the delays measured between
/// them, a WebSocket as a `websocket` stub whose rules answer the client's messages as the
/// upstream did (docs/proxy.md, "Recording streams").
extension ExchangeStubPlanner {
    /// Measured delays are written to this step: a replay cannot be truer than the timers and
    /// the network that measured them, and `1500` reads better than `1497`.
    static let delayStepMilliseconds = 10

    static func rounded(_ milliseconds: Int) -> Int {
        let step = delayStepMilliseconds
        return max(0, (milliseconds + step / 2) / step * step)
    }

    /// The events of an event stream: recorded as they came, or, for one that arrived whole (a
    /// short stream, an archive), cut from its body, all due at once.
    static func recordedEvents(_ exchange: RecordedExchange, body: [UInt8], contentType: String) -> RecordedEvents? {
        if let events = exchange.events { return events }
        guard MediaTypes.essence(contentType) == "text/event-stream", !body.isEmpty else { return nil }
        let blocks = ServerSentEventSplitter.blocks(of: body)
        return RecordedEvents(events: blocks.map { .init(block: $0, atMilliseconds: 0) }, ended: true)
    }

    /// `events` (and `then: hold` for a stream that was still open when it was recorded, and
    /// `template: false` when data holds `{{`, which would otherwise be read as a template).
    static func eventMembers(_ recorded: RecordedEvents) -> [(String, JSONNode)] {
        var previous = 0
        var braces = false
        let events: [JSONNode] = recorded.events.map { recordedEvent in
            let block = recordedEvent.block
            var event: [(String, JSONNode)] = []
            if let name = block.event { event.append(("event", .string(name))) }
            if let id = block.id { event.append(("id", .string(id))) }
            if let retry = block.retry { event.append(("retry", .number(retry))) }
            if let data = block.data {
                braces = braces || data.contains("{{")
                event.append(("data", textOrJSON(data)))
            }
            // A block of fields alone (an `id:` or `retry:` line) is kept with an empty comment:
            // an event needs data or a comment, and a comment line changes nothing for a client.
            if !block.comments.isEmpty || block.data == nil {
                event.append(("comment", .string(block.comments.joined(separator: "\n"))))
            }
            let delay = rounded(recordedEvent.atMilliseconds - previous)
            previous = recordedEvent.atMilliseconds
            if delay > 0 { event.append(("delay", .number(delay))) }
            return .object(event)
        }
        var members: [(String, JSONNode)] = [("events", .array(events))]
        if !recorded.ended { members.append(("then", .string("hold"))) }
        if braces { members.append(("template", .bool(false))) }
        return members
    }

    /// JSON text that is already compact JSON (what the stub would write back byte for byte) as
    /// JSON, so it reads and edits as such; anything else as the text it was.
    static func textOrJSON(_ text: String) -> JSONNode {
        guard let first = text.utf8.first, first == UInt8(ascii: "{") || first == UInt8(ascii: "["),
            let value = try? JSONParser.parse(Array(text.utf8), rejectDuplicateKeys: true, limits: .requestBody),
            JSONSerializer.string(value) == text
        else { return .string(text) }
        return value
    }

    /// A WebSocket passed through, as a `websocket` stub: the upstream's messages before the
    /// client's first as `onOpen`; for each message the client sent, a rule matching it
    /// exactly (`jsonEquals` for JSON, `equals` for text) whose replies are what the upstream
    /// sent next, until the client's next message; the upstream's close as the close of the
    /// rule it followed (or of the connection, before any message). A message the client sent
    /// again gets the first time's answer (the first rule wins); a binary one cannot be matched
    /// on, so no rule answers it.
    static func webSocketNode(_ recorded: RecordedWebSocket) -> JSONNode {
        var onOpen: [JSONNode] = []
        var rules: [(match: JSONNode, replies: [JSONNode], close: JSONNode?)] = []
        var seen: Set<[UInt8]> = []
        // The rule being filled (nil: onOpen, or a message no rule can answer).
        var current: Int?
        var beforeFirstMessage = true
        var previous = 0
        for item in recorded.messages {
            let delay = rounded(item.atMilliseconds - previous)
            previous = item.atMilliseconds
            switch item.direction {
            case .fromUpstream:
                var send: [(String, JSONNode)] = [("send", payload(item.message))]
                if delay > 0 { send.append(("delay", .number(delay))) }
                if beforeFirstMessage {
                    onOpen.append(.object(send))
                } else if let current {
                    rules[current].replies.append(.object(send))
                }
            case .fromClient:
                beforeFirstMessage = false
                current = nil
                guard case .text(let text) = item.message, !seen.contains(Array(text.utf8)) else { continue }
                seen.insert(Array(text.utf8))
                let value = textOrJSON(text)
                let match: JSONNode =
                    value.string == nil ? .object([("jsonEquals", value)]) : .object([("equals", .string(text))])
                rules.append((match, [], nil))
                current = rules.count - 1
            }
        }
        var members: [(String, JSONNode)] = []
        if !onOpen.isEmpty { members.append(("onOpen", .array(onOpen))) }
        if let close = recorded.upstreamClose {
            var node: [(String, JSONNode)] = [("code", .number(Int(close.code)))]
            if !close.reason.isEmpty { node.append(("reason", .string(close.reason))) }
            let before = recorded.messages.last { $0.atMilliseconds <= close.atMilliseconds }?.atMilliseconds ?? 0
            let after = rounded(close.atMilliseconds - before)
            if after > 0 { node.append(("after", .number(after))) }
            let closeCodeIsSendable = WebSocketEndpoint.isValidCloseCode(close.code)
            if closeCodeIsSendable, let last = lastRuleBefore(close.atMilliseconds, recorded, rules.count) {
                rules[last].close = .object(node)
            } else if closeCodeIsSendable, rules.isEmpty {
                members.append(("close", .object(node)))
            }
        }
        if !rules.isEmpty {
            members.append(
                (
                    "onMessage",
                    .array(
                        rules.map { rule in
                            var fields: [(String, JSONNode)] = [("match", rule.match)]
                            if !rule.replies.isEmpty { fields.append(("reply", .array(rule.replies))) }
                            if let close = rule.close { fields.append(("close", close)) }
                            return .object(fields)
                        }
                    )
                )
            )
        }
        return .object(members)
    }

    /// The rule the upstream's close followed: the one made for the client's last text message
    /// before it (nil when that message made no rule, or there was none).
    private static func lastRuleBefore(_ at: Int, _ recorded: RecordedWebSocket, _ ruleCount: Int) -> Int? {
        var rule = -1
        var seen: Set<[UInt8]> = []
        var lastMadeARule = false
        for item in recorded.messages where item.direction == .fromClient && item.atMilliseconds <= at {
            lastMadeARule = false
            if case .text(let text) = item.message, !seen.contains(Array(text.utf8)) {
                seen.insert(Array(text.utf8))
                rule += 1
                lastMadeARule = true
            }
        }
        return lastMadeARule && rule < ruleCount ? rule : nil
    }

    /// A message as `send`: text (JSON when it is compact JSON), or bytes as base64. Text that
    /// holds `{{` would be read as a template (sends have no way out of that), so it goes as
    /// its bytes in a binary frame.
    private static func payload(_ message: WebSocketEndpoint.Message) -> JSONNode {
        switch message {
        case .text(let text) where !text.contains("{{"):
            return textOrJSON(text)
        case .text(let text):
            return .object([("binary", .string(Base64.encode(Array(text.utf8))))])
        case .binary(let bytes):
            return .object([("binary", .string(Base64.encode(bytes)))])
        }
    }
}
