import JSON

/// Reads one YAML 1.2 document into a `JSONNode`, for importing OpenAPI descriptions (most are
/// YAML). Only the JSON-compatible part of YAML is read: block and flow collections, plain,
/// quoted and block scalars, comments, anchors and aliases, resolved with the core schema.
/// Whatever has no JSON equivalent or would need guessing (tags, complex keys, several
/// documents, `.inf`/`.nan`) is refused with a position rather than approximated; docs/yaml.md
/// lists the subset and the limits.
package enum YAMLReader {
    /// Deeper nesting is refused (aliases count with the depth of what they stand for), as in
    /// JSONParser, so no document can exhaust the stack of the reader or of later tree walks.
    package static let maximumDepth = JSONParser.maximumDepth

    /// At most this many values may be added by expanding aliases. An alias is cheap to read but
    /// every later walk (serialising, importing) visits its expansion; ten aliases of ten aliases
    /// nine levels deep ("billion laughs") would be 10^9 values from a kilobyte. A million is far
    /// above what anchors in a real OpenAPI document add, and walks in well under a second.
    package static let maximumAliasExpansion = 1_000_000

    package static func parse(_ bytes: [UInt8]) throws(YAMLSyntaxError) -> JSONNode {
        var parser = YAMLParser(bytes: bytes)
        return try parser.parseStream()
    }

    package static func parse(_ text: String) throws(YAMLSyntaxError) -> JSONNode {
        try parse(Array(text.utf8))
    }
}

/// The reader's state: a cursor over the bytes, the anchors seen so far and the limits' counters.
/// The grammar is spread over extensions: YAMLCursor (bytes, lines, positions), YAMLBlock,
/// YAMLFlow, YAMLScalars and YAMLCoreSchema.
struct YAMLParser {
    /// A defined anchor: its value, how many values it expands to, how deep it nests.
    struct Anchor {
        let node: JSONNode
        let size: Int
        let height: Int
        /// The anchored scalar as a mapping key (`*a : x`); nil for collections and empty values.
        let keyText: String?
    }

    /// An anchor read (`&name`) whose node is still being read; it records the counters at its
    /// start so the node's size and height are known when it ends.
    struct PendingAnchor {
        let name: String
        let position: SourcePosition
        let nodesBefore: Int
        let depth: Int
        let savedDeepest: Int
    }

    /// What holds the node being read: the start of the document (no `---`), a `---` line, a
    /// `- ` entry or a `key:`. It decides what may follow on the same line.
    enum Slot { case root, document, entry, value }

