/// An XML element as the XML reader builds it: name (prefix kept), attributes in document
/// order, and children (elements and text, CDATA read as text).
package final class XMLElementNode: Sendable {
    package enum Child: Sendable {
        case element(XMLElementNode)
        case text(String)
    }

    package let name: String
    package let attributes: [(name: String, value: String)]
    package let children: [Child]

    init(name: String, attributes: [(name: String, value: String)], children: [Child]) {
        self.name = name
        self.attributes = attributes
        self.children = children
    }

    /// The name without its namespace prefix (`soap:Body` is `Body`).
    package var localName: String { name.split(separator: ":", maxSplits: 1).last.map(String.init) ?? name }

    package var elements: [XMLElementNode] {
        children.compactMap { if case .element(let e) = $0 { return e } else { return nil } }
    }

    /// All text below, in document order (XPath's string value).
    package var textContent: String {
        children.map { child in
            switch child {
            case .text(let text): return text
            case .element(let element): return element.textContent
            }
        }.joined()
    }

    package func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name || $0.name.split(separator: ":").last.map(String.init) == name }?.value
    }

    /// The element written back as XML (compact, entities escaped).
    package var xml: String {
        var out = "<" + name
        for (name, value) in attributes { out += " \(name)=\"\(XMLReader.escape(value, quotes: true))\"" }
        guard !children.isEmpty else { return out + "/>" }
        out += ">"
        for child in children {
            switch child {
            case .text(let text): out += XMLReader.escape(text, quotes: false)
            case .element(let element): out += element.xml
            }
        }
        return out + "</\(name)>"
    }
}

/// Where a document stops being well-formed XML, and why.
package struct XMLSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    package let line: Int
    package let column: Int
    package let message: String
    package var description: String { "\(line):\(column): \(message)" }
}

