/// Whitespace rules applied to the tokens before the tree is built, as Handlebars does:
/// `{{~` and `~}}` trim the whitespace next to a tag, and a block, `else` or comment tag
/// alone on its line takes the line with it (so a template's layout does not leak blank
/// lines into the body).
enum HandlebarsWhitespace {
    static func apply(_ tokens: inout [HandlebarsParser.Token]) {
        for k in tokens.indices {
            guard case .tag(let tag) = tokens[k] else { continue }
            if tag.trimBefore, k > 0, case .text(let s) = tokens[k - 1] {
                tokens[k - 1] = .text(String(s.reversed().drop { $0.isWhitespace }.reversed()))
            }
            if tag.trimAfter, k + 1 < tokens.count, case .text(let s) = tokens[k + 1] {
                tokens[k + 1] = .text(String(s.drop { $0.isWhitespace }))
            }
            if isStandaloneKind(tag.kind), !tag.trimBefore, !tag.trimAfter {
                stripStandalone(at: k, &tokens)
            }
        }
    }

    private static func isStandaloneKind(_ kind: HandlebarsParser.Tag.Kind) -> Bool {
        switch kind {
        case .open, .inverseOpen, .close, .elseTag, .comment: true
        case .value, .raw, .partial: false
        }
    }

    private static func isBlank(_ s: Substring) -> Bool { s.allSatisfy { $0 == " " || $0 == "\t" } }

    private static func stripStandalone(at k: Int, _ tokens: inout [HandlebarsParser.Token]) {
        // Before: line start (the template's, or after a newline) and only blanks since.
        var before: (index: Int, keep: String)?
        if k > 0 {
            guard case .text(let s) = tokens[k - 1] else { return }
            if let newline = s.lastIndex(where: { $0 == "\n" || $0 == "\r\n" }) {
                guard isBlank(s[s.index(after: newline)...]) else { return }
                before = (k - 1, String(s[...newline]))
            } else {
                guard k - 1 == 0, isBlank(Substring(s)) else { return }
                before = (k - 1, "")
            }
        }
        // After: only blanks up to the line's end (or the template's end).
        var after: (index: Int, keep: String)?
        if k + 1 < tokens.count {
            guard case .text(let s) = tokens[k + 1] else { return }
            if let newline = s.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) {
                guard isBlank(s[..<newline]) else { return }
                after = (k + 1, String(s[s.index(after: newline)...]))
            } else {
                guard k + 1 == tokens.count - 1, isBlank(Substring(s)) else { return }
                after = (k + 1, "")
            }
        }
        if let before { tokens[before.index] = .text(before.keep) }
        if let after { tokens[after.index] = .text(after.keep) }
    }
}
