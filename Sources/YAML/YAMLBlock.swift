import JSON

/// Block structure: nodes after `---`, `- ` and `key:`, block mappings and sequences, properties.
///
/// Indentation is in bytes from the line start (only spaces indent, so bytes are columns
/// there). Every node reader returns with the cursor at the start of the next line that has
/// content (or at the end), so the collection around it can compare that line's indentation
/// with its own. A scalar is read first and only then, if a `:` follows on its line, becomes
/// the first key of a mapping: no lookahead, so long lines are read once.
extension YAMLParser {
    struct Key {
        let text: String
        let position: SourcePosition
        /// Written `? key`: its value, if any, follows on a line of its own as `: value`.
        var explicit = false
    }

    /// The node after `---`, `- ` or `key:` (on the rest of that line or on the lines below),
    /// or the root at the start of a line. `n` is the indentation of the collection that holds
    /// it (-1 for the root): the node's lines must be indented more, except that a sequence may
    /// sit at its key's own indentation.
    mutating func parseBlockNode(parent n: Int, slot: Slot) throws(YAMLSyntaxError) -> JSONNode {
        let emptyPosition = pos()
        var nodeAnchor: PendingAnchor? = nil
        if slot != .root {
            let tabbed = skipBlanks()
            if !atCommentOrLineEnd() {
                let indent = index - lineStart
                var inlineAnchor: PendingAnchor? = nil
                if at(index) == Ch.amp || at(index) == Ch.bang {
                    inlineAnchor = try parseProperties()
                    skipBlanks()
                }
                if !atCommentOrLineEnd() {
                    // Only a `- ` entry may hold a collection on its own line ("- a: 1", "- - x").
                    return try parseNodeContent(
                        parent: n,
                        indent: indent,
                        compact: slot == .entry,
                        tabbed: tabbed,
                        nodeAnchor: nil,
                        inlineAnchor: inlineAnchor
                    )
                }
                nodeAnchor = inlineAnchor
            }
            try finishLine()
            skipBlankLines()
        }
        while true {
            guard index < bytes.count, !isDocumentMarker(at: index) else {
                return emptyNode(at: emptyPosition, anchor: nodeAnchor)
            }
            let i = lineIndent()
            let sequenceAtKeyIndent = slot == .value && i == n && isSequenceEntry(at: lineStart + i)
            guard i > n || sequenceAtKeyIndent else { return emptyNode(at: emptyPosition, anchor: nodeAnchor) }
            index = lineStart + i
            let tabbed = skipBlanks()
            var inlineAnchor: PendingAnchor? = nil
            if at(index) == Ch.amp || at(index) == Ch.bang {
                let properties = try parseProperties()
                skipBlanks()
                if atCommentOrLineEnd() {
                    // An anchor alone on its line names the node on the lines below.
                    if let nodeAnchor {
                        throw fail(
                            "a value can have only one anchor (&\(nodeAnchor.name) and &\(properties.name))",
                            at: properties.position
                        )
                    }
                    nodeAnchor = properties
                    try finishLine()
                    skipBlankLines()
                    continue
                }
                inlineAnchor = properties
            }
            return try parseNodeContent(
                parent: n,
                indent: i,
                compact: true,
                tabbed: tabbed,
                nodeAnchor: nodeAnchor,
                inlineAnchor: inlineAnchor
            )
        }
    }

