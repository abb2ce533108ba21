/// A short string that a `pattern` matches, for the patterns APIs write: literals, escapes
/// (`\d`, `\w`, `\s`, `\.`), classes (`[A-Z0-9_-]`, `[^ ]`), groups and alternatives (the first
/// is taken), anchors, and quantifiers (`?` none, `*` and `+` one, `{n,m}` n). Anything else
/// (lookarounds, back references) gives nil, and the sampler falls back to trying candidates.
/// Callers check the result against the real regular expression.
enum PatternSampler {
    /// Longer samples are given up (the sampler then tries its usual candidates).
    static let maximumLength = 10_000

    static func sample(_ pattern: String) -> String? {
        var parser = Parser(scalars: Array(pattern.unicodeScalars))
        guard let result = parser.alternation(), parser.index == parser.scalars.count else { return nil }
        return result
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        /// `a|b|c`: the first alternative's sample; the others are parsed and dropped.
        mutating func alternation() -> String? {
            guard let first = sequence() else { return nil }
            while current == "|" {
                index += 1
                guard sequence() != nil else { return nil }
            }
            return first
        }

        mutating func sequence() -> String? {
            var out = ""
            while let c = current, c != "|", c != ")" {
                guard let atom = atom() else { return nil }
                guard let count = quantifier() else { return nil }
                for _ in 0..<count {
                    out += atom
                    // Nested counts multiply (`((a{9999}){9999}){9999}`): no sample that long.
                    guard out.unicodeScalars.count <= PatternSampler.maximumLength else { return nil }
                }
            }
            return out
        }

        mutating func atom() -> String? {
            guard let c = current else { return nil }
            index += 1
            switch c {
            case "^", "$": return ""
            case ".": return "a"
            case "(":
                if current == "?" {
                    index += 1
                    if current == ":" {
                        index += 1
                    } else if current == "<", index + 1 < scalars.count, scalars[index + 1] != "=",
                        scalars[index + 1] != "!"
                    {
                        while let n = current, n != ">" { index += 1 }
                        index += 1
                    } else {
                        return nil
                    }
                }
                guard let inner = alternation(), current == ")" else { return nil }
                index += 1
                return inner
            case "[": return characterClass()
            case "\\": return escape(inClass: false)
            case "*", "+", "?", "{", ")", "|": return nil
            default: return String(c)
            }
        }

        mutating func escape(inClass: Bool) -> String? {
            guard let c = current else { return nil }
            index += 1
            switch c {
            case "d": return "0"
            case "w": return "a"
            case "s": return " "
            case "D", "S": return "a"
            case "W": return "-"
            case "b", "B": return inClass ? nil : ""
            case "n": return "\n"
            case "t": return "\t"
            case "1"..."9", "k", "p", "P", "u", "x", "c": return nil
            default: return String(c)
            }
        }

        /// `[...]`: its first member; for `[^...]` the first of a few characters it excludes.
        mutating func characterClass() -> String? {
            var negated = false
            if current == "^" {
                negated = true
                index += 1
            }
            var members: [ClosedRange<Unicode.Scalar>] = []
            var first = true
            while let c = current, c != "]" || first {
                first = false
                index += 1
                var low: Unicode.Scalar = c
                if c == "\\" {
                    guard let escaped = escape(inClass: true), let scalar = escaped.unicodeScalars.first else {
                        return nil
                    }
                    switch scalars[index - 1] {
                    case "d":
                        members.append("0"..."9")
                        continue
                    case "w":
                        members += ["a"..."z", "A"..."Z", "0"..."9", "_"..."_"]
                        continue
                    case "s":
                        members.append(" "..." ")
                        continue
                    default: low = scalar
                    }
                }
                if current == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    guard var high = current else { return nil }
                    index += 1
                    if high == "\\" {
                        guard let escaped = escape(inClass: true)?.unicodeScalars.first else { return nil }
                        high = escaped
                    }
                    guard low <= high else { return nil }
                    members.append(low...high)
                } else {
                    members.append(low...low)
                }
            }
            guard current == "]" else { return nil }
            index += 1
            if negated {
                let candidate = ["a", "0", "A", "_", "-", "x", " "].lazy.compactMap(Unicode.Scalar.init)
                    .first { scalar in !members.contains { $0.contains(scalar) } }
                return candidate.map { String($0) }
            }
            return members.first.map { String($0.lowerBound) }
        }

        /// How often the atom before it is repeated; nil for a malformed quantifier.
        mutating func quantifier() -> Int? {
            var count = 1
            switch current {
            case "?":
                index += 1
                count = 0
            case "*", "+": index += 1
            case "{":
                var probe = index + 1
                func number() -> Int? {
                    var digits = ""
                    while probe < scalars.count, ("0"..."9").contains(scalars[probe]) {
                        digits.unicodeScalars.append(scalars[probe])
                        probe += 1
                    }
                    return digits.count <= 4 ? Int(digits) : nil
                }
                // ICU reads a "{" that does not start {n}, {n,} or {n,m} as a literal brace.
                guard let low = number() else { return 1 }
                var high: Int? = low
                if probe < scalars.count, scalars[probe] == "," {
                    probe += 1
                    high = number()
                }
                guard probe < scalars.count, scalars[probe] == "}" else { return 1 }
                index = probe + 1
                count = low > 0 ? low : (high.map { $0 > 0 } ?? true) ? 1 : 0
            default: return 1
            }
            if current == "?" || current == "+" { index += 1 }  // lazy or possessive
            return count
        }
    }
}
