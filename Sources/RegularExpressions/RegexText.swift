/// The text both engines read: scalars decoded from valid UTF-8 at byte offsets, and the
/// zero-width assertions with ICU's meanings. One implementation, so the two engines cannot
/// disagree on what `$` or `\b` means.
enum RegexText {
    /// The scalar starting at byte `i` of valid UTF-8, and its length.
    @inline(__always)
    static func decode(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> (UInt32, Int) {
        let b0 = UInt32(text[i])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 { return ((b0 & 0x1F) << 6 | UInt32(text[i + 1] & 0x3F), 2) }
        if b0 < 0xF0 { return ((b0 & 0x0F) << 12 | UInt32(text[i + 1] & 0x3F) << 6 | UInt32(text[i + 2] & 0x3F), 3) }
        let high = (b0 & 0x07) << 18 | UInt32(text[i + 1] & 0x3F) << 12
        return (high | UInt32(text[i + 2] & 0x3F) << 6 | UInt32(text[i + 3] & 0x3F), 4)
    }

    /// Where the scalar before byte `i` (> 0) starts.
    @inline(__always)
    static func start(_ text: UnsafeBufferPointer<UInt8>, before i: Int) -> Int {
        var j = i - 1
        while j > 0, text[j] & 0xC0 == 0x80 { j -= 1 }
        return j
    }

    static func scalar(_ text: UnsafeBufferPointer<UInt8>, before i: Int) -> UInt32 {
        decode(text, at: start(text, before: i)).0
    }

    /// Whether the last scalar before `i` that \b does not look through is a word character
    /// (what the Pike VM tracks as it goes; the backtracking engine, which jumps, looks back).
    static func wordBefore(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        var j = i
        while j > 0 {
            j = start(text, before: j)
            let c = decode(text, at: j).0
            if !isWordSkip(c) { return isWord(c) }
        }
        return false
    }

    /// ICU's assertions; see `Assertion`.
    static func holds(_ a: Assertion, in text: UnsafeBufferPointer<UInt8>, at i: Int, wordBefore: Bool) -> Bool {
        let end = text.count
        switch a {
        case .startOfText:
            return i == 0
        case .endOfText:
            return i == end
        case .startOfLine:
            // ICU: also between CR and LF, and never at the very end.
            return i == 0 || (i < end && NamedSet.isLineTerminator(scalar(text, before: i)))
        case .endOfTextOrFinalTerminator:
            if i == end { return true }
            let (c, length) = decode(text, at: i)
            if i + length == end {
                return NamedSet.isLineTerminator(c) && !(c == 0x0A && i > 0 && text[i - 1] == 0x0D)
            }
            return c == 0x0D && i + 2 == end && text[i + 1] == 0x0A
        case .endOfLine:
            if i == end { return true }
            let c = decode(text, at: i).0
            return NamedSet.isLineTerminator(c) && !(c == 0x0A && i > 0 && text[i - 1] == 0x0D)
        case .wordBoundary, .notWordBoundary:
            var isWord = false
            if i < end {
                let c = decode(text, at: i).0
                // Never a boundary before a combining mark or format character.
                if isWordSkip(c) { return a == .notWordBoundary }
                isWord = Self.isWord(c)
            }
            return (isWord != wordBefore) == (a == .wordBoundary)
        }
    }

    /// ICU's word characters for \b: [\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\u200C\u200D].
    @inline(__always)
    static func isWord(_ c: UInt32) -> Bool {
        if c < 0x80 {
            return (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x5F
        }
        guard let s = Unicode.Scalar(c) else { return false }
        return NamedSet.word.contains(s)
    }

    /// Characters \b looks through: Grapheme_Extend and format characters.
    @inline(__always)
    static func isWordSkip(_ c: UInt32) -> Bool {
        if c < 0x80 { return false }
        guard let s = Unicode.Scalar(c) else { return false }
        return s.properties.isGraphemeExtend || s.properties.generalCategory == .format
    }
}