/// A small non-validating XML 1.0 reader for request bodies: elements, attributes, text,
/// CDATA, comments, processing instructions and the document type declaration (skipped), the
/// five predefined entities and character references. No external entities are ever read.
/// Depth and size are bounded, so no body can exhaust the stack.
package struct XMLReader {
    private let chars: [Character]
    private var position = 0
    static let maximumDepth = 256

    private init(_ text: String) {
        chars = Array(text)
    }

    package static func parse(_ text: String) throws(XMLSyntaxError) -> XMLElementNode {
        var reader = XMLReader(text)
        try reader.skipMisc(allowDoctype: true)
        guard reader.peek("<") else { throw reader.fail("expected the root element") }
        let root = try reader.element(depth: 0)
        try reader.skipMisc(allowDoctype: false)
        guard reader.position == reader.chars.count else { throw reader.fail("text after the root element") }
        return root
    }

    private func fail(_ message: String) -> XMLSyntaxError {
        var line = 1
        var column = 1
        for c in chars[..<min(position, chars.count)] {
            if c == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return XMLSyntaxError(line: line, column: column, message: message)
    }

    private func peek(_ text: String) -> Bool {
        var i = position
        for c in text {
            guard i < chars.count, chars[i] == c else { return false }
            i += 1
        }
        return true
    }

    private mutating func expect(_ text: String) throws(XMLSyntaxError) {
        guard peek(text) else { throw fail("expected \"\(text)\"") }
        position += text.count
    }

    private mutating func skipSpaces() {
        while position < chars.count, chars[position].isWhitespace { position += 1 }
    }

    /// Past `terminator`, or an error naming what is not closed.
    private mutating func skip(past terminator: String, what: String) throws(XMLSyntaxError) {
        let start = position
        while position < chars.count {
            if peek(terminator) {
                position += terminator.count
                return
            }
            position += 1
        }
        position = start
        throw fail("\(what) is never closed with \"\(terminator)\"")
    }

    private mutating func skipMisc(allowDoctype: Bool) throws(XMLSyntaxError) {
        while true {
            skipSpaces()
            if peek("<?") {
                try skip(past: "?>", what: "a processing instruction")
            } else if peek("<!--") {
                try skip(past: "-->", what: "a comment")
            } else if allowDoctype, peek("<!DOCTYPE") {
                try skipDoctype()
            } else {
                return
            }
        }
    }

    private mutating func skipDoctype() throws(XMLSyntaxError) {
        var depth = 0
        while position < chars.count {
            let c = chars[position]
            position += 1
            if c == "[" { depth += 1 }
            if c == "]" { depth -= 1 }
            if c == ">", depth <= 0 { return }
        }
        throw fail("the document type declaration is never closed")
    }

    private mutating func name() throws(XMLSyntaxError) -> String {
        let start = position
        while position < chars.count {
            let c = chars[position]
            let allowed =
                c.isLetter || c == "_" || c == ":" || (position > start && (c.isNumber || c == "-" || c == "."))
            guard allowed else { break }
            position += 1
        }
        guard position > start else { throw fail("expected a name") }
        return String(chars[start..<position])
    }

    private mutating func element(depth: Int) throws(XMLSyntaxError) -> XMLElementNode {
        guard depth < Self.maximumDepth else { throw fail("elements are nested more than \(Self.maximumDepth) deep") }
        try expect("<")
        let name = try name()
        var attributes: [(name: String, value: String)] = []
        while true {
            let hadSpace = position < chars.count && chars[position].isWhitespace
            skipSpaces()
            if peek("/>") {
                position += 2
                return XMLElementNode(name: name, attributes: attributes, children: [])
            }
            if peek(">") {
                position += 1
                break
            }
            guard hadSpace else { throw fail("expected a space, \">\" or \"/>\" in <\(name)>") }
            let attribute = try self.name()
            guard !attributes.contains(where: { $0.name == attribute }) else {
                throw fail("attribute \"\(attribute)\" appears twice")
            }
            skipSpaces()
            try expect("=")
            skipSpaces()
            guard position < chars.count, chars[position] == "\"" || chars[position] == "'" else {
                throw fail("an attribute value is quoted")
            }
            let quote = chars[position]
            position += 1
            let value = try text(until: quote)
            position += 1
            attributes.append((attribute, value))
        }
        var children: [XMLElementNode.Child] = []
        while true {
            guard position < chars.count else { throw fail("<\(name)> is never closed") }
            if peek("</") {
                position += 2
                let closing = try self.name()
                guard closing == name else { throw fail("<\(name)> is closed by </\(closing)>") }
                skipSpaces()
                try expect(">")
                return XMLElementNode(name: name, attributes: attributes, children: children)
            }
            if peek("<!--") {
                try skip(past: "-->", what: "a comment")
                continue
            }
            if peek("<?") {
                try skip(past: "?>", what: "a processing instruction")
                continue
            }
            if peek("<![CDATA[") {
                position += 9
                let start = position
                try skip(past: "]]>", what: "a CDATA section")
                append(String(chars[start..<(position - 3)]), to: &children)
                continue
            }
            if peek("<") {
                children.append(.element(try element(depth: depth + 1)))
                continue
            }
            append(try text(until: "<"), to: &children)
        }
    }

    private func append(_ text: String, to children: inout [XMLElementNode.Child]) {
        if case .text(let previous)? = children.last {
            children[children.count - 1] = .text(previous + text)
        } else if !text.isEmpty {
            children.append(.text(text))
        }
    }

    /// Text up to `end` (not consumed), references replaced.
    private mutating func text(until end: Character) throws(XMLSyntaxError) -> String {
        var out = ""
        while position < chars.count, chars[position] != end {
            let c = chars[position]
            if c == "<" { throw fail("\"<\" in an attribute value") }
            if c == "&" {
                out += try reference()
            } else {
                out.append(c)
                position += 1
            }
        }
        guard position < chars.count else {
            throw fail(end == "<" ? "the document ends inside an element" : "an attribute value is never closed")
        }
        return out
    }

    private mutating func reference() throws(XMLSyntaxError) -> String {
        let start = position
        position += 1
        while position < chars.count, chars[position] != ";", position - start < 12 { position += 1 }
        guard position < chars.count, chars[position] == ";" else {
            position = start
            throw fail("\"&\" starts no reference (write &amp;)")
        }
        let body = String(chars[(start + 1)..<position])
        position += 1
        switch body {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let hex = body.hasPrefix("#x")
            if body.hasPrefix("#"), let code = UInt32(body.dropFirst(hex ? 2 : 1), radix: hex ? 16 : 10),
                let scalar = Unicode.Scalar(code)
            {
                return String(Character(scalar))
            }
            position = start
            throw fail("unknown entity &\(body);")
        }
    }

    static func escape(_ text: String, quotes: Bool) -> String {
        var out = ""
        for c in text {
            switch c {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"" where quotes: out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
