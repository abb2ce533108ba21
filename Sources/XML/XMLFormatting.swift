import SystemSupport

extension XMLElementNode {
    /// The element rewritten, as WireMock's `formatXml` does: text that is only whitespace
    /// between elements dropped; with `indentWidth`, each child element on its own line,
    /// indented (an element holding only text stays on one line); without, all on one line.
    package func rewritten(indentWidth: Int?) -> String {
        var out = ""
        write(into: &out, level: 0, indentWidth: indentWidth)
        return out
    }

    private func write(into out: inout String, level: Int, indentWidth: Int?) {
        out += "<" + name
        for (name, value) in attributes { out += " \(name)=\"\(XMLReader.escape(value, quotes: true))\"" }
        let hasElements = children.contains { if case .element = $0 { true } else { false } }
        let kept = children.filter { child in
            guard hasElements, case .text(let text) = child else { return true }
            return !text.allSatisfy(\.isWhitespace)
        }
        guard !kept.isEmpty else {
            out += "/>"
            return
        }
        out += ">"
        for child in kept {
            if hasElements, let width = indentWidth {
                out += "\n" + String(repeating: " ", count: (level + 1) * width)
            }
            switch child {
            case .text(let text):
                let written = hasElements && indentWidth != nil ? text.trimmingSpaces() : text
                out += XMLReader.escape(written, quotes: false)
            case .element(let element): element.write(into: &out, level: level + 1, indentWidth: indentWidth)
            }
        }
        if hasElements, let width = indentWidth {
            out += "\n" + String(repeating: " ", count: level * width)
        }
        out += "</\(name)>"
    }
}
