/// Reads frames from bytes as they arrive, incrementally (RFC 6455 §5.2), server side: every
/// frame must be masked, no extension is agreed (so the RSV bits are 0), and a payload larger
/// than `maximumPayload` is refused from its header, before a byte of it is held.
///
/// Knows nothing of connections or stubs: bytes in, frames or a protocol error out.
package struct WebSocketFrameParser: Sendable {
    package let maximumPayload: Int
    package let requiresMasking: Bool
    private var buffer: [UInt8] = []
    /// Where the unread bytes start in `buffer` (compacted when half is read).
    private var start = 0

    package init(maximumPayload: Int, requiresMasking: Bool = true) {
        self.maximumPayload = maximumPayload
        self.requiresMasking = requiresMasking
    }

    /// Bytes held that do not make a whole frame yet.
    package var bufferedCount: Int { buffer.count - start }

    package mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, nil when more bytes are needed. After an error the parser is
    /// useless: the connection is closed with the error's code.
    package mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        if first & 0x70 != 0 {
            throw WebSocketProtocolError(
                WebSocketProtocolError.protocolError,
                "reserved bits set, but no extension was agreed"
            )
        }
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            throw WebSocketProtocolError(WebSocketProtocolError.protocolError, "unknown opcode \(first & 0x0F)")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        if requiresMasking && !masked {
            throw WebSocketProtocolError(WebSocketProtocolError.protocolError, "a client frame must be masked")
        }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 {
                length = length << 8 | UInt64(buffer[start + index])
            }
            if length >> 63 != 0 {
                throw WebSocketProtocolError(
                    WebSocketProtocolError.protocolError,
                    "a 64-bit length with its top bit set"
                )
            }
            headerLength = 10
        }
        if opcode.isControl {
            guard fin else {
                throw WebSocketProtocolError(
                    WebSocketProtocolError.protocolError,
                    "a control frame must not be fragmented"
                )
            }
            guard length <= 125 else {
                throw WebSocketProtocolError(
                    WebSocketProtocolError.protocolError,
                    "a control frame carries at most 125 bytes"
                )
            }
        }
        guard length <= UInt64(maximumPayload) else {
            throw WebSocketProtocolError(
                WebSocketProtocolError.tooBig,
                "a frame of \(length) bytes is over the limit of \(maximumPayload)"
            )
        }
        let payloadLength = Int(length)
        let keyStart = start + headerLength
        if masked { headerLength += 4 }
        guard available >= headerLength + payloadLength else { return nil }
        let payloadStart = start + headerLength
        var payload = Array(buffer[payloadStart..<(payloadStart + payloadLength)])
        if masked {
            let key = (buffer[keyStart], buffer[keyStart + 1], buffer[keyStart + 2], buffer[keyStart + 3])
            Self.unmask(&payload, key)
        }
        start += headerLength + payloadLength
        compact()
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.count <= 1 << 16)
            start = 0
        } else if start > 4096 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }

    private static func unmask(_ payload: inout [UInt8], _ key: (UInt8, UInt8, UInt8, UInt8)) {
        let keyBytes = [key.0, key.1, key.2, key.3]
        for index in payload.indices {
            payload[index] ^= keyBytes[index & 3]
        }
    }
}
