import JSON

/// Explicit block mapping entries: `? key` on one line, `: value` on the next, as generators
/// (Go's YAML library, Twilio's and Temporal's OpenAPI documents) write keys too long for one
/// line. The key must be a scalar (a string, number or boolean, on one line or several, or a
/// block scalar): a collection as a key has no JSON equivalent and is refused at its line and
/// column, as are empty and null keys.
extension YAMLParser {
    /// The key after `?` (the cursor at the `?`), on its line or indented below it; the cursor
    /// ends at the start of the next line with content, where the `: value` line may be.
    mutating func parseExplicitKey(indent m: Int) throws(YAMLSyntaxError) -> Key {
        let question = pos()
        index += 1
        skipBlanks()
        if startsScalarKey() {
            // Read as an implicit key is (a plain key as written: `? 200` is "200"), though it
            // may span lines.
            let start = pos()
            let scalar = try parseScalar(parent: m, flow: false)
            skipBlanks()
            if at(index) == Ch.colon && isBlankOrBreakOrEnd(at(index + 1)) { throw collectionKey(at: start) }
            try finishLine()
            skipBlankLines()
            var key = try makeKey(scalar, anchor: nil)
            key.explicit = true
            return key
        }
        let node = try parseBlockNode(parent: m, slot: .entry)
        switch node.value {
        case .string(let text):
            return Key(text: text, position: node.position, explicit: true)
        case .number(let number):
            return Key(text: number.text, position: node.position, explicit: true)
        case .bool(let flag):
            return Key(text: flag ? "true" : "false", position: node.position, explicit: true)
        case .null:
            throw fail("an explicit key ('? ') needs a key after it; empty keys are not supported", at: question)
        case .array, .object:
            throw collectionKey(at: node.position)
        }
    }

    /// Whether a plain or quoted scalar (or an alias) starts at the cursor, on this line.
    private func startsScalarKey() -> Bool {
        let c = at(index)
        let next = at(index + 1)
        if atCommentOrLineEnd() { return false }
        if (c == Ch.dash || c == Ch.question || c == Ch.colon) && isBlankOrBreakOrEnd(next) { return false }
        return ![Ch.lbracket, Ch.lbrace, Ch.pipe, Ch.gt, Ch.amp, Ch.bang].contains(c)
    }

    private mutating func collectionKey(at position: SourcePosition) -> YAMLSyntaxError {
        fail("an explicit key ('? ') must be a string, number or boolean, not a collection", at: position)
    }

    /// The value of an explicit entry: `: value` at the key's indentation (the cursor at the
    /// start of that line), where a sequence or mapping may start on the same line as the `:`;
    /// without such a line the value is null.
    mutating func parseExplicitValue(indent m: Int) throws(YAMLSyntaxError) -> JSONNode {
        let position = pos()
        guard index < bytes.count, !isDocumentMarker(at: index) else { return emptyNode(at: position, anchor: nil) }
        let i = lineIndent()
        guard i == m, at(lineStart + i) == Ch.colon, isBlankOrBreakOrEnd(at(lineStart + i + 1)) else {
            return emptyNode(at: position, anchor: nil)
        }
        index = lineStart + i + 1
        return try parseBlockNode(parent: m, slot: .entry)
    }
}
