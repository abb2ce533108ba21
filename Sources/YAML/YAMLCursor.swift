import JSON

/// The bytes the grammar looks at, and what they are.
enum Ch {
    static let tab: UInt8 = 0x09, lf: UInt8 = 0x0A, cr: UInt8 = 0x0D, space: UInt8 = 0x20
    static let bang = UInt8(ascii: "!"), dquote = UInt8(ascii: "\""), hash = UInt8(ascii: "#")
    static let percent = UInt8(ascii: "%"), amp = UInt8(ascii: "&"), squote = UInt8(ascii: "'")
    static let star = UInt8(ascii: "*"), comma = UInt8(ascii: ","), dash = UInt8(ascii: "-")
    static let dot = UInt8(ascii: "."), colon = UInt8(ascii: ":"), gt = UInt8(ascii: ">")
    static let question = UInt8(ascii: "?"), at = UInt8(ascii: "@"), lbracket = UInt8(ascii: "[")
    static let backslash = UInt8(ascii: "\\"), rbracket = UInt8(ascii: "]"), backtick = UInt8(ascii: "`")
    static let lbrace = UInt8(ascii: "{"), pipe = UInt8(ascii: "|"), rbrace = UInt8(ascii: "}")

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    static func isBlank(_ b: UInt8) -> Bool { b == space || b == tab }
    static func isBreak(_ b: UInt8) -> Bool { b == lf || b == cr }
    static func isFlowIndicator(_ b: UInt8) -> Bool {
        b == comma || b == lbracket || b == rbracket || b == lbrace || b == rbrace
    }
    /// Anchor and alias names: any non-space character but the flow indicators (so `*a:` is
    /// the alias "a:", as the specification says).
    static func isAnchorChar(_ b: UInt8) -> Bool {
        b != 0 && !isBlank(b) && !isBreak(b) && !isFlowIndicator(b)
    }
}

extension YAMLParser {
    /// The byte at `i`, or 0 past the end. The input never holds a NUL (validateCharacters
    /// refuses control characters), so 0 always means the end.
    @inline(__always) func at(_ i: Int) -> UInt8 { i >= 0 && i < bytes.count ? bytes[i] : 0 }

    func isBlankOrBreakOrEnd(_ b: UInt8) -> Bool { b == 0 || Ch.isBlank(b) || Ch.isBreak(b) }

    func text(_ from: Int, _ to: Int) -> String {
        from < to ? String(decoding: bytes[from..<to], as: UTF8.self) : ""
    }

    // MARK: positions

    /// The position of the cursor. Columns count characters; the count resumes from the last
    /// position asked for on the same line, so many values on one long line stay linear.
    mutating func pos() -> SourcePosition {
        var from = lineStart
        var column = 1
        if columnCache.lineStart == lineStart && columnCache.index <= index {
            from = columnCache.index
            column = columnCache.column
        }
        var j = from
        let end = min(index, bytes.count)
        while j < end {
            if bytes[j] & 0xC0 != 0x80 { column += 1 }
            j += 1
        }
        columnCache = (lineStart, index, column)
        return SourcePosition(line: line, column: column)
    }

    mutating func fail(_ message: String, at position: SourcePosition? = nil) -> YAMLSyntaxError {
        YAMLSyntaxError(position: position ?? pos(), message: message)
    }

