import JSON

/// Flow collections: `[a, b]`, `{a: 1, b: [x]}`, and `[k: v]` (a one-entry mapping inside a
/// sequence). JSON is a flow collection, so every JSON text reads here as JSON does.
///
/// `n` is the indentation of the block collection around (-1 at the root): a flow collection
/// may span lines, but each of its lines must be indented more than that.
extension YAMLParser {
    struct FlowItem {
        let node: JSONNode
        /// The scalar it was read from (nil for a collection or an empty value).
        let scalar: ScalarToken?
        /// Quoted scalars and collections may be followed by ':' without a space (`{"a":1}`).
        let jsonLike: Bool
    }

    mutating func parseFlowCollection(parent n: Int) throws(YAMLSyntaxError) -> JSONNode {
        let start = pos()
        let isSequence = at(index) == Ch.lbracket
        try enter(at: start)
        index += 1
        if isSequence {
            var elements: [JSONNode] = []
            while true {
                try skipFlowSpace(parent: n)
                if at(index) == Ch.rbracket {
                    index += 1
                    break
                }
                elements.append(try parseFlowSequenceEntry(parent: n))
                try skipFlowSpace(parent: n)
                if at(index) == Ch.comma {
                    index += 1
                    continue
                }
                if at(index) == Ch.rbracket {
                    index += 1
                    break
                }
                throw unclosed("expected ',' or ']'", "sequence", start)
            }
            leave()
            return JSONNode(.array(elements), at: start)
        }
        var members: [JSONNode.Member] = []
        var seen: [String: SourcePosition] = [:]
        while true {
            try skipFlowSpace(parent: n)
            if at(index) == Ch.rbrace {
                index += 1
                break
            }
            let (key, value) = try parseFlowMappingEntry(parent: n)
            if let first = seen.updateValue(key.position, forKey: key.text) {
                throw fail(
                    "duplicate key \(quoted(key.text)) in this mapping (it is first at \(first))",
                    at: key.position
                )
            }
            members.append(JSONNode.Member(key: key.text, keyPosition: key.position, value: value))
            try skipFlowSpace(parent: n)
            if at(index) == Ch.comma {
                index += 1
                continue
            }
            if at(index) == Ch.rbrace {
                index += 1
                break
            }
            throw unclosed("expected ',' or '}'", "mapping", start)
        }
        leave()
        return JSONNode(.object(members), at: start)
    }

    private mutating func unclosed(_ expected: String, _ kind: String, _ start: SourcePosition) -> YAMLSyntaxError {
        if index >= bytes.count { return fail("the flow \(kind) that starts at \(start) is not closed") }
        return fail("\(expected) in the flow \(kind) that starts at \(start), found \(describe(index))")
    }

    /// An entry of `[...]`: a value, or `key: value`, which is a mapping of one entry.
    mutating func parseFlowSequenceEntry(parent n: Int) throws(YAMLSyntaxError) -> JSONNode {
        try refuseEmptyOrComplexKey()
        if at(index) == Ch.comma { throw fail("expected a value before ','") }
        let start = pos()
        let startLine = line
        let item = try parseFlowItem(parent: n)
        let afterItem = index
        skipBlanks()
        let after = at(index + 1)
        guard at(index) == Ch.colon, item.jsonLike || isBlankOrBreakOrEnd(after) || Ch.isFlowIndicator(after) else {
            index = afterItem
            return item.node
        }
        guard let scalar = item.scalar else {
            if item.jsonLike { throw nonScalarKey(at: start) }
            throw emptyKey()
        }
        if scalar.multiLine || line != startLine {
            throw fail("a key inside a flow sequence must be on one line", at: start)
        }
        let key = try makeKey(scalar, anchor: nil)
        index += 1
        try enter(at: start)
        try skipFlowSpace(parent: n)
        let value: JSONNode
        if at(index) == Ch.comma || at(index) == Ch.rbracket {
            value = emptyNode(at: pos(), anchor: nil)
        } else {
            value = try parseFlowItem(parent: n).node
        }
        leave()
        return JSONNode(.object([JSONNode.Member(key: key.text, keyPosition: key.position, value: value)]), at: start)
    }

