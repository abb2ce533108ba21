import JSON

/// Scalars: plain (with line folding), single- and double-quoted, and aliases, which stand
/// where a scalar may. Block scalars (`|`, `>`) are in YAMLBlockScalar.
extension YAMLParser {
    struct ScalarToken {
        enum Kind { case plain, quoted, alias }
        let kind: Kind
        /// Plain: the text as written (folded); quoted: the value; alias: empty.
        let text: String
        let aliasNode: JSONNode?
        /// The scalar as a mapping key; nil for an alias of a collection or an empty value.
        let keyText: String?
        let multiLine: Bool
        let position: SourcePosition
    }

    /// A scalar or an alias at the cursor. `flow`: inside a flow collection, where `,[]{}` end
    /// a plain scalar.
    mutating func parseScalar(parent n: Int, flow: Bool) throws(YAMLSyntaxError) -> ScalarToken {
        let start = pos()
        let c = at(index)
        switch c {
        case Ch.star:
            let (node, keyText) = try parseAlias()
            return ScalarToken(
                kind: .alias,
                text: "",
                aliasNode: node,
                keyText: keyText,
                multiLine: false,
                position: start
            )
        case Ch.dquote, Ch.squote:
            let (value, multiLine) = try scanQuoted(parent: n, double: c == Ch.dquote)
            return ScalarToken(
                kind: .quoted,
                text: value,
                aliasNode: nil,
                keyText: value,
                multiLine: multiLine,
                position: start
            )
        default:
            try checkPlainStart(flow: flow)
            let (text, multiLine) = scanPlain(parent: n, flow: flow)
            return ScalarToken(
                kind: .plain,
                text: text,
                aliasNode: nil,
                keyText: text,
                multiLine: multiLine,
                position: start
            )
        }
    }

    /// The value of a scalar: core schema for plain ones, a string for quoted ones.
    mutating func resolve(_ scalar: ScalarToken) throws(YAMLSyntaxError) -> JSONNode {
        switch scalar.kind {
        case .alias:
            return scalar.aliasNode ?? JSONNode(.null, at: scalar.position)
        case .quoted:
            nodes += 1
            return JSONNode(.string(scalar.text), at: scalar.position)
        case .plain:
            nodes += 1
            switch YAMLCoreSchema.resolve(scalar.text) {
            case .value(let value): return JSONNode(value, at: scalar.position)
            case .refused(let message): throw fail(message, at: scalar.position)
            }
        }
    }

    /// Indicators cannot start a plain scalar, except `-`, `?` and `:` before a non-space.
    private mutating func checkPlainStart(flow: Bool) throws(YAMLSyntaxError) {
        let c = at(index)
        let next = at(index + 1)
        switch c {
        case 0: throw fail("expected a value, found the end of the file")
        case Ch.lf, Ch.cr: throw fail("expected a value, found a line break")
        case Ch.dash, Ch.question, Ch.colon:
            if isBlankOrBreakOrEnd(next) || (flow && Ch.isFlowIndicator(next)) {
                throw fail(
                    """
                    unexpected \(describe(index)) where a value was expected (quote the value if it starts with \
                    '\(Character(Unicode.Scalar(c)))')
                    """
                )
            }
        case Ch.percent:
            throw fail("'%' starts a directive, which must come before '---'; quote the value if it starts with '%'")
        case Ch.at, Ch.backtick:
            throw fail(
                "'\(Character(Unicode.Scalar(c)))' is reserved in YAML and cannot start a plain value; quote the value"
            )
        case Ch.comma, Ch.lbracket, Ch.rbracket, Ch.lbrace, Ch.rbrace, Ch.hash, Ch.amp, Ch.star, Ch.bang, Ch.pipe,
            Ch.gt, Ch.tab, Ch.space:
            throw fail("unexpected \(describe(index)) where a value was expected")
        default: break
        }
    }

