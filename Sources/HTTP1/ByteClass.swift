/// Character classes of RFC 9110 §5.6 and RFC 3986, as lookup tables so the parser's inner loops
/// do one load per byte.
enum ByteClass {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9
    static let colon: UInt8 = 58

    /// Whether the five bytes from `start` are `HTTP/`, case-sensitive (RFC 9112 §2.3): the
    /// version of a request line and of a status line. Byte by byte: an array literal to
    /// compare against was an allocation per message. The caller has checked there are five.
    static func isHTTPSlash(_ buf: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        buf[start] == UInt8(ascii: "H") && buf[start + 1] == UInt8(ascii: "T") && buf[start + 2] == UInt8(ascii: "T")
            && buf[start + 3] == UInt8(ascii: "P") && buf[start + 4] == UInt8(ascii: "/")
    }

    /// The index of the first CR or LF in `buf[start..<end]`, or `end`; it may stop earlier, at
    /// a byte just after a CR or LF, which the caller then reads as the byte it is. Eight bytes
    /// at a time (a head's lines are mostly neither): the byte-by-byte loop took four
    /// instructions a byte, and the scan of a head before it about 20 (callgrind).
    static func firstLineBreak(_ buf: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        guard start < end, let base = buf.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        var i = start
        while i + 8 <= end {
            let mask = lineBreakMask(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            if mask != 0 { return i + mask.trailingZeroBitCount >> 3 }
            i += 8
        }
        guard i < end else { return end }
        guard end >= 8 else {
            while i < end, buf[i] != cr, buf[i] != lf { i += 1 }
            return i
        }
        // The last bytes in one load that ends at `end`, those before `i` shifted out.
        let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
        let mask = lineBreakMask(word) >> ((i - (end - 8)) * 8)
        return mask == 0 ? end : i + mask.trailingZeroBitCount >> 3
    }

    /// The top bit of each byte of `word` (little-endian) that is CR or LF: XOR makes such a
    /// byte zero, and subtracting one from it sets the top bit it did not have. The lowest
    /// marked byte is exact; a byte above one may be marked by the borrow (only a 0x0B or 0x0C
    /// can be), which is why the scan may stop early but never late.
    @inline(__always)
    private static func lineBreakMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let crs = word ^ (ones &* UInt64(cr))
        let lfs = word ^ (ones &* UInt64(lf))
        return (((crs &- ones) & ~crs) | ((lfs &- ones) & ~lfs)) & high
    }

    /// The index of the first byte in `buf[start..<end]` that is not a token character, or `end`.
    /// Through the table's storage: indexing the array checked its bounds at each byte.
    static func tokenEnd(_ buf: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        token.withUnsafeBufferPointer { table in
            var i = start
            while i < end, table[Int(buf[i])] { i += 1 }
            return i
        }
    }

    /// The same for the bytes of a request-target (`target`).
    static func targetEnd(_ buf: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        target.withUnsafeBufferPointer { table in
            var i = start
            while i < end, table[Int(buf[i])] { i += 1 }
            return i
        }
    }

    /// The index of the first byte in `buf[start..<end]` that a field value may not hold
    /// (`fieldValue`), or `end`. Eight bytes at a time: a word without a control byte or DEL is
    /// all valid; a word with one (a tab is one too) is checked byte by byte. The byte loop
    /// took about 13 instructions a byte (callgrind), and values are most of a head.
    static func fieldValueEnd(_ buf: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        guard start < end, let base = buf.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        return fieldValue.withUnsafeBufferPointer { table in
            var i = start
            while i + 8 <= end {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                if controlOrDeleteMask(word) != 0 {
                    for j in i..<(i + 8) where !table[Int(buf[j])] { return j }
                }
                i += 8
            }
            if i < end, end >= 8 {
                // The last bytes in one load that ends at `end`; marks of the bytes before `i`
                // are shifted out (a borrow from them can only mark more, never fewer).
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
                guard controlOrDeleteMask(word) >> ((i - (end - 8)) * 8) != 0 else { return end }
            }
            while i < end, table[Int(buf[i])] { i += 1 }
            return i
        }
    }

