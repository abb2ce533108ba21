/// Escapes, classes `[...]`, properties `\p{...}` and POSIX classes `[:name:]`.
extension RegexParser {
    mutating func parseEscape() throws(RegexSyntaxError) -> Atom {
        let start = pos
        pos += 1
        guard let c = peek() else {
            throw error("the pattern ends with a lone backslash; write \\\\ for a literal backslash", at: start)
        }
        pos += 1
        if let v = try literalEscape(c, start: start) { return .literal([v]) }
        if let item = try namedEscape(c, start: start) {
            let set = CharacterClass(explicit: ScalarSet(), items: [item])
            return .node(Parsed(node: .characterClass(set), cost: 1), repeatable: true)
        }
        switch c {
        case "b": return assertion(.wordBoundary)
        case "B": return assertion(.notWordBoundary)
        case "A": return assertion(.startOfText)
        case "z": return assertion(.endOfText)
        case "Z": return assertion(.endOfTextOrFinalTerminator)
        case "R": return .node(Parsed(node: .lineBreak, cost: 2), repeatable: true)
        case "1"..."9":
            // Java's rule: more digits belong to the number while that many groups exist so far.
            var group = Int(c.value - 48)
            while let d = peek(), ("0"..."9").contains(d), group * 10 + Int(d.value - 48) <= captureCount {
                group = group * 10 + Int(d.value - 48)
                pos += 1
            }
            noteBackReference(group, written: "\\\(group)", at: start)
            return backReference(group)
        case "k":
            guard peek() == "<" else { throw error("write \\k<name> for a back-reference to a named group", at: start) }
            pos += 1
            var name = ""
            while let d = peek(), d != ">" {
                name.unicodeScalars.append(d)
                pos += 1
            }
            guard peek() == ">" else { throw error("missing '>' after \\k<", at: start) }
            pos += 1
            guard let group = groupNames[name] else {
                throw error("back-reference \\k<\(name)> names no group defined before it", at: start)
            }
            noteBackReference(group, written: "\\k<name>", at: start)
            return backReference(group)
        case "Q":
            // Quoted up to \E; the characters join the literal run. ICU also quotes to the end of
            // the pattern, which would swallow the \A(?:...)\z that "whole match" means there.
            var quoted: [UInt32] = []
            while let q = peek() {
                if q == "\\", peek(1) == "E" {
                    pos += 2
                    return .literal(quoted)
                }
                quoted.append(q.value)
                pos += 1
            }
            throw error("\\Q without a closing \\E", at: start)
        default:
            throw unsupportedEscape(c, at: start)
        }
    }

    private func backReference(_ group: Int) -> Atom {
        .node(Parsed(node: .backReference(group, caseInsensitive: flags.caseInsensitive), cost: 1), repeatable: true)
    }

    private func assertion(_ a: Assertion) -> Atom {
        .node(Parsed(node: .assertion(a), cost: 1), repeatable: false)
    }