    /// The content of a node at the cursor. `indent`: where a mapping or sequence starting here
    /// would have its entries; `compact`: whether one may start here at all; `tabbed`: tabs came
    /// before it on this line (fine before a scalar, not as indentation of a collection).
    /// `nodeAnchor` came on an earlier line and names the node; `inlineAnchor` came on this
    /// line and names the first key if this turns out to be a mapping.
    mutating func parseNodeContent(
        parent n: Int,
        indent: Int,
        compact: Bool,
        tabbed: Bool,
        nodeAnchor: PendingAnchor?,
        inlineAnchor: PendingAnchor?
    ) throws(YAMLSyntaxError) -> JSONNode {
        let start = pos()
        let c = at(index)
        let next = at(index + 1)
        if c == Ch.dash && isBlankOrBreakOrEnd(next) {
            guard compact else {
                throw fail(
                    """
                    a block sequence cannot start on the same line as the key or '---' before it; start the '- \
                    ' entries on the next line
                    """
                )
            }
            if tabbed { throw tabIndentation() }
            if let inlineAnchor {
                throw fail(
                    "an anchor of a sequence must be on the line before its first '- '",
                    at: inlineAnchor.position
                )
            }
            let node = try parseBlockSequence(indent: index - lineStart)
            define(nodeAnchor, node, keyText: nil)
            return node
        }
        if c == Ch.question && isBlankOrBreakOrEnd(next) {
            guard compact else {
                throw fail(
                    "a mapping cannot start on the same line as the key or '---' before it; put it on the next line"
                )
            }
            if tabbed { throw tabIndentation() }
            if let inlineAnchor {
                throw fail("an anchor of a mapping must be on the line before its first key", at: inlineAnchor.position)
            }
            let node = try parseBlockMapping(indent: indent, firstKey: try parseExplicitKey(indent: indent))
            define(nodeAnchor, node, keyText: nil)
            return node
        }
        if c == Ch.colon && isBlankOrBreakOrEnd(next) { throw emptyKey() }
        if c == Ch.pipe || c == Ch.gt {
            let anchor = try single(nodeAnchor, inlineAnchor)
            nodes += 1
            let node = JSONNode(.string(try parseBlockScalar(parent: n)), at: start)
            define(anchor, node, keyText: nil)
            skipBlankLines()
            return node
        }
        if c == Ch.lbracket || c == Ch.lbrace {
            let anchor = try single(nodeAnchor, inlineAnchor)
            let node = try parseFlowCollection(parent: n)
            define(anchor, node, keyText: nil)
            skipBlanks()
            if at(index) == Ch.colon { throw nonScalarKey(at: start) }
            try finishLine()
            skipBlankLines()
            return node
        }
        // A scalar or an alias: the value itself, or the first key of a mapping.
        let scalar = try parseScalar(parent: n, flow: false)
        skipBlanks()
        if at(index) == Ch.colon && isBlankOrBreakOrEnd(at(index + 1)) {
            if scalar.multiLine { throw keyOnOneLine() }
            guard compact else {
                throw fail(
                    """
                    a mapping cannot start on the same line as the key or '---' before it; put it on the next \
                    line, indented (or quote the value if it contains ': ')
                    """,
                    at: start
                )
            }
            if tabbed { throw tabIndentation(at: start) }
            let key = try makeKey(scalar, anchor: inlineAnchor)
            index += 1
            let node = try parseBlockMapping(indent: indent, firstKey: key)
            define(nodeAnchor, node, keyText: nil)
            return node
        }
        if scalar.kind == .alias, let anchor = nodeAnchor ?? inlineAnchor {
            throw fail("an alias cannot have an anchor (&\(anchor.name))", at: anchor.position)
        }
        let anchor = try single(nodeAnchor, inlineAnchor)
        let node = try resolve(scalar)
        define(anchor, node, keyText: scalar.keyText)
        try finishLine()
        skipBlankLines()
        return node
    }

    /// Entries `key: value` at indentation `m`, the first key already read (cursor after its ':').
    mutating func parseBlockMapping(indent m: Int, firstKey: Key) throws(YAMLSyntaxError) -> JSONNode {
        try enter(at: firstKey.position)
        var members: [JSONNode.Member] = []
        var seen: [String: SourcePosition] = [:]
        var key = firstKey
        while true {
            if let first = seen.updateValue(key.position, forKey: key.text) {
                throw fail(
                    "duplicate key \(quoted(key.text)) in this mapping (it is first at \(first))",
                    at: key.position
                )
            }
            let value = key.explicit ? try parseExplicitValue(indent: m) : try parseBlockNode(parent: m, slot: .value)
            members.append(JSONNode.Member(key: key.text, keyPosition: key.position, value: value))
            guard index < bytes.count, !isDocumentMarker(at: index) else { break }
            let i = lineIndent()
            if i < m { break }
            index = lineStart + i
            if i > m {
                throw fail(
                    """
                    this line is indented more than the keys of the mapping above it (column \(m + 1)); check \
                    the indentation
                    """
                )
            }
            key = try parseBlockKey(parent: m)
        }
        leave()
        return JSONNode(.object(members), at: firstKey.position)
    }

    /// A key at the start of a mapping line, through its ':'.
    mutating func parseBlockKey(parent m: Int) throws(YAMLSyntaxError) -> Key {
        if Ch.isBlank(at(index)) { throw tabIndentation() }
        let c = at(index)
        let next = at(index + 1)
        if c == Ch.dash && isBlankOrBreakOrEnd(next) {
            throw fail("a sequence entry ('- ') where a mapping key was expected; check the indentation")
        }
        if c == Ch.question && isBlankOrBreakOrEnd(next) { return try parseExplicitKey(indent: m) }
        if c == Ch.colon && isBlankOrBreakOrEnd(next) { throw emptyKey() }
        var anchor: PendingAnchor? = nil
        if c == Ch.amp || c == Ch.bang {
            anchor = try parseProperties()
            skipBlanks()
            if atCommentOrLineEnd() { throw fail("expected a mapping key after the anchor on this line") }
        }
        let start = pos()
        let d = at(index)
        if d == Ch.lbracket || d == Ch.lbrace { throw nonScalarKey(at: start) }
        if d == Ch.pipe || d == Ch.gt { throw fail("a block scalar ('|' or '>') cannot be a mapping key") }
        let scalar = try parseScalar(parent: m, flow: false)
        skipBlanks()
        guard at(index) == Ch.colon, isBlankOrBreakOrEnd(at(index + 1)) else {
            if scalar.multiLine {
                throw fail("a mapping key must be on one line (or is the ':' after the key missing?)", at: start)
            }
            throw fail(
                """
                expected ':' after the key \(quoted(scalar.keyText ?? scalar.text)); each entry of a mapping is \
                'key: value'
                """
            )
        }
        if scalar.multiLine { throw keyOnOneLine() }
        let key = try makeKey(scalar, anchor: anchor)
        index += 1
        return key
    }