    let bytes: [UInt8]
    var index = 0
    var line = 1
    var lineStart = 0
    var columnCache = (lineStart: -1, index: 0, column: 1)
    var indentCache = (lineStart: -1, indent: 0)
    var depth = 0
    /// The deepest nesting reached inside the innermost pending anchor (see beginAnchor).
    var deepest = 0
    /// Values produced so far, aliases counted with their expansion.
    var nodes = 0
    var aliasNodes = 0
    var anchors: [String: Anchor] = [:]

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseStream() throws(YAMLSyntaxError) -> JSONNode {
        try validateCharacters()
        // A UTF-8 byte order mark is what some Windows editors write first; skip it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
        }
        skipBlankLines()
        var versionSeen = false
        var directiveSeen = false
        while index < bytes.count && index == lineStart && at(index) == Ch.percent {
            try parseDirective(versionSeen: versionSeen)
            versionSeen = true
            directiveSeen = true
            skipBlankLines()
        }
        let root: JSONNode
        if index < bytes.count && isDocumentMarker(at: index, Ch.dash) {
            index += 3
            root = try parseBlockNode(parent: -1, slot: .document)
        } else {
            if directiveSeen { throw fail("a directive must be followed by '---', the start of the document") }
            guard index < bytes.count else {
                throw fail("the file holds no YAML document: it is empty or only comments")
            }
            if isDocumentMarker(at: index, Ch.dot) { throw fail("'...' (the end of a document) before any document") }
            root = try parseBlockNode(parent: -1, slot: .root)
        }
        var ended = false
        if index < bytes.count && isDocumentMarker(at: index, Ch.dot) {
            index += 3
            try finishLine()
            skipBlankLines()
            ended = true
        }
        guard index < bytes.count else { return root }
        index = lineStart + lineIndent()
        if ended || isDocumentMarker(at: lineStart, Ch.dash) {
            throw fail(
                "a second document starts here; only one document per file is read (split the stream into files)"
            )
        }
        throw fail(
            """
            unexpected \(describe(index)) after the end of the document's root value (which starts at \
            \(root.position)); check the indentation
            """
        )
    }

    /// `%YAML 1.x`; `%TAG` and unknown directives are refused.
    mutating func parseDirective(versionSeen: Bool) throws(YAMLSyntaxError) {
        let start = pos()
        index += 1
        let nameStart = index
        while !isBlankOrBreakOrEnd(at(index)) { index += 1 }
        let name = text(nameStart, index)
        guard name == "YAML" else {
            if name == "TAG" { throw fail("tags are not supported, and so neither is the %TAG directive", at: start) }
            throw fail("unknown directive %\(name); only %YAML is supported", at: start)
        }
        if versionSeen { throw fail("a second %YAML directive for the same document", at: start) }
        let afterName = index
        skipBlanks()
        let versionPosition = pos()
        let versionStart = index
        while Ch.isDigit(at(index)) { index += 1 }
        let majorEnd = index
        var valid = majorEnd > versionStart && at(index) == Ch.dot
        if valid {
            index += 1
            let minorStart = index
            while Ch.isDigit(at(index)) { index += 1 }
            valid = index > minorStart && isBlankOrBreakOrEnd(at(index))
        }
        guard valid && versionStart > afterName else {
            throw fail("expected a version such as 1.2 after %YAML", at: versionPosition)
        }
        // 1.1 and later 1.x documents are read as 1.2, as the specification asks of a 1.2 reader.
        guard text(versionStart, majorEnd) == "1" else {
            throw fail(
                "YAML version \(text(versionStart, index)) is not supported; this reader reads YAML 1.2",
                at: versionPosition
            )
        }
        try finishLine()
    }

    // MARK: nesting, anchors and aliases

    mutating func enter(at position: SourcePosition) throws(YAMLSyntaxError) {
        depth += 1
        nodes += 1
        if depth > YAMLReader.maximumDepth {
            throw fail("nesting deeper than \(YAMLReader.maximumDepth) levels", at: position)
        }
        if depth > deepest { deepest = depth }
    }

    mutating func leave() { depth -= 1 }

    /// Starts measuring the node an anchor names: `deepest` restarts at the current depth and is
    /// merged back in `define`, so nested anchors each learn their own height.
    mutating func beginAnchor(_ name: String, at position: SourcePosition) -> PendingAnchor {
        let pending = PendingAnchor(
            name: name,
            position: position,
            nodesBefore: nodes,
            depth: depth,
            savedDeepest: deepest
        )
        deepest = depth
        return pending
    }

    /// Records the node of a pending anchor. A later anchor of the same name replaces it, as in YAML.
    mutating func define(_ pending: PendingAnchor?, _ node: JSONNode, keyText: String?) {
        guard let pending else { return }
        anchors[pending.name] = Anchor(
            node: node,
            size: max(1, nodes - pending.nodesBefore),
            height: max(0, deepest - pending.depth),
            keyText: keyText
        )
        deepest = max(deepest, pending.savedDeepest)
    }

    /// The single anchor of a node that is not a key: one from the line before and one on the
    /// node's own line would be two.
    mutating func single(_ a: PendingAnchor?, _ b: PendingAnchor?) throws(YAMLSyntaxError) -> PendingAnchor? {
        if let a, let b { throw fail("a value can have only one anchor (&\(a.name) and &\(b.name))", at: b.position) }
        return a ?? b
    }

    /// `*name`: the anchored value, at the alias's position. Its expansion counts against the
    /// limits as if it were written out.
    mutating func parseAlias() throws(YAMLSyntaxError) -> (node: JSONNode, keyText: String?) {
        let start = pos()
        index += 1
        let nameStart = index
        while Ch.isAnchorChar(at(index)) { index += 1 }
        guard index > nameStart else { throw fail("an alias needs a name after '*'", at: start) }
        let name = text(nameStart, index)
        guard let anchor = anchors[name] else {
            throw fail("the alias *\(name) refers to no anchor; an anchor &\(name) must come before it", at: start)
        }
        if depth + anchor.height > YAMLReader.maximumDepth {
            throw fail("nesting deeper than \(YAMLReader.maximumDepth) levels through the alias *\(name)", at: start)
        }
        deepest = max(deepest, depth + anchor.height)
        aliasNodes += anchor.size
        nodes += anchor.size
        if aliasNodes > YAMLReader.maximumAliasExpansion {
            throw fail(
                """
                aliases expand to more than \(YAMLReader.maximumAliasExpansion) values; the document is refused \
                (is it a \"billion laughs\" attack?)
                """,
                at: start
            )
        }
        return (JSONNode(anchor.node.value, at: start), anchor.keyText)
    }
}
