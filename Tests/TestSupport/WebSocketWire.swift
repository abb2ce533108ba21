import Foundation

/// A raw-socket WebSocket client for tests that need exact frames on the wire: it writes the
/// handshake and frames byte by byte (masked or, to test the server's refusal, not) and reads
/// the server's frames with its own small decoder, independent of the server's parser.
public final class WebSocketWire {
    public struct Frame: Equatable {
        public var fin: Bool
        public var opcode: UInt8
        public var payload: [UInt8]

        public var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code, when it has one.
        public var closeCode: UInt16? {
            opcode == 8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
        }
    }

    public let connection: WireConnection
    public private(set) var head: WireResponse?
    private var pending: [UInt8] = []

    /// The key of RFC 6455 §1.3, so the accept value is known: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=.
    public static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    public init(port: Int) throws {
        connection = try WireConnection(port: port)
    }

    /// The server's end of a connection the test accepted itself (a scripted upstream): it
    /// reads the client's masked frames and sends frames made with `frame(_:_:masked: false)`.
    public init(serving connection: WireConnection) {
        self.connection = connection
    }

    /// Sends the upgrade request and reads the response head; bytes after it stay for frames.
    @discardableResult
    public func open(
        _ path: String,
        headers: [String] = [],
        key: String = WebSocketWire.sampleKey
    ) throws -> WireResponse {
        requestUpgrade(path, headers: headers, key: key)
        return try readUpgradeResponse()
    }

    /// The first half of `open`, for a test that must answer it itself (as a scripted upstream
    /// behind a proxy) before the response can come.
    public func requestUpgrade(_ path: String, headers: [String] = [], key: String = WebSocketWire.sampleKey) {
        connection.send(
            "GET \(path) HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n" + headers.map { $0 + "\r\n" }.joined()
                + "\r\n"
        )
    }

    /// The second half of `open`: the response head.
    @discardableResult
    public func readUpgradeResponse() throws -> WireResponse {
        let bytes = connection.readUntil(suffix: "\r\n\r\n")
        guard WireConnection.find(Array("\r\n\r\n".utf8), in: bytes) != nil else {
            throw WireConnection.Failure.timeout
        }
        let response = WireResponse(head: String(decoding: bytes, as: UTF8.self))
        head = response
        return response
    }

    /// A frame as a client sends it: masked unless `masked` is false.
    public static func frame(
        _ opcode: UInt8,
        _ payload: [UInt8],
        fin: Bool = true,
        masked: Bool = true,
        rsv: UInt8 = 0
    ) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            out.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            out += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF))
            }
        }
        guard masked else { return out + payload }
        let key: [UInt8] = [UInt8.random(in: 0...255), 0x5A, UInt8.random(in: 0...255), 0xC3]
        out += key
        for (i, byte) in payload.enumerated() { out.append(byte ^ key[i % 4]) }
        return out
    }

    public func send(_ bytes: [UInt8]) { connection.send(bytes) }

    public func sendText(_ text: String) { send(Self.frame(1, Array(text.utf8))) }

    public func sendClose(code: UInt16, reason: String = "") {
        send(Self.frame(8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)))
    }

    /// The next frame from the other end (unmasked if it came masked), or nil when none came
    /// before the deadline (or the connection ended).
    public func readFrame(timeoutMilliseconds: Int = 5_000) -> Frame? {
        let deadline = WireConnection.now() + timeoutMilliseconds
        while true {
            if let frame = takeFrame() { return frame }
            let left = deadline - WireConnection.now()
            guard left > 0 else { return nil }
            pending += connection.readSome(max: 65_536, timeoutMilliseconds: Int32(min(left, 100)))
        }
    }

    /// The next data frame's text, skipping nothing: nil if the next frame is not text.
    public func readText(timeoutMilliseconds: Int = 5_000) -> String? {
        guard let frame = readFrame(timeoutMilliseconds: timeoutMilliseconds), frame.opcode == 1 else { return nil }
        return frame.text
    }

    private func takeFrame() -> Frame? {
        guard pending.count >= 2 else { return nil }
        let masked = pending[1] & 0x80 != 0
        var length = Int(pending[1] & 0x7F)
        var at = 2
        if length == 126 {
            guard pending.count >= 4 else { return nil }
            length = Int(pending[2]) << 8 | Int(pending[3])
            at = 4
        } else if length == 127 {
            guard pending.count >= 10 else { return nil }
            length = pending[2..<10].reduce(0) { $0 << 8 | Int($1) }
            at = 10
        }
        let mask = masked ? at : nil
        if masked { at += 4 }
        guard pending.count >= at + length else { return nil }
        var payload = Array(pending[at..<(at + length)])
        if let mask {
            for index in payload.indices { payload[index] ^= pending[mask + index % 4] }
        }
        let frame = Frame(fin: pending[0] & 0x80 != 0, opcode: pending[0] & 0x0F, payload: payload)
        pending.removeFirst(at + length)
        return frame
    }
}
