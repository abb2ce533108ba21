/// Groups: capturing, named, non-capturing, flags, comments, atomic groups and look-around.
extension RegexParser {
    mutating func parseGroup() throws(RegexSyntaxError) -> Atom {
        let start = pos
        pos += 1
        guard depth < RegexLimits.maxNesting else {
            throw error("groups nested more than \(RegexLimits.maxNesting) deep are not supported", at: start)
        }
        guard peek() == "?" else {
            captureCount += 1
            let index = captureCount  // numbered by their '(', so before the groups inside
            let body = try parseGroupBody(start: start, flags: flags)
            return .node(Parsed(node: .capture(index, body.node), cost: Self.add(body.cost, 2)), repeatable: true)
        }
        pos += 1
        guard let c = peek() else { throw error("unterminated group '(?'", at: start) }
        let written = String(String.UnicodeScalarView(scalars[start...pos]))  // "(?R", "(?P"
        switch c {
        case ":":
            pos += 1
            let body = try parseGroupBody(start: start, flags: flags)
            return .node(body, repeatable: true)
        case "#":
            while let d = peek(), d != ")" {
                // ICU reads \Q, \x, \u... even inside a comment ("(?#\Q)...\E)" ends elsewhere,
                // "(?#\x{E)" is an error), so a comment stays plain text.
                if d == "\\" { throw error("a backslash inside a (?#...) comment is not supported", at: pos) }
                pos += 1
            }
            guard peek() == ")" else { throw error("unterminated comment '(?#': it ends at the first ')'", at: start) }
            pos += 1
            return .comment
        case "=", "!":
            pos += 1
            return try parseLookaround(start: start, behind: false, negative: c == "!")
        case ">":
            noteBacktracking(
                "atomic group (?>...)",
                refusal: "atomic groups (?>...) are not supported: " + "\(Refusal.linearTime) atomic groups do not fit",
                at: start
            )
            pos += 1
            let body = try parseGroupBody(start: start, flags: flags)
            return .node(Parsed(node: .atomic(body.node), cost: Self.add(body.cost, 2)), repeatable: true)
        case "(": throw error("conditionals (?(...)...) are not supported", at: start)
        case "'", "P":
            throw error("group syntax \(written)... is not supported; name a group with (?<name>...)", at: start)
        case "R", "&", "+", "0"..."9": throw error("recursion \(written)...) is not supported", at: start)
        case "|": throw error("branch reset groups (?|...) are not supported", at: start)
        case "<":
            if let d = peek(1), d == "=" || d == "!" {
                pos += 2
                return try parseLookaround(start: start, behind: true, negative: d == "!")
            }
            pos += 1
            return try parseNamedGroup(start: start)
        default:
            return try parseFlags(start: start)
        }
    }

    /// `(?=...)`, `(?!...)`, `(?<=...)`, `(?<!...)`, after their opening. A look-behind must
    /// have a longest match (as in Java and ICU), which bounds the places it is tried from.
    mutating func parseLookaround(start: Int, behind: Bool, negative: Bool) throws(RegexSyntaxError) -> Atom {
        let kind = (negative ? "negative " : "") + (behind ? "look-behind" : "look-ahead")
        let written = behind ? (negative ? "(?<!" : "(?<=") : (negative ? "(?!" : "(?=")
        noteBacktracking("\(kind) \(written)...)", refusal: Refusal.lookaround(kind, written), at: start)
        let body = try parseGroupBody(start: start, flags: flags)
        if behind, body.node.maxLength == nil {
            throw error(
                "\(kind) \(written)...) needs a bounded length: no *, +, {n,} or back-reference inside it",
                at: start
            )
        }
        let node = RegexNode.lookaround(body.node, behind: behind, negative: negative)
        return .node(Parsed(node: node, cost: Self.add(body.cost, 2)), repeatable: false)
    }

    /// The inside of a group up to its ')'; flags changed inside end with the group.
    mutating func parseGroupBody(start: Int, flags inner: Flags) throws(RegexSyntaxError) -> Parsed {
        let outer = flags
        flags = inner
        depth += 1
        let body = try parseAlternation()
        depth -= 1
        guard peek() == ")" else { throw error("missing ')' for the group opened here", at: start) }
        pos += 1
        flags = outer
        return body
    }

    /// `(?<name>...)`: an ASCII letter, then ASCII letters and digits (ICU's rule).
    mutating func parseNamedGroup(start: Int) throws(RegexSyntaxError) -> Atom {
        var name = ""
        while let c = peek(), c.isASCII, c.properties.isAlphabetic || (!name.isEmpty && ("0"..."9").contains(c)) {
            name.unicodeScalars.append(c)
            pos += 1
        }
        guard !name.isEmpty, peek() == ">" else {
            throw error(
                "invalid group name: write (?<name>...) with an ASCII letter followed by letters and digits",
                at: start
            )
        }
        pos += 1
        guard groupNames[name] == nil else { throw error("group name '\(name)' is used twice", at: start) }
        captureCount += 1
        let index = captureCount
        groupNames[name] = index
        let body = try parseGroupBody(start: start, flags: flags)
        return .node(Parsed(node: .capture(index, body.node), cost: Self.add(body.cost, 2)), repeatable: true)
    }

    /// `(?ims-ims)` for the rest of the enclosing group, or `(?ims-ims:...)` for its body.
    mutating func parseFlags(start: Int) throws(RegexSyntaxError) -> Atom {
        var new = flags
        var on = true
        var sawAny = false
        while let c = peek() {
            pos += 1
            switch c {
            case "i": new.caseInsensitive = on
            case "m": new.multiline = on
            case "s": new.dotAll = on
            case "x": throw error("the (?x) flag (free spacing and # comments) is not supported", at: pos - 1)
            case "-":
                guard on else { throw error("a flag group has at most one '-'", at: pos - 1) }
                on = false
            case ")":
                guard sawAny || !on else { throw error("empty flag group '(?)'", at: start) }
                return .flags(new)
            case ":":
                let body = try parseGroupBody(start: start, flags: new)
                return .node(body, repeatable: true)
            default:
                throw error(
                    c.properties.isAlphabetic
                        ? "unknown flag '\(c)': the supported flags are i, m and s"
                        : "unknown group syntax '(?\(c)'",
                    at: pos - 1
                )
            }
            sawAny = true
        }
        throw error("unterminated flag group", at: start)
    }
}