    /// Escapes that stand for one character, or nil when `c` is not one of them.
    mutating func literalEscape(_ c: Unicode.Scalar, start: Int) throws(RegexSyntaxError) -> UInt32? {
        switch c {
        case "a": return 0x07
        case "e": return 0x1B
        case "f": return 0x0C
        case "n": return 0x0A
        case "r": return 0x0D
        case "t": return 0x09
        case "x":
            if peek() == "{" {
                pos += 1
                let digits = hexDigits(max: 9)
                guard peek() == "}", (1...8).contains(digits.count) else {
                    throw error("invalid \\x{...}: write one to eight hex digits, as in \\x{1F600}", at: start)
                }
                pos += 1
                return try codePoint(digits.value, at: start)
            }
            let digits = hexDigits(max: 2)
            guard digits.count > 0 else {
                throw error("invalid \\x: write \\xhh or \\x{h...} with hex digits", at: start)
            }
            return digits.value
        case "u", "U":
            let count = c == "u" ? 4 : 8
            let digits = hexDigits(max: count)
            guard digits.count == count else {
                throw error(
                    "invalid \\\(c): write exactly \(count) hex digits, as in \(c == "u" ? "\\u00E9" : "\\U0001F600")",
                    at: start
                )
            }
            return try codePoint(digits.value, at: start)
        case "0":
            // ICU's octal: \0 and one to three octal digits, while the value stays <= 0377.
            var value: UInt32 = 0
            for index in 0..<3 {
                guard let d = peek(), ("0"..."7").contains(d) else {
                    if index == 0 {
                        throw error("invalid \\0: write \\0ooo with one to three octal digits, or \\x00", at: start)
                    }
                    break
                }
                let next = value << 3 + (d.value - 48)
                if next > 255 { break }
                value = next
                pos += 1
            }
            return value
        default:
            // Any other escaped character that is not an ASCII letter or digit stands for itself.
            let isASCIIAlphanumeric = c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c))
            return isASCIIAlphanumeric ? nil : c.value
        }
    }

    private mutating func hexDigits(max: Int) -> (value: UInt32, count: Int) {
        var value: UInt32 = 0
        var count = 0
        while count < max, let d = peek(), let h = Self.hexValue(d) {
            value = value &* 16 &+ h  // at most 9 digits are read; the caller rejects 9
            count += 1
            pos += 1
        }
        return (value, count)
    }

    private static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": c.value - 48
        case "a"..."f": c.value - 87
        case "A"..."F": c.value - 55
        default: nil
        }
    }

    private func codePoint(_ v: UInt32, at start: Int) throws(RegexSyntaxError) -> UInt32 {
        if v > 0x10FFFF { throw error("code point beyond U+10FFFF", at: start) }
        if (0xD800...0xDFFF).contains(v) {
            throw error(
                """
                surrogate code points cannot occur in text; write the character itself or \\x{...} with its \
                full code point
                """,
                at: start
            )
        }
        return v
    }

    /// \d \w \s \h \v and their negations, and \p{...} / \P{...}; nil for other letters.
    mutating func namedEscape(_ c: Unicode.Scalar, start: Int) throws(RegexSyntaxError) -> CharacterClass.Item? {
        let negated = c.properties.isUppercase
        switch c {
        case "d", "D":
            return .init(set: .categories(NamedSet.mask([.decimalNumber])), negated: negated, caseClosed: false)
        case "w", "W": return .init(set: .word, negated: negated, caseClosed: false)
        case "s", "S": return .init(set: .whiteSpace, negated: negated, caseClosed: false)
        case "h", "H": return .init(set: .horizontalSpace, negated: negated, caseClosed: false)
        case "v", "V": return .init(set: .verticalSpace, negated: negated, caseClosed: false)
        case "p", "P":
            guard peek() == "{" else { throw error("write \\\(c){Name} with braces, as in \\\(c){L}", at: start) }
            let open = pos
            while let d = peek(), d != "}" { pos += 1 }
            guard peek() == "}" else { throw error("missing '}' after \\\(c){", at: start) }
            let name = String(String.UnicodeScalarView(scalars[(open + 1)..<pos]))
            pos += 1
            guard let set = NamedSet.resolve(name) else {
                throw error(
                    "unsupported property \\\(c){\(name)}: general categories (L, Lu, Nd, P, ...), Alphabetic, "
                        + """
                        Lowercase, Uppercase, White_Space, Hex_Digit, Any, ASCII, Assigned and the POSIX names \
                        are supported
                        """,
                    at: start
                )
            }
            // ICU closes a property over case before negating it.
            return .init(set: set, negated: negated, caseClosed: flags.caseInsensitive)
        default:
            return nil
        }
    }

    func unsupportedEscape(_ c: Unicode.Scalar, at start: Int) -> RegexSyntaxError {
        let written = "\\\(c)"
        switch c {
        case "b", "B", "A", "z", "Z", "R", "Q", "1"..."9", "k":
            // Outside a class these are handled before this point.
            return error("\(written) cannot be used inside [...]", at: start)
        case "G": return error("\\G (end of the previous match) is not supported", at: start)
        case "X": return error("\\X (grapheme cluster) is not supported", at: start)
        case "N": return error("\\N{name} is not supported; write \\x{...} with the code point", at: start)
        case "c": return error("\\cX control escapes are not supported; write \\xhh", at: start)
        case "E": return error("\\E without a \\Q before it", at: start)
        default: return error("unknown escape \(written)", at: start)
        }
    }

    // MARK: - classes

    enum ClassAtom {
        case scalar(UInt32)
        case item(CharacterClass.Item)
    }

    mutating func parseClass() throws(RegexSyntaxError) -> CharacterClass {
        let start = pos
        if peek(1) == ":" {
            // ICU reads a top-level [:name:] as a POSIX class, not as a class of ':' and letters.
            return CharacterClass(explicit: ScalarSet(), items: [try parsePOSIX()])
        }
        pos += 1
        var negated = false
        if peek() == "^" {
            negated = true
            pos += 1
        }
        var ranges: [ClosedRange<UInt32>] = []
        var items: [CharacterClass.Item] = []
        var first = true  // a ']' right after '[' or '[^' is a literal
        while true {
            guard let c = peek() else { throw error("missing ']' for the class opened here", at: start) }
            if c == "]", !first {
                pos += 1
                break
            }
            first = false
            let atomStart = pos
            switch try parseClassAtom(classStart: start) {
            case .item(let item):
                items.append(item)  // a '-' after a class like \d is a literal '-' (ICU)
            case .scalar(let low):
                guard peek() == "-", let after = peek(1), after != "]" else {
                    ranges.append(low...low)
                    continue
                }
                if after == "-" {
                    throw error("class difference (--) is not supported; write \\- for a literal '-'", at: pos)
                }
                // ICU takes a range after an unescaped '&' from the character before the '&'
                // ([a&-z] is a-z and '&'), or fails when there is none.
                if scalars[atomStart] == "&" {
                    throw error("a range cannot start with '&'; write \\& for a literal '&'", at: atomStart)
                }
                pos += 1
                guard case .scalar(let high) = try parseClassAtom(classStart: start) else {
                    throw error("a range cannot end in a class such as \\d", at: atomStart)
                }
                guard low <= high else {
                    throw error("range out of order: the first character is above the second", at: atomStart)
                }
                ranges.append(low...high)
            }
        }
        var set = ScalarSet(ranges: ranges)
        if flags.caseInsensitive { set = CaseFolding.shared.closure(of: set) }
        return CharacterClass(
            explicit: set,
            items: items,
            closedOverCase: flags.caseInsensitive && !items.isEmpty,
            negated: negated
        )
    }

    private mutating func parseClassAtom(classStart: Int) throws(RegexSyntaxError) -> ClassAtom {
        let start = pos
        guard let c = peek() else { throw error("missing ']' for the class opened here", at: classStart) }
        switch c {
        case "[":
            if peek(1) == ":" { return .item(try parsePOSIX()) }
            throw error("nested classes ([...[...]...]) are not supported; write \\[ for a literal '['", at: start)
        case "&" where peek(1) == "&":
            throw error("class intersection (&&) is not supported; write \\& for a literal '&'", at: start)
        case "-" where peek(1) == "-":
            throw error("class difference (--) is not supported; write \\- for a literal '-'", at: start)
        case "\\":
            pos += 1
            guard let e = peek() else { throw error("missing ']' for the class opened here", at: classStart) }
            pos += 1
            if let v = try literalEscape(e, start: start) { return .scalar(v) }
            if let item = try namedEscape(e, start: start) { return .item(item) }
            throw unsupportedEscape(e, at: start)
        default:
            pos += 1
            return .scalar(c.value)
        }
    }

    /// `[:name:]` or `[:^name:]`, with any supported property name (ICU: [:Lu:] works too).
    private mutating func parsePOSIX() throws(RegexSyntaxError) -> CharacterClass.Item {
        let start = pos
        pos += 2
        let negated = peek() == "^"
        if negated { pos += 1 }
        let nameStart = pos
        while let c = peek(), c != ":", c != "]" { pos += 1 }
        guard peek() == ":", peek(1) == "]", pos > nameStart else {
            throw error("'[:' starts a POSIX class such as [:alpha:]; write \\: for a literal ':'", at: start)
        }
        let name = String(String.UnicodeScalarView(scalars[nameStart..<pos]))
        pos += 2
        guard let set = NamedSet.resolve(name) else { throw error("unsupported POSIX class [:\(name):]", at: start) }
        return .init(set: set, negated: negated, caseClosed: flags.caseInsensitive)
    }
}
