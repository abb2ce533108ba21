/// Splits the inside of one tag into words: names and paths, quoted strings, numbers,
/// `key=value` pairs, `( ... )` subexpressions, and a trailing `as |a b|`.
struct HandlebarsExpressionReader {
    indirect enum Word {
        case word(String)
        case string(String)
        case number(String, Double)
        case pair(String, Word)
        case sub([Word])
    }

    private let chars: [Character]
    private let offset: Int
    private var i = 0
    private(set) var blockParams: [String] = []

    init(_ content: String, offset: Int) {
        chars = Array(content)
        self.offset = offset
    }

    private func fail(_ message: String) -> HandlebarsError { HandlebarsError(message: message, offset: offset) }

    mutating func readAll() throws(HandlebarsError) -> [Word] {
        let words = try readWords(depth: 0)
        guard i >= chars.count else { throw fail("unexpected \"\(chars[i])\" in a tag") }
        return words
    }

    private mutating func skipSpaces() {
        while i < chars.count, chars[i].isWhitespace { i += 1 }
    }

    private mutating func readWords(depth: Int) throws(HandlebarsError) -> [Word] {
        guard depth < 32 else { throw fail("( ) are nested too deeply") }
        var words: [Word] = []
        while true {
            skipSpaces()
            guard i < chars.count else { return words }
            if chars[i] == ")" { return words }
            if depth == 0, isBlockParamsStart() {
                try readBlockParams()
                skipSpaces()
                guard i >= chars.count else { throw fail("as |...| ends the tag") }
                return words
            }
            let word = try readWord(depth: depth)
            skipSpaces()
            if i < chars.count, chars[i] == "=", case .word(let key) = word {
                i += 1
                skipSpaces()
                words.append(.pair(key, try readWord(depth: depth)))
            } else {
                words.append(word)
            }
        }
    }

    private func isBlockParamsStart() -> Bool {
        guard i + 2 < chars.count, chars[i] == "a", chars[i + 1] == "s", chars[i + 2].isWhitespace else { return false }
        var j = i + 2
        while j < chars.count, chars[j].isWhitespace { j += 1 }
        return j < chars.count && chars[j] == "|"
    }

    private mutating func readBlockParams() throws(HandlebarsError) {
        i += 2
        skipSpaces()
        i += 1
        var names: [String] = []
        var current = ""
        while i < chars.count, chars[i] != "|" {
            if chars[i].isWhitespace {
                if !current.isEmpty {
                    names.append(current)
                    current = ""
                }
            } else {
                current.append(chars[i])
            }
            i += 1
        }
        guard i < chars.count else { throw fail("as |...| is not closed with |") }
        i += 1
        if !current.isEmpty { names.append(current) }
        guard !names.isEmpty else { throw fail("as || names no parameter") }
        blockParams = names
    }

    private mutating func readWord(depth: Int) throws(HandlebarsError) -> Word {
        guard i < chars.count else { throw fail("expected a value") }
        let c = chars[i]
        if c == "(" {
            i += 1
            let inner = try readWords(depth: depth + 1)
            guard i < chars.count, chars[i] == ")" else { throw fail("( is not closed with )") }
            i += 1
            return .sub(inner)
        }
        if c == "\"" || c == "'" {
            i += 1
            var s = ""
            while i < chars.count, chars[i] != c {
                if chars[i] == "\\", i + 1 < chars.count, chars[i + 1] == c { i += 1 }
                s.append(chars[i])
                i += 1
            }
            guard i < chars.count else { throw fail("a string in a tag is not closed with \(c)") }
            i += 1
            return .string(s)
        }
        var text = ""
        while i < chars.count {
            let ch = chars[i]
            if ch == "[" {
                // A literal segment: anything up to ].
                while i < chars.count, chars[i] != "]" {
                    text.append(chars[i])
                    i += 1
                }
                guard i < chars.count else { throw fail("[ in a path is not closed with ]") }
                text.append("]")
                i += 1
                continue
            }
            if ch.isWhitespace || ch == "(" || ch == ")" || ch == "=" || ch == "|" { break }
            text.append(ch)
            i += 1
        }
        guard !text.isEmpty else { throw fail("unexpected \"\(c)\"") }
        if let first = text.first, first.isNumber || (first == "-" && text.count > 1), let value = Double(text),
            value.isFinite
        {
            return .number(text, value)
        }
        return .word(text)
    }
}

extension HandlebarsPath {
    /// `this`, `this.name`, `../name`, `@index`, `a.b.[c d].0`, `a/b`.
    static func parse(_ text: String) -> HandlebarsPath {
        var path = HandlebarsPath(segments: [], text: text)
        var rest = Substring(text)
        while rest.hasPrefix("../") {
            path.parents += 1
            rest = rest.dropFirst(3)
        }
        if rest.hasPrefix("@") {
            path.isData = true
            rest = rest.dropFirst()
        }
        var segments: [String] = []
        var current = ""
        var inBrackets = false
        for ch in rest {
            if inBrackets {
                if ch == "]" { inBrackets = false } else { current.append(ch) }
            } else if ch == "[" {
                inBrackets = true
            } else if ch == "." || ch == "/" {
                segments.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        segments.append(current)
        segments.removeAll { $0.isEmpty }
        if !path.isData, segments.first == "this" { segments.removeFirst() }
        path.segments = segments
        return path
    }
}