    /// An entry of `{...}`: `key: value`, or `key` alone (its value is null).
    mutating func parseFlowMappingEntry(parent n: Int) throws(YAMLSyntaxError) -> (Key, JSONNode) {
        try refuseEmptyOrComplexKey()
        if at(index) == Ch.comma { throw fail("expected a key before ','") }
        var anchor: PendingAnchor? = nil
        if at(index) == Ch.amp || at(index) == Ch.bang {
            anchor = try parseProperties()
            try skipFlowSpace(parent: n)
        }
        let start = pos()
        let c = at(index)
        if c == Ch.lbracket || c == Ch.lbrace { throw nonScalarKey(at: start) }
        if c == Ch.comma || c == Ch.rbrace || (c == Ch.colon && isValueIndicator(at: index)) { throw emptyKey() }
        let scalar = try parseScalar(parent: n, flow: true)
        let key = try makeKey(scalar, anchor: anchor)
        try skipFlowSpace(parent: n)
        let value: JSONNode
        if at(index) == Ch.colon {
            // After a plain key, ':' needs a space unless the value is empty (`{a:}`); after a
            // quoted key it may touch the value, as in JSON.
            let after = at(index + 1)
            guard scalar.kind == .quoted || isBlankOrBreakOrEnd(after) || after == Ch.comma || after == Ch.rbrace else {
                index += 1
                throw fail("expected a space after ':' (or quote the key)")
            }
            index += 1
            try skipFlowSpace(parent: n)
            if at(index) == Ch.comma || at(index) == Ch.rbrace {
                value = emptyNode(at: pos(), anchor: nil)
            } else {
                value = try parseFlowItem(parent: n).node
            }
        } else if at(index) == Ch.comma || at(index) == Ch.rbrace {
            value = emptyNode(at: pos(), anchor: nil)
        } else if index >= bytes.count {
            throw fail("the flow mapping is not closed; expected ':', ',' or '}' after the key \(quoted(key.text))")
        } else {
            throw fail("expected ':', ',' or '}' after the key \(quoted(key.text)), found \(describe(index))")
        }
        return (key, value)
    }

    private func isValueIndicator(at i: Int) -> Bool {
        let next = at(i + 1)
        return isBlankOrBreakOrEnd(next) || Ch.isFlowIndicator(next)
    }

    private mutating func refuseEmptyOrComplexKey() throws(YAMLSyntaxError) {
        let c = at(index)
        if c == Ch.question && isBlankOrBreakOrEnd(at(index + 1)) { throw complexKey() }
        if c == Ch.colon && isValueIndicator(at: index) { throw emptyKey() }
    }

    /// A value inside a flow collection, with its anchor if any.
    mutating func parseFlowItem(parent n: Int) throws(YAMLSyntaxError) -> FlowItem {
        var anchor: PendingAnchor? = nil
        if at(index) == Ch.amp || at(index) == Ch.bang {
            anchor = try parseProperties()
            try skipFlowSpace(parent: n)
            let c = at(index)
            if c == Ch.comma || c == Ch.rbracket || c == Ch.rbrace || (c == Ch.colon && isValueIndicator(at: index)) {
                return FlowItem(node: emptyNode(at: pos(), anchor: anchor), scalar: nil, jsonLike: false)
            }
        }
        let c = at(index)
        if c == Ch.lbracket || c == Ch.lbrace {
            let node = try parseFlowCollection(parent: n)
            define(anchor, node, keyText: nil)
            return FlowItem(node: node, scalar: nil, jsonLike: true)
        }
        if c == Ch.pipe || c == Ch.gt {
            throw fail("a block scalar ('|' or '>') cannot be used inside a flow collection; use a quoted string")
        }
        if c == Ch.dash && isBlankOrBreakOrEnd(at(index + 1)) {
            throw fail("a block sequence entry ('- ') cannot be used inside a flow collection")
        }
        let scalar = try parseScalar(parent: n, flow: true)
        if scalar.kind == .alias, let anchor {
            throw fail("an alias cannot have an anchor (&\(anchor.name))", at: anchor.position)
        }
        let node = try resolve(scalar)
        define(anchor, node, keyText: scalar.keyText)
        return FlowItem(node: node, scalar: scalar, jsonLike: scalar.kind == .quoted)
    }

    /// Spaces, tabs, comments and line breaks between the parts of a flow collection. Each new
    /// line with content must be indented more than the block around the collection.
    mutating func skipFlowSpace(parent n: Int) throws(YAMLSyntaxError) {
        while true {
            let c = at(index)
            if Ch.isBlank(c) {
                index += 1
                continue
            }
            if c == Ch.hash {
                if index > lineStart && !Ch.isBlank(at(index - 1)) { return }
                while !Ch.isBreak(at(index)) && index < bytes.count { index += 1 }
                continue
            }
            guard Ch.isBreak(c) else { return }
            consumeBreak()
            var i = index
            while at(i) == Ch.space { i += 1 }
            let spaces = i - index
            var k = i
            while Ch.isBlank(at(k)) { k += 1 }
            let d = at(k)
            if Ch.isBreak(d) || d == Ch.hash || k >= bytes.count {
                index = k
                continue
            }
            if spaces == 0 && isDocumentMarker(at: lineStart) {
                throw fail("a document marker ('---' or '...') inside a flow collection; is a closing bracket missing?")
            }
            if spaces <= n {
                index = i
                throw fail(
                    """
                    a line inside a flow collection must be indented more than the key or '- ' it belongs to \
                    (at least \(n + 1) spaces)
                    """
                )
            }
            index = k
        }
    }
}
