/// Reads the messages of one direction of a WebSocket connection it only watches (a proxied
/// one, for the journal and the recorder): frames masked or not, fragments joined, control
/// frames other than close skipped. It never answers anything and decides nothing for the
/// connection: the two ends do. After bytes it cannot read (a protocol error, an extension's
/// bits, a message over the bound) it reads no more and says why once.
package struct WebSocketMessageReader: Sendable {
    package enum Item: Sendable, Equatable {
        case message(WebSocketEndpoint.Message)
        /// A close frame: its code (1005 when it has none) and reason.
        case close(code: UInt16, reason: String)
        /// The reader stopped here: why.
        case unreadable(String)
    }

    private var parser: WebSocketFrameParser
    private var fragments: [UInt8] = []
    private var fragmentedOpcode: WebSocketFrame.Opcode?
    private var stopped = false
    package let maximumMessageBytes: Int

    package init(maximumMessageBytes: Int = 1 << 20) {
        self.maximumMessageBytes = maximumMessageBytes
        parser = WebSocketFrameParser(maximumPayload: maximumMessageBytes, requiresMasking: false)
    }

    /// The items the bytes complete.
    package mutating func read(_ bytes: some Sequence<UInt8>) -> [Item] {
        guard !stopped else { return [] }
        parser.append(bytes)
        var items: [Item] = []
        do {
            while let frame = try parser.next() {
                if let item = try take(frame) { items.append(item) }
            }
        } catch {
            stopped = true
            items.append(.unreadable("\(error.code) \(error.reason)"))
        }
        return items
    }

    private mutating func take(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> Item? {
        switch frame.opcode {
        case .ping, .pong:
            return nil
        case .close:
            guard frame.payload.count >= 2 else { return .close(code: 1005, reason: "") }
            let code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
            return .close(code: code, reason: String(decoding: frame.payload[2...], as: UTF8.self))
        case .text, .binary:
            guard frame.fin else {
                fragmentedOpcode = frame.opcode
                fragments = frame.payload
                return nil
            }
            return message(frame.opcode, frame.payload)
        case .continuation:
            guard let opcode = fragmentedOpcode else {
                throw WebSocketProtocolError(WebSocketProtocolError.protocolError, "a continuation with no message")
            }
            fragments += frame.payload
            guard fragments.count <= maximumMessageBytes else {
                throw WebSocketProtocolError(
                    WebSocketProtocolError.tooBig,
                    "a message of more than \(maximumMessageBytes) bytes"
                )
            }
            guard frame.fin else { return nil }
            let whole = fragments
            fragments = []
            fragmentedOpcode = nil
            return message(opcode, whole)
        }
    }

    private func message(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) -> Item {
        if opcode == .text, let text = String(validating: payload, as: UTF8.self) { return .message(.text(text)) }
        return .message(.binary(payload))
    }
}
