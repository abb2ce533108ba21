import JSON

/// Block scalars: `|` keeps line breaks, `>` folds them; `-` strips the final line breaks, `+`
/// keeps them all, neither keeps one; a digit gives the content's indentation relative to `n`
/// (the indentation of the collection around), otherwise the first line with text sets it.
extension YAMLParser {
    private enum Chomping { case strip, clip, keep }

    /// The cursor is at '|' or '>'; on return it is at the start of the first line after the scalar.
    mutating func parseBlockScalar(parent n: Int) throws(YAMLSyntaxError) -> String {
        let literal = at(index) == Ch.pipe
        index += 1
        var chomping: Chomping? = nil
        var explicit: Int? = nil
        for _ in 0..<2 {
            let c = at(index)
            if explicit == nil && c >= UInt8(ascii: "1") && c <= UInt8(ascii: "9") {
                explicit = Int(c - UInt8(ascii: "0"))
            } else if chomping == nil && (c == Ch.dash || c == UInt8(ascii: "+")) {
                chomping = c == Ch.dash ? .strip : .keep
            } else if c == UInt8(ascii: "0") {
                throw fail("a block scalar's indentation indicator must be a digit from 1 to 9")
            } else {
                break
            }
            index += 1
        }
        guard isBlankOrBreakOrEnd(at(index)) else {
            throw fail(
                """
                unexpected \(describe(index)) in the block scalar header; only an indentation digit, '-' or '+' \
                and a comment may follow '\(literal ? "|" : ">")'
                """
            )
        }
        try finishLine()

        let indent: Int
        if let explicit {
            indent = max(0, n + explicit)
        } else {
            indent = try detectIndentation(parent: n)
        }

        var out: [UInt8] = []
        var pendingBreaks = 0  // line breaks read but not yet written
        var sawText = false
        var previousMoreIndented = false
        while index < bytes.count {
            var j = index
            while j - index < indent && at(j) == Ch.space { j += 1 }
            if j - index < indent {
                // Less indented: an empty line if nothing but spaces follow, else the end.
                if Ch.isBreak(at(j)) {
                    index = j
                    consumeBreak()
                    pendingBreaks += 1
                    continue
                }
                if j >= bytes.count {
                    // A last line of spaces without a line break still ends with one.
                    if j > index { pendingBreaks += 1 }
                    index = j
                    break
                }
                if at(j) == Ch.tab {
                    var k = j
                    while Ch.isBlank(at(k)) { k += 1 }
                    if Ch.isBreak(at(k)) || k >= bytes.count {
                        index = j
                        throw fail("a tab in the indentation of a block scalar's line; indent with spaces only")
                    }
                }
                break
            }
            if indent == 0 && isDocumentMarker(at: index) { break }
            var e = j
            while !Ch.isBreak(at(e)) && e < bytes.count { e += 1 }
            if e == j {
                index = e
                if Ch.isBreak(at(e)) {
                    consumeBreak()
                    pendingBreaks += 1
                    continue
                }
                if j > lineStart { pendingBreaks += 1 }
                break
            }
            let moreIndented = Ch.isBlank(at(j))
            if !sawText || literal {
                out.append(contentsOf: repeatElement(Ch.lf, count: pendingBreaks))
            } else if previousMoreIndented || moreIndented {
                // Lines indented more than the text keep their line breaks even when folded.
                out.append(contentsOf: repeatElement(Ch.lf, count: pendingBreaks))
            } else if pendingBreaks == 1 {
                out.append(Ch.space)
            } else {
                out.append(contentsOf: repeatElement(Ch.lf, count: max(0, pendingBreaks - 1)))
            }
            out.append(contentsOf: bytes[j..<e])
            sawText = true
            previousMoreIndented = moreIndented
            pendingBreaks = 0
            index = e
            // A last line without a line break is read as if it had one.
            pendingBreaks = 1
            guard Ch.isBreak(at(e)) else { break }
            consumeBreak()
        }
        switch chomping ?? .clip {
        case .strip: break
        case .clip: if sawText && pendingBreaks > 0 { out.append(Ch.lf) }
        case .keep: out.append(contentsOf: repeatElement(Ch.lf, count: pendingBreaks))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The indentation of the first line with text (looking ahead, the cursor does not move).
    /// Empty lines before it may not have more spaces than it; without such a line the scalar
    /// is empty and any indentation more than `n` will do.
    private mutating func detectIndentation(parent n: Int) throws(YAMLSyntaxError) -> Int {
        var i = index
        var lineNumber = line
        var widest = 0
        var widestLine = line
        while i < bytes.count {
            var j = i
            while at(j) == Ch.space { j += 1 }
            let spaces = j - i
            let c = at(j)
            if Ch.isBreak(c) {
                if spaces > widest {
                    widest = spaces
                    widestLine = lineNumber
                }
                i = j + (c == Ch.cr && at(j + 1) == Ch.lf ? 2 : 1)
                lineNumber += 1
                continue
            }
            if j >= bytes.count {
                if spaces > widest {
                    widest = spaces
                    widestLine = lineNumber
                }
                break
            }
            guard spaces > n else { break }
            if widest > spaces {
                throw fail(
                    """
                    an empty line at the start of this block scalar has \(widest) spaces, more than its first \
                    line of text (\(spaces)); remove the extra spaces or give an indentation digit
                    """,
                    at: SourcePosition(line: widestLine, column: widest + 1)
                )
            }
            return spaces
        }
        return max(widest, n + 1, 0)
    }
}
