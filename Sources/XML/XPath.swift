/// A compile error in an XPath expression: what, and where (character offset).
package struct XPathSyntaxError: Error, Sendable, Equatable {
    package let message: String
    package let offset: Int
}

/// The part of XPath 1.0 that templates use on request bodies, compiled at load: location
/// paths (`/a/b`, `//b`, `a/*`, `..`, `.`), `text()`, `node()`, attributes (`@id`, `@*`), and
/// predicates: a position (`[2]`, `[last()]`), an attribute or child that exists (`[@id]`,
/// `[name]`), or equals a string or number (`[@id='7']`, `[name="x"]`, `[text()='y']`).
/// Names match an element's local name when the test has no prefix, so namespaced documents
/// (SOAP) work without declaring prefixes. Anything else is refused with its offset.
package struct XPathExpression: Sendable {
    enum Axis: Sendable { case child, descendant, attribute, parent, selfNode }

    enum Test: Sendable, Equatable {
        case name(String)
        case anyElement
        case text
        case node
    }

    enum Predicate: Sendable, Equatable {
        case position(Int)
        case last
        case exists(Operand)
        case equals(Operand, String)
    }

    enum Operand: Sendable, Equatable {
        case attribute(String)
        case child(String)
        case text
    }

    struct Step: Sendable {
        let axis: Axis
        let test: Test
        let predicates: [Predicate]
    }

    let absolute: Bool
    let steps: [Step]
    package let source: String

    package init(_ source: String) throws(XPathSyntaxError) {
        var parser = XPathParser(source)
        (absolute, steps) = try parser.parse()
        self.source = source
    }

    /// What the expression selects.
    package enum Item: Sendable {
        case element(XMLElementNode)
        case text(String)
        case attribute(name: String, value: String)
    }

    /// The items selected from `root` (the document element; `/` is its parent, the document).
    /// At most `limit` items, so no document makes the result unbounded.
    package func evaluate(_ root: XMLElementNode, limit: Int = 10_000) -> [Item] {
        // The document node: a parent whose one child is the root element.
        let document = XMLElementNode(name: "", attributes: [], children: [.element(root)])
        var current: [(item: Item, parents: [XMLElementNode])] = [(.element(absolute ? document : root), [])]
        if !absolute { current = [(.element(document), [])] }
        for step in steps {
            var next: [(item: Item, parents: [XMLElementNode])] = []
            for (item, parents) in current {
                guard case .element(let element) = item else { continue }
                var found = select(step, from: element, parents: parents, limit: limit - next.count)
                found = filter(found, step.predicates)
                next += found
                if next.count >= limit { break }
            }
            current = next
        }
        return current.map(\.item)
    }

    private func select(
        _ step: Step,
        from element: XMLElementNode,
        parents: [XMLElementNode],
        limit: Int
    ) -> [(item: Item, parents: [XMLElementNode])] {
        var out: [(item: Item, parents: [XMLElementNode])] = []
        func children(of element: XMLElementNode, _ parents: [XMLElementNode]) {
            for child in element.children where out.count < limit {
                switch child {
                case .element(let e) where matches(step.test, e): out.append((.element(e), parents + [element]))
                case .text(let t) where step.test == .text || step.test == .node:
                    out.append((.text(t), parents + [element]))
                default: break
                }
            }
        }
        switch step.axis {
        case .child:
            children(of: element, parents)
        case .descendant:
            var stack: [(XMLElementNode, [XMLElementNode])] = [(element, parents)]
            var visited = 0
            while let (node, nodeParents) = stack.popLast(), out.count < limit, visited < 100_000 {
                visited += 1
                children(of: node, nodeParents)
                stack += node.elements.reversed().map { ($0, nodeParents + [node]) }
            }
        case .attribute:
            for (name, value) in element.attributes {
                if case .name(let wanted) = step.test, !nameMatches(wanted, name) { continue }
                out.append((.attribute(name: name, value: value), parents))
            }
        case .parent:
            if let parent = parents.last { out.append((.element(parent), Array(parents.dropLast()))) }
        case .selfNode:
            out.append((.element(element), parents))
        }
        return out
    }

    private func matches(_ test: Test, _ element: XMLElementNode) -> Bool {
        switch test {
        case .anyElement, .node: return true
        case .text: return false
        case .name(let name): return nameMatches(name, element.name)
        }
    }

    private func nameMatches(_ wanted: String, _ actual: String) -> Bool {
        wanted == actual || (!wanted.contains(":") && actual.split(separator: ":").last.map(String.init) == wanted)
    }

    private func filter(
        _ items: [(item: Item, parents: [XMLElementNode])],
        _ predicates: [Predicate]
    ) -> [(item: Item, parents: [XMLElementNode])] {
        var items = items
        for predicate in predicates {
            switch predicate {
            case .position(let n): items = items.indices.contains(n - 1) ? [items[n - 1]] : []
            case .last: items = items.last.map { [$0] } ?? []
            case .exists(let operand): items = items.filter { !values(operand, $0.item).isEmpty }
            case .equals(let operand, let wanted): items = items.filter { values(operand, $0.item).contains(wanted) }
            }
        }
        return items
    }

    private func values(_ operand: Operand, _ item: Item) -> [String] {
        guard case .element(let element) = item else { return [] }
        switch operand {
        case .attribute(let name): return element.attributes.filter { nameMatches(name, $0.name) }.map(\.value)
        case .child(let name): return element.elements.filter { nameMatches(name, $0.name) }.map(\.textContent)
        case .text: return element.children.compactMap { if case .text(let t) = $0 { return t } else { return nil } }
        }
    }
}