    /// A plain scalar, folded over its continuation lines: lines indented more than `n` that do
    /// not start a comment or a document marker. One line break becomes a space, k empty lines
    /// become k line feeds. Ends at ": ", " #", the end of the line without continuation, or
    /// (in flow) a flow indicator; the cursor is then just after its last character.
    mutating func scanPlain(parent n: Int, flow: Bool) -> (String, Bool) {
        var out: [UInt8] = []
        var multiLine = false
        while true {
            let segmentStart = index
            var end = index
            while true {
                let c = at(index)
                if c == 0 || Ch.isBreak(c) { break }
                if Ch.isBlank(c) {
                    index += 1
                    continue
                }
                if c == Ch.colon {
                    let d = at(index + 1)
                    if isBlankOrBreakOrEnd(d) || (flow && Ch.isFlowIndicator(d)) { break }
                } else if c == Ch.hash {
                    if index > segmentStart && Ch.isBlank(at(index - 1)) { break }
                } else if flow && Ch.isFlowIndicator(c) {
                    break
                }
                index += 1
                end = index
            }
            out.append(contentsOf: bytes[segmentStart..<end])
            guard Ch.isBreak(at(index)) else {
                index = end
                return (String(decoding: out, as: UTF8.self), multiLine)
            }
            // Is there a continuation line? Look, and come back if not.
            let saved = (end, line, lineStart)
            var breaks = 0
            var continuation: Int? = nil
            while true {
                consumeBreak()
                breaks += 1
                var i = index
                while at(i) == Ch.space { i += 1 }
                let spaces = i - index
                while Ch.isBlank(at(i)) { i += 1 }
                let d = at(i)
                if Ch.isBreak(d) {
                    index = i
                    continue
                }
                if i >= bytes.count || d == Ch.hash || spaces <= n { break }
                if spaces == 0 && isDocumentMarker(at: lineStart) { break }
                if flow && Ch.isFlowIndicator(d) { break }
                if d == Ch.colon {
                    let e = at(i + 1)
                    if isBlankOrBreakOrEnd(e) || (flow && Ch.isFlowIndicator(e)) { break }
                }
                continuation = i
                break
            }
            guard let next = continuation else {
                (index, line, lineStart) = saved
                return (String(decoding: out, as: UTF8.self), multiLine)
            }
            if breaks == 1 {
                out.append(Ch.space)
            } else {
                out.append(contentsOf: repeatElement(Ch.lf, count: breaks - 1))
            }
            multiLine = true
            index = next
        }
    }

    /// A single- or double-quoted scalar: its value and whether it spans lines.
    mutating func scanQuoted(parent n: Int, double: Bool) throws(YAMLSyntaxError) -> (String, Bool) {
        let start = pos()
        let quote = double ? Ch.dquote : Ch.squote
        index += 1
        var out: [UInt8] = []
        var multiLine = false
        // Spaces and tabs written at the end of `out`, dropped if a line break follows them.
        var blankTail = 0
        while true {
            let c = at(index)
            if c == quote {
                if !double && at(index + 1) == Ch.squote {
                    out.append(Ch.squote)
                    blankTail = 0
                    index += 2
                    continue
                }
                index += 1
                return (String(decoding: out, as: UTF8.self), multiLine)
            }
            if index >= bytes.count {
                throw fail("the \(double ? "double" : "single")-quoted string that starts at \(start) is not closed")
            }
            if Ch.isBreak(c) {
                out.removeLast(blankTail)
                blankTail = 0
                multiLine = true
                let breaks = try foldQuotedLines(parent: n, opening: start)
                if breaks == 1 {
                    out.append(Ch.space)
                } else {
                    out.append(contentsOf: repeatElement(Ch.lf, count: breaks - 1))
                }
                continue
            }
            if Ch.isBlank(c) {
                out.append(c)
                blankTail += 1
                index += 1
                continue
            }
            if double && c == Ch.backslash {
                blankTail = 0
                if Ch.isBreak(at(index + 1)) {
                    // An escaped line break joins the lines with nothing between them.
                    index += 1
                    multiLine = true
                    let breaks = try foldQuotedLines(parent: n, opening: start)
                    out.append(contentsOf: repeatElement(Ch.lf, count: breaks - 1))
                    continue
                }
                try scanEscape(into: &out)
                continue
            }
            let runStart = index
            while true {
                let d = at(index)
                if d == quote || d == 0 || Ch.isBreak(d) || Ch.isBlank(d) || (double && d == Ch.backslash) { break }
                index += 1
            }
            out.append(contentsOf: bytes[runStart..<index])
            blankTail = 0
        }
    }