    /// `- ` entries at indentation `m`; the cursor is at the first '-'.
    mutating func parseBlockSequence(indent m: Int) throws(YAMLSyntaxError) -> JSONNode {
        let start = pos()
        try enter(at: start)
        var elements: [JSONNode] = []
        while true {
            index += 1
            elements.append(try parseBlockNode(parent: m, slot: .entry))
            guard index < bytes.count, !isDocumentMarker(at: index) else { break }
            let i = lineIndent()
            if i < m { break }
            if i > m {
                index = lineStart + i
                throw fail(
                    """
                    this line is indented more than the '- ' entries of the sequence above it (column \
                    \(m + 1)); check the indentation
                    """
                )
            }
            guard isSequenceEntry(at: lineStart + i) else { break }
            index = lineStart + i
        }
        leave()
        return JSONNode(.array(elements), at: start)
    }

    func isSequenceEntry(at i: Int) -> Bool { at(i) == Ch.dash && isBlankOrBreakOrEnd(at(i + 1)) }

    /// `&name` (tags are refused). The cursor ends after the name.
    mutating func parseProperties() throws(YAMLSyntaxError) -> PendingAnchor {
        let start = pos()
        if at(index) == Ch.bang {
            let tagStart = index
            while Ch.isAnchorChar(at(index)) && index < tagStart + 40 { index += 1 }
            throw fail(
                """
                tags such as \(text(tagStart, index)) are not supported; remove the tag (plain values are read \
                with YAML's core schema, quoted ones as strings)
                """,
                at: start
            )
        }
        index += 1
        let nameStart = index
        while Ch.isAnchorChar(at(index)) { index += 1 }
        guard index > nameStart else { throw fail("an anchor needs a name after '&'", at: start) }
        let name = text(nameStart, index)
        var j = index
        while Ch.isBlank(at(j)) { j += 1 }
        if at(j) == Ch.bang {
            index = j
            throw fail("tags are not supported; remove the tag")
        }
        if at(j) == Ch.amp {
            index = j
            throw fail("a value can have only one anchor")
        }
        if at(index) == Ch.lbracket || at(index) == Ch.lbrace {
            throw fail("expected a space after the anchor &\(name)")
        }
        return beginAnchor(name, at: start)
    }

    mutating func emptyNode(at position: SourcePosition, anchor: PendingAnchor?) -> JSONNode {
        nodes += 1
        let node = JSONNode(.null, at: position)
        define(anchor, node, keyText: nil)
        return node
    }

    /// A scalar read as a mapping key: its text as written for plain scalars (so `200:` is the
    /// key "200" and `1.0:` the key "1.0"), its value for quoted ones.
    mutating func makeKey(_ scalar: ScalarToken, anchor: PendingAnchor?) throws(YAMLSyntaxError) -> Key {
        switch scalar.kind {
        case .alias:
            if let anchor { throw fail("an alias cannot have an anchor (&\(anchor.name))", at: anchor.position) }
            guard let text = scalar.keyText else {
                throw fail(
                    """
                    this alias stands for a collection or an empty value; a mapping key must be a string, \
                    number or boolean
                    """,
                    at: scalar.position
                )
            }
            return Key(text: text, position: scalar.position)
        case .plain, .quoted:
            if scalar.kind == .plain && scalar.text == "<<" {
                throw fail(
                    """
                    merge keys ('<<') are a YAML 1.1 feature and are not supported; write the entries out (or \
                    quote \"<<\" for a literal key)
                    """,
                    at: scalar.position
                )
            }
            if anchor != nil { define(anchor, try resolve(scalar), keyText: scalar.text) }
            return Key(text: scalar.text, position: scalar.position)
        }
    }

    // MARK: messages shared by the block and flow readers

    mutating func tabIndentation(at position: SourcePosition? = nil) -> YAMLSyntaxError {
        fail("a tab is used as indentation here; YAML indentation must be spaces", at: position)
    }

    /// At a ':' after a scalar that spans lines: most often a plain value that ran on into a
    /// line indented by mistake.
    mutating func keyOnOneLine() -> YAMLSyntaxError {
        fail(
            """
            a mapping key must be on one line; this ':' follows a value that spans lines (is this line indented \
            more than it should be?)
            """
        )
    }

    /// Inside `[ ]` or `{ }` (block mappings take `? key`, `YAMLExplicitKeys.swift`).
    mutating func complexKey() -> YAMLSyntaxError {
        fail("explicit keys ('? ') inside [ ] or { } are not supported; write the entry as 'key: value'")
    }

    mutating func emptyKey() -> YAMLSyntaxError {
        fail("a mapping key is missing before ':' (empty keys are not supported)")
    }

    mutating func nonScalarKey(at position: SourcePosition) -> YAMLSyntaxError {
        fail("a mapping key must be a string, number or boolean, not a collection", at: position)
    }

    func quoted(_ s: String) -> String {
        "\"" + (s.count > 40 ? String(s.prefix(40)) + "…" : s) + "\""
    }
}
