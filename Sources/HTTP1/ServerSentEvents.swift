/// The `text/event-stream` format (WHATWG HTML §9.2.5 and §9.2.6): events written, and a
/// stream cut into its events and read back. Pure: no I/O, no stubs.
package enum ServerSentEvents {
    /// One event's bytes: comment lines, then `event:`, `id:`, `retry:`, each line of `data`
    /// as its own `data:` line, and the blank line that dispatches it. Values must not hold line
    /// breaks except `data` and `comment`, which are split into lines.
    package static func encode(
        comment: String? = nil,
        event: String? = nil,
        id: String? = nil,
        retry: Int? = nil,
        data: String? = nil
    ) -> [UInt8] {
        var out: [UInt8] = []
        if let comment {
            for line in lines(comment) {
                out.append(UInt8(ascii: ":"))
                if !line.isEmpty {
                    out.append(UInt8(ascii: " "))
                    out.append(contentsOf: line.utf8)
                }
                out.append(newline)
            }
        }
        if let event { appendField("event", event, to: &out) }
        if let id { appendField("id", id, to: &out) }
        if let retry { appendField("retry", String(retry), to: &out) }
        if let data {
            for line in lines(data) {
                appendField("data", line, to: &out)
            }
        }
        out.append(newline)
        return out
    }

    private static let newline = UInt8(ascii: "\n")

    private static func appendField(_ name: String, _ value: some StringProtocol, to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(UInt8(ascii: ":"))
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: value.utf8)
        out.append(newline)
    }

    /// Text split at CRLF, LF or CR, as the format splits lines; "" is one empty line.
    package static func lines(_ text: String) -> [Substring] {
        var result: [Substring] = []
        var lineStart = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            // "\r\n" is one Character in Swift, so one check covers all three endings.
            if character == "\n" || character == "\r" || character == "\r\n" {
                result.append(text[lineStart..<index])
                lineStart = text.index(after: index)
            }
            index = text.index(after: index)
        }
        result.append(text[lineStart...])
        return result
    }

    /// True when `value` can be a single-line field (`event`, `id`): no CR, LF or NUL.
    package static func isSingleLine(_ value: String) -> Bool {
        !value.utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 }
    }
}

/// One event as a client reads it, with the lines it came in (its raw form, line endings made
/// LF, ending with the blank line): replayed as it was, or turned back into fields.
package struct ServerSentEventBlock: Sendable, Equatable {
    package var event: String?
    package var id: String?
    package var retry: Int?
    /// The `data:` lines joined with LF; nil when the block has none.
    package var data: String?
    package var comments: [String] = []
    package var raw: [UInt8]

    /// Reads a block's lines (WHATWG §9.2.6): `name: value` (one space after the colon
    /// dropped), a line starting with ":" is a comment, a line with no colon is a name alone.
    package init(lines: [[UInt8]]) {
        var dataLines: [String] = []
        var raw: [UInt8] = []
        for line in lines {
            raw.append(contentsOf: line)
            raw.append(10)
            let name: [UInt8]
            var value: ArraySlice<UInt8>
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                name = Array(line[..<colon])
                value = line[(colon + 1)...]
                if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
            } else {
                name = line
                value = []
            }
            let text = String(decoding: value, as: UTF8.self)
            switch String(decoding: name, as: UTF8.self) {
            case "": comments.append(text)
            case "event": event = text
            case "data": dataLines.append(text)
            case "id" where !value.contains(0): id = text
            case "retry": retry = value.allSatisfy { $0 >= 48 && $0 <= 57 } && !value.isEmpty ? Int(text) : nil
            default: break
            }
        }
        raw.append(10)
        self.raw = raw
        data = dataLines.isEmpty ? nil : dataLines.joined(separator: "\n")
    }
}

/// Cuts a `text/event-stream` into event blocks as bytes arrive: a block ends at an empty line
/// (after CRLF, LF or CR). Bounded: a line longer than `maximumBlockBytes` ends the block
/// where it is, so an upstream that never sends a blank line cannot grow it without end.
package struct ServerSentEventSplitter: Sendable {
    package let maximumBlockBytes: Int
    private var line: [UInt8] = []
    private var lines: [[UInt8]] = []
    private var blockBytes = 0
    /// The last byte was CR: an LF right after it belongs to the same line ending.
    private var afterCR = false

    package init(maximumBlockBytes: Int = 1 << 20) {
        self.maximumBlockBytes = maximumBlockBytes
    }

    /// The blocks the bytes complete.
    package mutating func append(_ bytes: some Sequence<UInt8>) -> [ServerSentEventBlock] {
        var blocks: [ServerSentEventBlock] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == 10 { continue }
            }
            if byte == 10 || byte == 13 {
                afterCR = byte == 13
                endLine(&blocks)
            } else {
                line.append(byte)
                blockBytes += 1
                if blockBytes >= maximumBlockBytes {
                    endLine(&blocks)
                    endBlock(&blocks)
                }
            }
        }
        return blocks
    }

    /// The end of the stream: a last block that lacked its blank line.
    package mutating func finish() -> ServerSentEventBlock? {
        var blocks: [ServerSentEventBlock] = []
        if !line.isEmpty { endLine(&blocks) }
        endBlock(&blocks)
        return blocks.first
    }

    private mutating func endLine(_ blocks: inout [ServerSentEventBlock]) {
        if line.isEmpty {
            endBlock(&blocks)
        } else {
            lines.append(line)
            line = []
        }
    }

    private mutating func endBlock(_ blocks: inout [ServerSentEventBlock]) {
        if !lines.isEmpty { blocks.append(ServerSentEventBlock(lines: lines)) }
        lines = []
        blockBytes = 0
    }

    /// A whole stream's blocks (a file).
    package static func blocks(of bytes: [UInt8]) -> [ServerSentEventBlock] {
        var splitter = ServerSentEventSplitter()
        var blocks = splitter.append(bytes)
        if let last = splitter.finish() { blocks.append(last) }
        return blocks
    }
}