/// Reads the subset `XPathExpression` supports.
struct XPathParser {
    private let chars: [Character]
    private var position = 0

    init(_ source: String) {
        chars = Array(source)
    }

    private func fail(_ message: String) -> XPathSyntaxError { XPathSyntaxError(message: message, offset: position) }

    private func peek(_ text: String) -> Bool {
        var i = position
        for c in text {
            guard i < chars.count, chars[i] == c else { return false }
            i += 1
        }
        return true
    }

    private mutating func accept(_ text: String) -> Bool {
        guard peek(text) else { return false }
        position += text.count
        return true
    }

    private mutating func skipSpaces() {
        while position < chars.count, chars[position] == " " { position += 1 }
    }

    mutating func parse() throws(XPathSyntaxError) -> (Bool, [XPathExpression.Step]) {
        skipSpaces()
        guard position < chars.count else { throw fail("the expression is empty") }
        var absolute = false
        var steps: [XPathExpression.Step] = []
        var descendant = false
        if accept("//") {
            absolute = true
            descendant = true
        } else if accept("/") {
            absolute = true
        }
        if absolute, position == chars.count { throw fail("\"/\" alone selects the document, which has no text") }
        while true {
            steps.append(try step(descendant: descendant))
            skipSpaces()
            if position == chars.count { break }
            if accept("//") {
                descendant = true
            } else if accept("/") {
                descendant = false
            } else {
                throw fail("unexpected \"\(chars[position])\" (this XPath subset has paths and predicates only)")
            }
        }
        return (absolute, steps)
    }

    private mutating func step(descendant: Bool) throws(XPathSyntaxError) -> XPathExpression.Step {
        skipSpaces()
        if accept("..") { return .init(axis: .parent, test: .node, predicates: []) }
        if accept(".") { return .init(axis: .selfNode, test: .node, predicates: []) }
        let axis: XPathExpression.Axis
        if accept("@") { axis = .attribute } else { axis = descendant ? .descendant : .child }
        let test: XPathExpression.Test
        if accept("*") {
            test = .anyElement
        } else if accept("text()") {
            test = .text
        } else if accept("node()") {
            test = .node
        } else {
            test = .name(try name())
        }
        if axis == .attribute, test == .text || test == .node { throw fail("an attribute has a name or *") }
        var predicates: [XPathExpression.Predicate] = []
        while accept("[") {
            predicates.append(try predicate())
            skipSpaces()
            guard accept("]") else { throw fail("a predicate is closed with \"]\"") }
        }
        return .init(axis: axis, test: test, predicates: predicates)
    }

    private mutating func name() throws(XPathSyntaxError) -> String {
        let start = position
        while position < chars.count {
            let c = chars[position]
            guard c.isLetter || c == "_" || c == ":" || (position > start && (c.isNumber || c == "-" || c == "."))
            else { break }
            position += 1
        }
        guard position > start else {
            throw fail(
                position < chars.count
                    ? "unexpected \"\(chars[position])\" where a name belongs" : "a name is missing at the end"
            )
        }
        return String(chars[start..<position])
    }

    private mutating func predicate() throws(XPathSyntaxError) -> XPathExpression.Predicate {
        skipSpaces()
        if accept("last()") { return .last }
        if position < chars.count, chars[position].isNumber {
            var n = 0
            while position < chars.count, let digit = chars[position].wholeNumberValue, chars[position].isASCII,
                n < 1_000_000
            {
                n = n * 10 + digit
                position += 1
            }
            guard n >= 1 else { throw fail("positions start at 1") }
            return .position(n)
        }
        let operand: XPathExpression.Operand
        if accept("@") {
            operand = .attribute(try name())
        } else if accept("text()") {
            operand = .text
        } else {
            operand = .child(try name())
        }
        skipSpaces()
        guard accept("=") else { return .exists(operand) }
        skipSpaces()
        guard position < chars.count else { throw fail("a value is missing after \"=\"") }
        let quote = chars[position]
        if quote == "'" || quote == "\"" {
            position += 1
            let start = position
            while position < chars.count, chars[position] != quote { position += 1 }
            guard position < chars.count else { throw fail("a string is never closed") }
            let value = String(chars[start..<position])
            position += 1
            return .equals(operand, value)
        }
        let start = position
        while position < chars.count, chars[position].isNumber || chars[position] == "." || chars[position] == "-" {
            position += 1
        }
        guard position > start else { throw fail("a value after \"=\" is a quoted string or a number") }
        return .equals(operand, String(chars[start..<position]))
    }
}
