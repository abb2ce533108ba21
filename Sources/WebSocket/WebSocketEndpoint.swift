/// The server side of one WebSocket connection after the handshake, without I/O: bytes from
/// the client in, messages and the bytes to send back out (RFC 6455 §5 to §7).
///
/// It reassembles fragmented messages, answers pings with pongs, checks text as UTF-8 (1007),
/// bounds a message (1009), refuses what the protocol forbids (1002) and runs the closing
/// handshake from either side. Whoever owns the socket writes `output` and closes the
/// connection when `closeConnection` says so.
package struct WebSocketEndpoint: Sendable {
    package enum Message: Sendable, Equatable {
        case text(String)
        case binary([UInt8])
    }

    /// What one call changed: complete messages, bytes to send, whether the TCP connection
    /// should now be closed (after `output` is written), and the close that ended it.
    package struct Reaction: Sendable, Equatable {
        package var messages: [Message] = []
        package var output: [UInt8] = []
        package var closeConnection = false
        /// The close code and reason received from the client (or the protocol error that
        /// ended the connection), once the connection is closing.
        package var closedWith: (code: UInt16, reason: String)?

        package init() {}

        package static func == (a: Reaction, b: Reaction) -> Bool {
            a.messages == b.messages && a.output == b.output && a.closeConnection == b.closeConnection
                && a.closedWith?.code == b.closedWith?.code && a.closedWith?.reason == b.closedWith?.reason
        }
    }

    package enum State: Sendable, Equatable {
        case open
        /// We sent a close frame and wait for the client's.
        case closeSent
        case closed
    }

    package private(set) var state = State.open
    package let maximumMessageBytes: Int
    private var parser: WebSocketFrameParser
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: WebSocketFrame.Opcode?

    package init(maximumMessageBytes: Int = 1 << 20) {
        self.maximumMessageBytes = maximumMessageBytes
        parser = WebSocketFrameParser(maximumPayload: maximumMessageBytes)
    }

    /// Bytes from the client.
    package mutating func receive(_ bytes: some Sequence<UInt8>) -> Reaction {
        var reaction = Reaction()
        guard state != .closed else { return reaction }
        parser.append(bytes)
        do {
            while state != .closed, let frame = try parser.next() {
                try handle(frame, &reaction)
            }
        } catch {
            fail(error, &reaction)
        }
        return reaction
    }

    /// The client closed the TCP connection (or it broke) without a closing handshake: 1006.
    package mutating func connectionLost() -> Reaction {
        var reaction = Reaction()
        guard state != .closed else { return reaction }
        state = .closed
        reaction.closeConnection = true
        reaction.closedWith = (1006, "the connection ended without a close frame")
        return reaction
    }

    /// A message to the client; nothing once closing.
    package func send(_ message: Message) -> [UInt8] {
        guard state == .open else { return [] }
        switch message {
        case .text(let text): return WebSocketFrame(opcode: .text, payload: Array(text.utf8)).encoded()
        case .binary(let bytes): return WebSocketFrame(opcode: .binary, payload: bytes).encoded()
        }
    }

    /// Starts the closing handshake from the server's side: the close frame to send. The owner
    /// closes the TCP connection when the client's close arrives, or after a grace period.
    package mutating func close(code: UInt16, reason: String) -> [UInt8] {
        guard state == .open else { return [] }
        state = .closeSent
        return WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: code, reason: reason))
            .encoded()
    }

    // MARK: Frames

    private mutating func handle(_ frame: WebSocketFrame, _ reaction: inout Reaction) throws(WebSocketProtocolError) {
        switch frame.opcode {
        case .ping:
            if state == .open {
                reaction.output += WebSocketFrame(opcode: .pong, payload: frame.payload).encoded()
            }
        case .pong:
            return  // unsolicited pongs are allowed and mean nothing (§5.5.3)
        case .close:
            try receiveClose(frame.payload, &reaction)
        case .text, .binary:
            guard fragmentedOpcode == nil else {
                throw WebSocketProtocolError(
                    WebSocketProtocolError.protocolError,
                    "a new message began before the fragmented one ended"
                )
            }
            if frame.fin {
                try complete(frame.opcode, frame.payload, &reaction)
            } else {
                fragmentedOpcode = frame.opcode
                fragments = frame.payload
                try checkSize()
            }
        case .continuation:
            guard let opcode = fragmentedOpcode else {
                throw WebSocketProtocolError(
                    WebSocketProtocolError.protocolError,
                    "a continuation frame with no message to continue"
                )
            }
            fragments += frame.payload
            try checkSize()
            if frame.fin {
                let whole = fragments
                fragments = []
                fragmentedOpcode = nil
                try complete(opcode, whole, &reaction)
            }
        }
    }

    private func checkSize() throws(WebSocketProtocolError) {
        guard fragments.count <= maximumMessageBytes else {
            throw WebSocketProtocolError(
                WebSocketProtocolError.tooBig,
                "a message of more than \(maximumMessageBytes) bytes"
            )
        }
    }

    private mutating func complete(
        _ opcode: WebSocketFrame.Opcode,
        _ payload: [UInt8],
        _ reaction: inout Reaction
    ) throws(WebSocketProtocolError) {
        // Messages after our close frame are discarded (§5.5.1: the client may still send some).
        guard state == .open else { return }
        if opcode == .text {
            guard let text = String(validating: payload, as: UTF8.self) else {
                throw WebSocketProtocolError(WebSocketProtocolError.invalidData, "a text message that is not UTF-8")
            }
            reaction.messages.append(.text(text))
        } else {
            reaction.messages.append(.binary(payload))
        }
    }

    private mutating func receiveClose(_ payload: [UInt8], _ reaction: inout Reaction) throws(WebSocketProtocolError) {
        var code: UInt16 = 1005
        var reason = ""
        if payload.count == 1 {
            throw WebSocketProtocolError(WebSocketProtocolError.protocolError, "a close frame with a one-byte body")
        }
        if payload.count >= 2 {
            code = UInt16(payload[0]) << 8 | UInt16(payload[1])
            guard Self.isValidCloseCode(code) else {
                throw WebSocketProtocolError(WebSocketProtocolError.protocolError, "close code \(code) may not be sent")
            }
            guard let text = String(validating: payload[2...], as: UTF8.self) else {
                throw WebSocketProtocolError(WebSocketProtocolError.invalidData, "a close reason that is not UTF-8")
            }
            reason = text
        }
        if state == .open {
            // Echo the code, as most servers do; none when the client sent none.
            let reply = code == 1005 ? [] : [UInt8(code >> 8), UInt8(code & 0xFF)]
            reaction.output += WebSocketFrame(opcode: .close, payload: reply).encoded()
        }
        state = .closed
        reaction.closeConnection = true
        reaction.closedWith = (code, reason)
    }

    private mutating func fail(_ error: WebSocketProtocolError, _ reaction: inout Reaction) {
        if state == .open {
            let payload = WebSocketFrame.closePayload(code: error.code, reason: error.reason)
            reaction.output += WebSocketFrame(opcode: .close, payload: payload).encoded()
        }
        state = .closed
        reaction.closeConnection = true
        reaction.closedWith = (error.code, error.reason)
    }

    /// The codes an endpoint may put in a close frame (§7.4): 1004, 1005, 1006 and 1015 are
    /// reserved; 1016 to 2999 are unassigned; 3000 to 4999 are for libraries and applications.
    package static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014: true
        case 3000...4999: true
        default: false
        }
    }
}
