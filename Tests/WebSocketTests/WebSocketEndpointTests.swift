import WebSocket
import XCTest

/// The server side of RFC 6455 without sockets: frames as bytes in, messages and bytes out.
final class WebSocketEndpointTests: XCTestCase {
    private let key: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)

    private func masked(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        WebSocketFrame(fin: fin, opcode: opcode, payload: payload).encoded(maskingKey: key)
    }

    private func masked(_ opcode: WebSocketFrame.Opcode, _ text: String, fin: Bool = true) -> [UInt8] {
        masked(opcode, Array(text.utf8), fin: fin)
    }

    /// The frames the server wrote.
    private func frames(_ bytes: [UInt8]) throws -> [WebSocketFrame] {
        var parser = WebSocketFrameParser(maximumPayload: 1 << 20, requiresMasking: false)
        parser.append(bytes)
        var result: [WebSocketFrame] = []
        while let frame = try parser.next() {
            result.append(frame)
        }
        XCTAssertEqual(parser.bufferedCount, 0, "the output ends inside a frame")
        return result
    }

    private func closeCode(_ bytes: [UInt8]) throws -> UInt16? {
        guard let close = try frames(bytes).last, close.opcode == .close, close.payload.count >= 2 else { return nil }
        return UInt16(close.payload[0]) << 8 | UInt16(close.payload[1])
    }

    func testTheRFCsSampleKeyGetsItsAcceptValue() {
        // RFC 6455 §1.3.
        XCTAssertEqual(
            WebSocketHandshake.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        )
    }

    func testTheRFCsMaskedHelloIsReadAsText() {
        // RFC 6455 §5.7: "A single-frame masked text message".
        var endpoint = WebSocketEndpoint()
        let reaction = endpoint.receive([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        XCTAssertEqual(reaction.messages, [.text("Hello")])
        XCTAssertEqual(reaction.output, [])
        XCTAssertFalse(reaction.closeConnection)
    }

    func testServerFramesAreUnmaskedWithTheRightLengthForm() {
        XCTAssertEqual(
            WebSocketFrame(opcode: .text, payload: Array("Hello".utf8)).encoded(),
            [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        )
        XCTAssertEqual(
            Array(WebSocketFrame(opcode: .binary, payload: Array(repeating: 0, count: 256)).encoded().prefix(4)),
            [0x82, 0x7E, 0x01, 0x00]
        )
        XCTAssertEqual(
            Array(WebSocketFrame(opcode: .binary, payload: Array(repeating: 0, count: 65_536)).encoded().prefix(10)),
            [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0]
        )
    }

    func testAnUnmaskedClientFrameClosesWith1002() throws {
        var endpoint = WebSocketEndpoint()
        let reaction = endpoint.receive(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)).encoded())
        XCTAssertEqual(reaction.messages, [])
        XCTAssertTrue(reaction.closeConnection)
        XCTAssertEqual(try closeCode(reaction.output), 1002)
    }

    func testFragmentsWithAPingBetweenMakeOneMessageAndAPong() throws {
        var endpoint = WebSocketEndpoint()
        var bytes = masked(.text, "Hel", fin: false)
        bytes += masked(.ping, "are you there")
        bytes += masked(.continuation, "lo", fin: false)
        bytes += masked(.continuation, " world")
        let reaction = endpoint.receive(bytes)
        XCTAssertEqual(reaction.messages, [.text("Hello world")])
        XCTAssertEqual(
            try frames(reaction.output),
            [WebSocketFrame(opcode: .pong, payload: Array("are you there".utf8))]
        )
    }

    func testBytesSplitAnywhereGiveTheSameMessages() {
        let bytes = masked(.binary, Array(0..<200).map(UInt8.init)) + masked(.text, "second")
        var whole = WebSocketEndpoint()
        let expected = whole.receive(bytes).messages
        var split = WebSocketEndpoint()
        var messages: [WebSocketEndpoint.Message] = []
        for byte in bytes {
            messages += split.receive([byte]).messages
        }
        XCTAssertEqual(messages, expected)
        XCTAssertEqual(messages.count, 2)
    }

    func testAContinuationWithNothingToContinueIs1002() throws {
        var endpoint = WebSocketEndpoint()
        let reaction = endpoint.receive(masked(.continuation, "orphan"))
        XCTAssertEqual(try closeCode(reaction.output), 1002)
    }

    func testANewMessageInsideAFragmentedOneIs1002() throws {
        var endpoint = WebSocketEndpoint()
        let reaction = endpoint.receive(masked(.text, "a", fin: false) + masked(.text, "b"))
        XCTAssertEqual(try closeCode(reaction.output), 1002)
    }

    func testReservedBitsWithoutAnExtensionAre1002() throws {
        var bytes = masked(.text, "x")
        bytes[0] |= 0x40  // RSV1, as permessage-deflate would set it
        var endpoint = WebSocketEndpoint()
        XCTAssertEqual(try closeCode(endpoint.receive(bytes).output), 1002)
    }

    func testUnknownOpcodeIs1002() throws {
        var bytes = masked(.binary, [1])
        bytes[0] = 0x83
        var endpoint = WebSocketEndpoint()
        XCTAssertEqual(try closeCode(endpoint.receive(bytes).output), 1002)
    }

    func testAControlFrameOver125BytesOrFragmentedIs1002() throws {
        var long = WebSocketEndpoint()
        XCTAssertEqual(try closeCode(long.receive(masked(.ping, Array(repeating: 1, count: 126))).output), 1002)
        var fragmented = WebSocketEndpoint()
        XCTAssertEqual(try closeCode(fragmented.receive(masked(.ping, [1], fin: false)).output), 1002)
    }

    func testTextThatIsNotUTF8Is1007() throws {
        var endpoint = WebSocketEndpoint()
        let reaction = endpoint.receive(masked(.text, [0x48, 0xFF, 0x49]))
        XCTAssertEqual(reaction.messages, [])
        XCTAssertEqual(try closeCode(reaction.output), 1007)
    }

    func testUTF8SplitAcrossFragmentsIsFine() {
        let snowman = Array("☃".utf8)
        var endpoint = WebSocketEndpoint()
        let bytes = masked(.text, Array(snowman[0..<1]), fin: false) + masked(.continuation, Array(snowman[1...]))
        XCTAssertEqual(endpoint.receive(bytes).messages, [.text("☃")])
    }

    func testAFrameOverTheLimitIs1009BeforeItsPayloadArrives() throws {
        var endpoint = WebSocketEndpoint(maximumMessageBytes: 1_000)
        // Only the header of a 2,000-byte frame: refused at once, nothing held.
        let header = Array(masked(.binary, Array(repeating: 0, count: 2_000)).prefix(8))
        let reaction = endpoint.receive(header)
        XCTAssertTrue(reaction.closeConnection)
        XCTAssertEqual(try closeCode(reaction.output), 1009)
    }

    func testFragmentsOverTheLimitTogetherAre1009() throws {
        var endpoint = WebSocketEndpoint(maximumMessageBytes: 1_000)
        let part = Array(repeating: UInt8(65), count: 600)
        let reaction = endpoint.receive(masked(.text, part, fin: false) + masked(.continuation, part))
        XCTAssertEqual(try closeCode(reaction.output), 1009)
    }

    func testTheClientsCloseIsEchoedAndEndsTheConnection() throws {
        var endpoint = WebSocketEndpoint()
        let reaction = endpoint.receive(masked(.close, WebSocketFrame.closePayload(code: 1000, reason: "done")))
        XCTAssertTrue(reaction.closeConnection)
        XCTAssertEqual(reaction.closedWith?.code, 1000)
        XCTAssertEqual(reaction.closedWith?.reason, "done")
        XCTAssertEqual(try closeCode(reaction.output), 1000)
        XCTAssertEqual(endpoint.state, .closed)
        XCTAssertEqual(endpoint.receive(masked(.text, "late")), WebSocketEndpoint.Reaction(), "nothing after the close")
    }

    func testAnEmptyCloseIsAnsweredWithAnEmptyClose() throws {
        var endpoint = WebSocketEndpoint()
        let reaction = endpoint.receive(masked(.close, []))
        XCTAssertEqual(try frames(reaction.output), [WebSocketFrame(opcode: .close, payload: [])])
        XCTAssertEqual(reaction.closedWith?.code, 1005)
    }

    func testCloseFramesThatBreakTheRulesAreRefused() throws {
        var oneByte = WebSocketEndpoint()
        XCTAssertEqual(try closeCode(oneByte.receive(masked(.close, [3])).output), 1002)
        var reserved = WebSocketEndpoint()
        XCTAssertEqual(
            try closeCode(reserved.receive(masked(.close, [0x03, 0xED])).output),
            1002,
            "1005 may not be sent"
        )
        var badReason = WebSocketEndpoint()
        XCTAssertEqual(try closeCode(badReason.receive(masked(.close, [0x03, 0xE8, 0xFF])).output), 1007)
    }

    func testTheServersCloseWaitsForTheClientsAnswer() throws {
        var endpoint = WebSocketEndpoint()
        let close = endpoint.close(code: 1011, reason: "upstream gone")
        XCTAssertEqual(try closeCode(close), 1011)
        XCTAssertEqual(endpoint.state, .closeSent)
        XCTAssertEqual(endpoint.send(.text("late")), [], "nothing is sent after the close")
        // A message still in flight is discarded; the client's close ends it without a reply.
        let reaction = endpoint.receive(
            masked(.text, "in flight") + masked(.close, WebSocketFrame.closePayload(code: 1011, reason: ""))
        )
        XCTAssertEqual(reaction.messages, [])
        XCTAssertEqual(reaction.output, [])
        XCTAssertTrue(reaction.closeConnection)
    }

    func testHandshakeProblemsAreNamed() {
        let good: [String: String] = [
            "Upgrade": "websocket", "Connection": "keep-alive, Upgrade",
            "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        XCTAssertNil(WebSocketHandshake.problem(method: "GET") { good[$0] })
        XCTAssertNotNil(WebSocketHandshake.problem(method: "POST") { good[$0] })
        var oldVersion = good
        oldVersion["Sec-WebSocket-Version"] = "8"
        XCTAssertEqual(WebSocketHandshake.problem(method: "GET") { oldVersion[$0] }, "Sec-WebSocket-Version must be 13")
        var shortKey = good
        shortKey["Sec-WebSocket-Key"] = "c2hvcnQ="
        XCTAssertEqual(
            WebSocketHandshake.problem(method: "GET") { shortKey[$0] },
            "Sec-WebSocket-Key must be 16 bytes in base64"
        )
    }
}