    /// "':'", "a tab", "the end of the file": what was found, for messages.
    func describe(_ i: Int) -> String {
        guard i < bytes.count else { return "the end of the file" }
        let b = bytes[i]
        switch b {
        case Ch.lf, Ch.cr: return "a line break"
        case Ch.tab: return "a tab"
        case Ch.space: return "a space"
        case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(b)))'"
        default:
            var end = i + 1
            while end < bytes.count && end < i + 4 && bytes[end] & 0xC0 == 0x80 { end += 1 }
            return "'\(text(i, end))'"
        }
    }

    // MARK: lines

    /// Steps over the line break at the cursor (LF, CR or CRLF) and starts the next line.
    mutating func consumeBreak() {
        if at(index) == Ch.cr && at(index + 1) == Ch.lf { index += 2 } else { index += 1 }
        line += 1
        lineStart = index
    }

    /// The spaces that start the current line (tabs are never indentation in YAML). Cached, so
    /// the block levels that each look at a deeply indented line do not each count it again.
    mutating func lineIndent() -> Int {
        if indentCache.lineStart == lineStart { return indentCache.indent }
        var i = lineStart
        while at(i) == Ch.space { i += 1 }
        indentCache = (lineStart, i - lineStart)
        return i - lineStart
    }

    /// `---` or `...` at `i`, which must be the start of a line, followed by a space or the end of the line.
    func isDocumentMarker(at i: Int, _ char: UInt8? = nil) -> Bool {
        guard i == lineStart || (i == 0 && lineStart == 0) else { return false }
        let c = at(i)
        guard c == Ch.dash || c == Ch.dot, char == nil || char == c else { return false }
        return at(i + 1) == c && at(i + 2) == c && isBlankOrBreakOrEnd(at(i + 3))
    }

    /// Skips spaces and tabs on the current line; tells whether there was a tab among them,
    /// which matters where the next thing turns out to be block structure.
    @discardableResult
    mutating func skipBlanks() -> Bool {
        var tab = false
        while true {
            let c = at(index)
            if c == Ch.space {
                index += 1
            } else if c == Ch.tab {
                tab = true
                index += 1
            } else {
                return tab
            }
        }
    }

    func atCommentOrLineEnd() -> Bool {
        let c = at(index)
        return c == 0 || Ch.isBreak(c) || c == Ch.hash
    }

    /// The rest of a line after a value: blanks, a comment, then the line break or the end.
    mutating func finishLine() throws(YAMLSyntaxError) {
        skipBlanks()
        if at(index) == Ch.hash {
            if index > lineStart && !Ch.isBlank(at(index - 1)) {
                throw fail("a comment needs a space before '#' (quote the value if '#' belongs to it)")
            }
            while !Ch.isBreak(at(index)) && index < bytes.count { index += 1 }
        }
        if index >= bytes.count { return }
        guard Ch.isBreak(at(index)) else {
            throw fail("unexpected \(describe(index)) after the value on this line")
        }
        consumeBreak()
    }

    /// From the start of a line: skips empty lines and comment lines, stopping at the start of
    /// the next line with content (or at the end).
    mutating func skipBlankLines() {
        while index < bytes.count {
            var i = index
            while Ch.isBlank(at(i)) { i += 1 }
            if at(i) == Ch.hash { while !Ch.isBreak(at(i)) && i < bytes.count { i += 1 } }
            if i >= bytes.count {
                index = i
                return
            }
            guard Ch.isBreak(at(i)) else { return }
            index = i
            consumeBreak()
        }
    }

    // MARK: characters

    /// YAML is Unicode text: refuses invalid UTF-8 and control characters (other than tab and
    /// line breaks) up front, so the grammar never meets them and a 0 byte can mean the end.
    mutating func validateCharacters() throws(YAMLSyntaxError) {
        var i = 0
        var lineNumber = 1
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if start == 3 { i = 3 }
        func position(_ i: Int) -> SourcePosition {
            var column = 1
            var j = start
            while j < i {
                if bytes[j] & 0xC0 != 0x80 { column += 1 }
                j += 1
            }
            return SourcePosition(line: lineNumber, column: column)
        }
        let count = bytes.count
        while i < count {
            let b = bytes[i]
            if b < 0x80 {
                if b >= 0x20 || b == Ch.tab {
                    i += 1
                    continue
                }
                if b == Ch.lf || b == Ch.cr {
                    i += (b == Ch.cr && i + 1 < count && bytes[i + 1] == Ch.lf) ? 2 : 1
                    lineNumber += 1
                    start = i
                    continue
                }
                throw YAMLSyntaxError(
                    position: position(i),
                    message:
                        """
                        control character \(hex(b)) is not allowed in YAML (in a double-quoted string, write it \
                        as an escape such as \\x\(hexDigits(b)))
                        """
                )
            }
            var need = 0
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: need = 1
            case 0xE0:
                need = 2
                low = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: need = 2
            case 0xED:
                need = 2
                high = 0x9F
            case 0xF0:
                need = 3
                low = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4:
                need = 3
                high = 0x8F
            default: need = -1
            }
            var valid = need > 0 && i + need < count + 1
            if valid {
                for k in 1...need {
                    let c = i + k < count ? bytes[i + k] : 0
                    let (lo, hi) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
                    if c < lo || c > hi {
                        valid = false
                        break
                    }
                }
            }
            guard valid else {
                throw YAMLSyntaxError(
                    position: position(i),
                    message: "invalid UTF-8 (byte \(hex(b))); a YAML file must be UTF-8 text"
                )
            }
            i += need + 1
        }
    }

    private func hexDigits(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }

    private func hex(_ b: UInt8) -> String { "0x" + hexDigits(b) }
}
