import HTTP1

/// A stub's `websocket`: what the server sends when a connection opens, the rules that answer
/// the client's messages, what happens to a message no rule matches, and a close. Compiled at
/// load: matchers are the request body's, templates are parsed and checked.
package struct WebSocketScript: Sendable {
    /// One message to send, `delayMilliseconds` after the previous one of its list (after the
    /// open, or after the message that triggered it, for the first).
    package struct Send: Sendable {
        let payload: Payload
        let delayMilliseconds: Int

        package init(payload: Payload, delayMilliseconds: Int) {
            self.payload = payload
            self.delayMilliseconds = delayMilliseconds
        }
    }

    package enum Payload: Sendable {
        /// A text frame: fixed text, or a template rendered per message.
        case text(String)
        case templated(Template)
        case binary([UInt8])
    }

    package struct Close: Sendable, Equatable {
        let code: UInt16
        let reason: String
        let afterMilliseconds: Int

        package init(code: UInt16, reason: String, afterMilliseconds: Int) {
            self.code = code
            self.reason = reason
            self.afterMilliseconds = afterMilliseconds
        }
    }

    /// The first rule whose `match` holds answers a message; a rule without `match` answers
    /// every message that reaches it.
    package struct Rule: Sendable {
        let match: BodyMatcher?
        let replies: [Send]
        let close: Close?

        package init(match: BodyMatcher? = nil, replies: [Send], close: Close? = nil) {
            self.match = match
            self.replies = replies
            self.close = close
        }
    }

    package enum Unmatched: String, Sendable, CaseIterable {
        /// Recorded with its near-miss lines, and nothing is sent.
        case ignore
        /// The connection is closed with 1008 (policy violation).
        case close
    }

    let onOpen: [Send]
    let rules: [Rule]
    package let onUnmatched: Unmatched
    /// Closes the connection after the open (its `afterMilliseconds`).
    let close: Close?

    /// The largest message a client may send (larger ones close the connection with 1009).
    package static let maximumMessageBytes = 1 << 20

    package init(onOpen: [Send], rules: [Rule], onUnmatched: Unmatched, close: Close? = nil) {
        self.onOpen = onOpen
        self.rules = rules
        self.onUnmatched = onUnmatched
        self.close = close
    }
}
