import Testing

@testable import HTTP1

/// The scan the head parser skips a line's bytes with, eight at a time (`ByteClass.firstLineBreak`).
@Suite struct LineBreakScanTests {
    /// Against a byte-by-byte scan: never later than the first CR or LF; earlier only at a 0x0B
    /// or 0x0C (the borrow of the word-wise test), which the parser then reads as what it is.
    @Test func theLineBreakScanNeverPassesACROrLF() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [13, 10, 11, 12, 0, 1, 0x80, 0xFF, 0x7F, 32, 65, 0x0E, 0x0D ^ 0x80]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &generator)
            let bytes: [UInt8] = (0..<count).map { _ in
                Bool.random(using: &generator)
                    ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            let start = Int.random(in: 0...count, using: &generator)
            let end = Int.random(in: start...count, using: &generator)
            let expected = bytes[start..<end].firstIndex { $0 == 13 || $0 == 10 } ?? end
            let found = bytes.withUnsafeBufferPointer { ByteClass.firstLineBreak($0, from: start, to: end) }
            #expect(found <= expected, "\(bytes) \(start)..<\(end)")
            #expect(found >= start)
            if found < expected {
                #expect(bytes[found] == 0x0B || bytes[found] == 0x0C, "\(bytes) \(start)..<\(end): \(found)")
            }
        }
    }

    @Test func theLineBreakScanFindsEachPosition() {
        for count in 0...24 {
            for position in 0..<max(count, 1) where count > 0 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: count)
                bytes[position] = 10
                for start in 0...position {
                    let found = bytes.withUnsafeBufferPointer { ByteClass.firstLineBreak($0, from: start, to: count) }
                    #expect(found == position, "\(count) \(position) \(start)")
                }
            }
        }
    }

    /// The bytes the scan may stop at early, and bare CRs and LFs at every place in a word: the
    /// parser's verdict is the byte-by-byte one, however the head is split.
    @Test func theParserVerdictDoesNotDependOnTheScanOrOnSplits() {
        let heads = [
            ("GET /abcdefgh HTTP/1.1\r\n\u{0B}Host: h\r\n\r\n", 400),
            ("GET /abcdefgh HTTP/1.1\r\nHost: h\u{0C}\r\n\r\n", 400),
            ("GET /abcdefgh HTTP/1.1\r\nHost: h\r\nX-A: 1234567\rx\r\n\r\n", 400),
            ("GET /abcdefgh HTTP/1.1\r\nHost: h\r\nX-A: 12345678\n\r\n", 400),
            ("GET /abcdefgh HTTP/1.1\r\nHost: h\r\nX-Abcdefgh: 1\r\n\r\n", 0),
        ]
        for (head, status) in heads {
            let whole = ParserDriver.parse(head)
            #expect((whole.failure?.status ?? 0) == status, "\(head.debugDescription)")
            let bytes = Array(head.utf8)
            for split in 0...bytes.count {
                var d = ParserDriver()
                d.feed(Array(bytes[..<split]))
                d.feed(Array(bytes[split...]))
                #expect(d.failure?.status == whole.failure?.status, "\(head.debugDescription) split at \(split)")
                #expect(d.requests.count == whole.requests.count)
            }
        }
    }
}
