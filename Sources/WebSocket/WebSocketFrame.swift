/// One WebSocket frame (RFC 6455 §5.2) and how frames are written.
package struct WebSocketFrame: Sendable, Equatable {
    package enum Opcode: UInt8, Sendable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Close, ping and pong: at most 125 bytes, never fragmented (§5.5).
        package var isControl: Bool { rawValue & 0x8 != 0 }
    }

    package var fin: Bool
    package var opcode: Opcode
    /// Unmasked: the parser removes a client's mask.
    package var payload: [UInt8]

    package init(fin: Bool = true, opcode: Opcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame's bytes. A server sends frames unmasked; a client must mask them (§5.3), with
    /// a fresh key per frame: tests and the proxy's client side pass one.
    package func encoded(maskingKey: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if payload.count < 126 {
            out.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(payload.count >> 8))
            out.append(UInt8(payload.count & 0xFF))
        } else {
            out.append(maskBit | 127)
            let length = UInt64(payload.count)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8((length >> UInt64(shift)) & 0xFF))
            }
        }
        guard let key = maskingKey else {
            out.append(contentsOf: payload)
            return out
        }
        let keyBytes = [key.0, key.1, key.2, key.3]
        out.append(contentsOf: keyBytes)
        for (index, byte) in payload.enumerated() {
            out.append(byte ^ keyBytes[index & 3])
        }
        return out
    }

    /// A close frame's payload: the code, then the reason as UTF-8 (cut to fit 125 bytes).
    package static func closePayload(code: UInt16, reason: String) -> [UInt8] {
        var payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
        var reasonBytes = Array(reason.utf8)
        while reasonBytes.count > 123 {
            // Cut at a scalar boundary so the reason stays valid UTF-8.
            reasonBytes.removeLast()
            while let last = reasonBytes.last, last & 0xC0 == 0x80 {
                reasonBytes.removeLast()
            }
            if let last = reasonBytes.last, last >= 0xC0 {
                reasonBytes.removeLast()
            }
        }
        payload.append(contentsOf: reasonBytes)
        return payload
    }
}

/// Why a connection is closed by the protocol, with the close code the peer is sent (§7.4.1).
package struct WebSocketProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    package let code: UInt16
    package let reason: String

    package init(_ code: UInt16, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "\(code): \(reason)" }

    package static let protocolError: UInt16 = 1002
    package static let invalidData: UInt16 = 1007
    package static let policyViolation: UInt16 = 1008
    package static let tooBig: UInt16 = 1009
}
