// libFuzzer target for the WebSocket frame parser and the server endpoint over it (the
// WebSocket module: bytes from clients). Not part of the package: scripts/fuzz compiles this
// file together with Sources/WebSocket/*.swift as one module, so internal API is reachable.
//
// Each input is:
//   byte 0     the message size limit, as 16 << (byte % 12) bytes (16 B to 32 KiB);
//   byte 1     the read size of the split run (1 to 256);
//   the rest   the bytes a client sends after the handshake.
// The bytes go to an endpoint whole, in pieces of the chosen size, and one byte at a time;
// every run must give the same messages, the same output and the same close. The parser must
// never return a frame larger than the limit, every text message must be valid UTF-8, the
// output must parse as unmasked server frames (pongs echo pings, at most one close, nothing
// after it), and once closed the endpoint must say nothing more. Then frames the fuzzer
// chooses are encoded masked and unmasked and must parse back to themselves. The watching
// reader of a proxied connection (`WebSocketMessageReader`) gets the same bytes whole, in
// pieces and byte by byte: the same items each way, no message over the limit, and nothing
// after it stops.
// A violated invariant is a precondition failure, which libFuzzer reports and saves.

private struct Run: Equatable {
    var messages: [WebSocketEndpoint.Message] = []
    var output: [UInt8] = []
    var closed = false
    var closeCode: UInt16?
}

private func run(_ bytes: ArraySlice<UInt8>, limit: Int, pieceSize: Int) -> Run {
    var endpoint = WebSocketEndpoint(maximumMessageBytes: limit)
    var result = Run()
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
        let end = min(offset + pieceSize, bytes.endIndex)
        let reaction = endpoint.receive(bytes[offset..<end])
        precondition(!result.closed || reaction == WebSocketEndpoint.Reaction(), "the endpoint spoke after closing")
        result.messages += reaction.messages
        result.output += reaction.output
        if reaction.closeConnection {
            precondition(!result.closed, "closed twice")
            result.closed = true
            result.closeCode = reaction.closedWith?.code
        }
        offset = end
    }
    for message in result.messages {
        if case .text(let text) = message {
            precondition(String(validating: Array(text.utf8), as: UTF8.self) != nil, "a text message that is not UTF-8")
            precondition(text.utf8.count <= limit, "a message over the limit")
        }
        if case .binary(let data) = message { precondition(data.count <= limit, "a message over the limit") }
    }
    checkOutput(result.output)
    return result
}

/// What the server wrote must be unmasked frames: pongs and at most one close, which is last.
private func checkOutput(_ output: [UInt8]) {
    var parser = WebSocketFrameParser(maximumPayload: 1 << 20, requiresMasking: false)
    parser.append(output)
    var sawClose = false
    while true {
        let frame: WebSocketFrame?
        do {
            frame = try parser.next()
        } catch {
            preconditionFailure("the server wrote a frame it cannot read back: \(error)")
        }
        guard let frame else { break }
        precondition(!sawClose, "a frame after the close")
        switch frame.opcode {
        case .pong: precondition(frame.payload.count <= 125)
        case .close: sawClose = true
        default: preconditionFailure("the endpoint wrote \(frame.opcode) on its own")
        }
    }
    precondition(parser.bufferedCount == 0, "the output ends inside a frame")
}

/// The reader a proxied connection is watched with, fed in pieces of `pieceSize`.
private func read(_ bytes: ArraySlice<UInt8>, limit: Int, pieceSize: Int) -> [WebSocketMessageReader.Item] {
    var reader = WebSocketMessageReader(maximumMessageBytes: limit)
    var items: [WebSocketMessageReader.Item] = []
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
        let end = min(offset + pieceSize, bytes.endIndex)
        let more = reader.read(bytes[offset..<end])
        if case .unreadable = items.last { precondition(more.isEmpty, "the reader went on after it stopped") }
        items += more
        offset = end
    }
    for case .message(let message) in items {
        switch message {
        case .text(let text): precondition(text.utf8.count <= limit, "a message over the limit")
        case .binary(let data): precondition(data.count <= limit, "a message over the limit")
        }
    }
    return items
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let limit = 16 << Int(input[0] % 12)
    let pieceSize = Int(input[1]) + 1
    let body = input[2...]
    let whole = run(body, limit: limit, pieceSize: max(1, body.count))
    precondition(run(body, limit: limit, pieceSize: pieceSize) == whole, "pieces changed the outcome")
    if body.count <= 1024 {
        precondition(run(body, limit: limit, pieceSize: 1) == whole, "byte by byte changed the outcome")
    }
    let seen = read(body, limit: limit, pieceSize: max(1, body.count))
    precondition(read(body, limit: limit, pieceSize: pieceSize) == seen, "pieces changed what the reader saw")
    if body.count <= 1024 {
        precondition(read(body, limit: limit, pieceSize: 1) == seen, "byte by byte changed what the reader saw")
    }
    // Round trip: the input's bytes as payloads of frames of every opcode.
    let opcodes: [WebSocketFrame.Opcode] = [.continuation, .text, .binary, .close, .ping, .pong]
    let opcode = opcodes[Int(input[1]) % opcodes.count]
    let payload = Array(body.prefix(opcode.isControl ? 125 : 70_000))
    let frame = WebSocketFrame(fin: opcode.isControl || input[0] & 0x80 == 0, opcode: opcode, payload: payload)
    for key in [nil, (input[0], input[1], 0x5A, 0xA5)] as [(UInt8, UInt8, UInt8, UInt8)?] {
        var parser = WebSocketFrameParser(maximumPayload: 1 << 20, requiresMasking: key != nil)
        parser.append(frame.encoded(maskingKey: key))
        let back = try? parser.next()
        precondition(back == frame, "a frame did not read back as itself")
        precondition(parser.bufferedCount == 0)
    }
    _ = WebSocketHandshake.acceptValue(forKey: String(decoding: body.prefix(64), as: UTF8.self))
    return 0
}