    /// Nonzero when a byte of `word` is below 0x20 or is 0x7F (bytes from 0x80 are neither).
    /// Below 0x20: subtracting 0x20 sets the top bit of such a byte, which it did not have; the
    /// lowest such byte is always marked (no borrow reaches it), so none is missed.
    @inline(__always)
    static func controlOrDeleteMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let controls = (word &- ones &* 0x20) & ~word & high
        let deletes = word ^ (ones &* 0x7F)
        return controls | ((deletes &- ones) & ~deletes & high)
    }

    /// Whether a byte of `word` is `byte`: XOR makes such a byte zero, and only a zero byte (or
    /// one above a zero byte) gets its top bit set by subtracting one where it had none.
    @inline(__always)
    static func holds(_ word: UInt64, _ byte: UInt8) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & (ones &* 0x80) != 0
    }

    /// `HTTP/1.1` as a little-endian word, the version nearly every request line ends with.
    static let http11Word: UInt64 = 0x312E_312F_5054_5448

    /// tchar: "!#$%&'*+-.^_`|~" DIGIT ALPHA
    static let token: [Bool] = {
        var t = [Bool](repeating: false, count: 256)
        for b in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(b)] = true }
        for b in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(b)] = true }
        for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(b)] = true }
        for c in "!#$%&'*+-.^_`|~".utf8 { t[Int(c)] = true }
        return t
    }()

    /// field-vchar / SP / HTAB: VCHAR, obs-text (0x80-0xFF), SP and HTAB. Everything else in a
    /// field value (NUL, CR, LF and the other controls, DEL) is rejected.
    static let fieldValue: [Bool] = {
        var t = [Bool](repeating: false, count: 256)
        for b in 0x21...0x7E { t[b] = true }
        for b in 0x80...0xFF { t[b] = true }
        t[Int(space)] = true
        t[Int(tab)] = true
        return t
    }()

    /// Bytes allowed in a request-target: RFC 3986 unreserved, reserved (minus "#"), and "%".
    /// obs-text is refused too: a client must percent-encode it.
    static let target: [Bool] = {
        var t = [Bool](repeating: false, count: 256)
        for b in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(b)] = true }
        for b in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(b)] = true }
        for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(b)] = true }
        for c in "-._~:/?[]@!$&'()*+,;=%".utf8 { t[Int(c)] = true }
        return t
    }()

    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 48...57: return Int(b - 48)
        case 65...70: return Int(b - 55)
        case 97...102: return Int(b - 87)
        default: return nil
        }
    }

    static func lowercased(_ b: UInt8) -> UInt8 { (b >= 65 && b <= 90) ? b + 32 : b }
}

/// RFC 9110 §5.6.2 tokens (methods, field names), on the one table the parser uses.
package enum HTTPToken {
    package static func isToken(_ s: some StringProtocol) -> Bool {
        let token = ByteClass.token  // read once, not behind a `swift_once` check per byte
        return !s.isEmpty && s.utf8.allSatisfy { token[Int($0)] }
    }
}

/// Fields the server owns: a handler's or stub's value would break framing or the connection
/// state, or repeat what the server adds to every response. The one list the response encoder
/// and the stub loader both use.
package enum ServerOwnedFields {
    /// Set from the body and the connection state.
    package static let framing = ["Content-Length", "Transfer-Encoding", "Connection"]
    /// Added by the server to every response.
    package static let perResponse = ["Date", "Server"]
    package static let all = framing + perResponse

    package static func isFraming(_ name: some StringProtocol) -> Bool {
        framing.contains { asciiCaseInsensitiveEquals($0, name) }
    }

    package static func contains(_ name: some StringProtocol) -> Bool {
        all.contains { asciiCaseInsensitiveEquals($0, name) }
    }
}
