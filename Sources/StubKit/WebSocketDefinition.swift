import Foundation

/// A stub's `websocket` (docs/stub-format.md, WebSocket): what the server sends when a
/// connection opens, the rules that answer the client's messages, what happens to a message no
/// rule matches, and a close. The upgrade request is matched like any other.
///
///     StubDefinition(
///         request: .get("/v1/chat"),
///         webSocket: WebSocketDefinition(
///             onOpen: [.json(["type": "hello"])],
///             onMessage: [
///                 WebSocketRule(match: .json(["type": "ping"]), reply: [.json(["type": "pong"])]),
///                 WebSocketRule(match: .contains("bye"), close: WebSocketClose(code: 1000, reason: "bye")),
///             ],
///             onUnmatched: .ignore
///         )
///     )
///
/// Through `LocalStubServer` a `URLSessionWebSocketTask` connects to it; `StubURLProtocol`
/// cannot carry a WebSocket and fails such a request with a `URLError` that says so.
public struct WebSocketDefinition: Sendable, Equatable {
    /// Sent when the connection opens, one after another.
    public var onOpen: [WebSocketMessage]
    /// The first rule whose `match` holds answers a message.
    public var onMessage: [WebSocketRule]
    /// nil: `.ignore`.
    public var onUnmatched: Unmatched?
    /// Closes the connection `after` it opened.
    public var close: WebSocketClose?

    public init(
        onOpen: [WebSocketMessage] = [],
        onMessage: [WebSocketRule] = [],
        onUnmatched: Unmatched? = nil,
        close: WebSocketClose? = nil
    ) {
        self.onOpen = onOpen
        self.onMessage = onMessage
        self.onUnmatched = onUnmatched
        self.close = close
    }

    /// What happens to a client message no rule matches. Either way it is journaled with each
    /// rule's near-miss line.
    public enum Unmatched: String, Sendable, CaseIterable {
        /// Nothing is sent.
        case ignore
        /// The connection is closed with 1008 (policy violation).
        case close
    }

    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if !onOpen.isEmpty { members.append(("onOpen", .array(onOpen.map(\.json)))) }
        if !onMessage.isEmpty { members.append(("onMessage", .array(onMessage.map(\.json)))) }
        if let onUnmatched { members.append(("onUnmatched", .string(onUnmatched.rawValue))) }
        if let close { members.append(("close", close.json)) }
        return .object(members)
    }
}

/// One message the server sends, `delay` after the previous one of its list (after the open,
/// or after the client's message, for the first). `{{...}}` templates work in text and JSON:
/// the upgrade request's variables, and in a rule's reply `message.text` and
/// `message.json./POINTER`.
public struct WebSocketMessage: Sendable, Equatable {
    public var payload: Payload
    /// Whole milliseconds.
    public var delay: Duration?

    public init(_ payload: Payload, delay: Duration? = nil) {
        self.payload = payload
        self.delay = delay
    }

    public enum Payload: Sendable, Equatable {
        /// A text frame.
        case text(String)
        /// A text frame holding the value as compact JSON. (An object whose only key is
        /// `"binary"` reads as `.binary` in the stub format.)
        case json(JSONValue)
        /// A binary frame.
        case binary(Data)
    }

    public static func text(_ text: String, after delay: Duration? = nil) -> WebSocketMessage {
        WebSocketMessage(.text(text), delay: delay)
    }

    public static func json(_ value: JSONValue, after delay: Duration? = nil) -> WebSocketMessage {
        WebSocketMessage(.json(value), delay: delay)
    }

    public static func binary(_ data: Data, after delay: Duration? = nil) -> WebSocketMessage {
        WebSocketMessage(.binary(data), delay: delay)
    }

    var json: JSONValue {
        let send: JSONValue
        switch payload {
        case .text(let text): send = .string(text)
        case .json(let value): send = value
        case .binary(let data): send = ["binary": .string(data.base64EncodedString())]
        }
        var members: [(key: String, value: JSONValue)] = [("send", send)]
        if let delay { members.append(("delay", DefinitionJSON.milliseconds(delay))) }
        return .object(members)
    }
}

/// A rule for the client's messages: when `match` holds (nil: every message), send `reply`,
/// then close if `close` is given. `match` takes the request body's conditions, against the
/// message's text (a binary message's bytes).
public struct WebSocketRule: Sendable, Equatable {
    public var match: BodyMatcherDefinition?
    public var reply: [WebSocketMessage]
    public var close: WebSocketClose?

    public init(match: BodyMatcherDefinition? = nil, reply: [WebSocketMessage] = [], close: WebSocketClose? = nil) {
        self.match = match
        self.reply = reply
        self.close = close
    }

    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let match { members.append(("match", match.json)) }
        if !reply.isEmpty { members.append(("reply", .array(reply.map(\.json)))) }
        if let close { members.append(("close", close.json)) }
        return .object(members)
    }
}

/// The server closes the connection: with `code` (1000 to 1003, 1007 to 1014, 3000 to 4999)
/// and `reason` (at most 123 bytes), `after` the open (in `WebSocketDefinition.close`) or after
/// the rule's replies (in a rule).
public struct WebSocketClose: Sendable, Equatable {
    public var code: Int
    public var reason: String?
    /// Whole milliseconds.
    public var after: Duration?

    public init(code: Int = 1000, reason: String? = nil, after: Duration? = nil) {
        self.code = code
        self.reason = reason
        self.after = after
    }

    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("code", .number(Double(code)))]
        if let reason { members.append(("reason", .string(reason))) }
        if let after { members.append(("after", DefinitionJSON.milliseconds(after))) }
        return .object(members)
    }
}