    /// From a line break inside a quoted scalar to the first character of its next line with
    /// content; returns the number of line breaks (1 + empty lines).
    private mutating func foldQuotedLines(parent n: Int, opening: SourcePosition) throws(YAMLSyntaxError) -> Int {
        var breaks = 0
        while true {
            consumeBreak()
            breaks += 1
            var i = index
            while at(i) == Ch.space { i += 1 }
            let spaces = i - index
            while Ch.isBlank(at(i)) { i += 1 }
            if Ch.isBreak(at(i)) {
                index = i
                continue
            }
            if i >= bytes.count {
                index = i
                return breaks
            }
            if spaces == 0 && isDocumentMarker(at: lineStart) {
                throw fail(
                    """
                    a document marker inside the quoted string that starts at \(opening); is the closing quote \
                    missing?
                    """
                )
            }
            if spaces <= n {
                index = lineStart + spaces
                throw fail(
                    """
                    this line continues the quoted string that starts at \(opening) and must be indented more \
                    than the key or '- ' it belongs to (at least \(n + 1) spaces)
                    """
                )
            }
            index = i
            return breaks
        }
    }

    /// One escape of a double-quoted scalar, the cursor at its backslash.
    private mutating func scanEscape(into out: inout [UInt8]) throws(YAMLSyntaxError) {
        let start = pos()
        let e = at(index + 1)
        index += 2
        let simple: UInt32?
        switch e {
        case UInt8(ascii: "0"): simple = 0
        case UInt8(ascii: "a"): simple = 7
        case UInt8(ascii: "b"): simple = 8
        case UInt8(ascii: "t"), Ch.tab: simple = 9
        case UInt8(ascii: "n"): simple = 10
        case UInt8(ascii: "v"): simple = 11
        case UInt8(ascii: "f"): simple = 12
        case UInt8(ascii: "r"): simple = 13
        case UInt8(ascii: "e"): simple = 0x1B
        case Ch.space: simple = 0x20
        case Ch.dquote: simple = 0x22
        case UInt8(ascii: "/"): simple = 0x2F
        case Ch.backslash: simple = 0x5C
        case UInt8(ascii: "N"): simple = 0x85
        case UInt8(ascii: "_"): simple = 0xA0
        case UInt8(ascii: "L"): simple = 0x2028
        case UInt8(ascii: "P"): simple = 0x2029
        default: simple = nil
        }
        if let simple {
            appendUTF8(simple, to: &out)
            return
        }
        let digits: Int
        switch e {
        case UInt8(ascii: "x"): digits = 2
        case UInt8(ascii: "u"): digits = 4
        case UInt8(ascii: "U"): digits = 8
        default:
            index -= 2
            throw fail(
                "unknown escape '\\\(e == 0 ? "" : describe(index + 1).trimmingQuotes)' in a double-quoted string",
                at: start
            )
        }
        var value = try hexValue(digits, escape: start)
        if digits == 4 && (0xD800...0xDBFF).contains(value) {
            // A UTF-16 surrogate pair written as two escapes, as JSON writes characters above U+FFFF.
            guard at(index) == Ch.backslash && at(index + 1) == UInt8(ascii: "u") else {
                throw fail(
                    "the escape of a high surrogate must be followed by a \\u escape of a low surrogate",
                    at: start
                )
            }
            index += 2
            let low = try hexValue(4, escape: start)
            guard (0xDC00...0xDFFF).contains(low) else {
                throw fail("invalid low surrogate in a \\u escape", at: start)
            }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xD800...0xDFFF).contains(value) {
            throw fail("a lone surrogate in an escape", at: start)
        } else if value > 0x10FFFF {
            throw fail("the escape is beyond the last Unicode character (U+10FFFF)", at: start)
        }
        appendUTF8(value, to: &out)
    }

    private mutating func hexValue(_ digits: Int, escape: SourcePosition) throws(YAMLSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<digits {
            let b = at(index)
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("this escape needs \(digits) hex digits", at: escape)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80: out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | v >> 6))
            out.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | v >> 12))
            out.append(UInt8(0x80 | v >> 6 & 0x3F))
            out.append(UInt8(0x80 | v & 0x3F))
        default:
            out.append(UInt8(0xF0 | v >> 18))
            out.append(UInt8(0x80 | v >> 12 & 0x3F))
            out.append(UInt8(0x80 | v >> 6 & 0x3F))
            out.append(UInt8(0x80 | v & 0x3F))
        }
    }
}

private extension String {
    var trimmingQuotes: String {
        count >= 2 && hasPrefix("'") && hasSuffix("'") ? String(dropFirst().dropLast()) : self
    }
}
