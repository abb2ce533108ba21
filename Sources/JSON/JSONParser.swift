#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON syntax error at a line and column, worded for the person who wrote the file.
package struct JSONSyntaxError: Error, Sendable, Equatable {
    package let position: SourcePosition
    package let message: String
}

/// A strict RFC 8259 parser over bytes that records where every value starts.
/// Foundation's parser reports neither lines nor key order, and both matter for stub files.
package struct JSONParser {
    /// Deeper nesting is refused so a hostile request body cannot exhaust the stack.
    package static let maximumDepth = 512

    /// What one parse may cost. Stub files are the user's own and only bounded in depth; request
    /// bodies come from outside and are parsed for matching, templates and near-miss reports,
    /// so they are bounded in bytes and in values too (a 32 MiB array of numbers once took
    /// 1.3 GB and seconds of a loop thread).
    package struct Limits: Sendable {
        package var maximumBytes: Int
        package var maximumValues: Int
        package var maximumDepth: Int

        package static let files = Limits(
            maximumBytes: .max,
            maximumValues: .max,
            maximumDepth: JSONParser.maximumDepth
        )
        package static let requestBody = Limits(maximumBytes: 4 << 20, maximumValues: 200_000, maximumDepth: 128)
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    private var values = 0
    private let limits: Limits
    /// When set, a repeated key in one object is an error (stub files); request bodies allow it.
    private let rejectDuplicateKeys: Bool

    package static func parse(_ bytes: [UInt8], rejectDuplicateKeys: Bool = false) throws(JSONSyntaxError) -> JSONNode {
        try parse(bytes, rejectDuplicateKeys: rejectDuplicateKeys, limits: .files)
    }

    package static func parse(
        _ bytes: [UInt8],
        rejectDuplicateKeys: Bool = false,
        limits: Limits
    ) throws(JSONSyntaxError) -> JSONNode {
        guard bytes.count <= limits.maximumBytes else {
            throw JSONSyntaxError(
                position: SourcePosition(line: 1, column: 1),
                message: "\(bytes.count) bytes is over the \(limits.maximumBytes)-byte limit for JSON parsed here"
            )
        }
        var parser = JSONParser(bytes: bytes, rejectDuplicateKeys: rejectDuplicateKeys, limits: limits)
        return try parser.parseDocument()
    }

    /// A document that is an array, read one element at a time: `each` gets every element and
    /// its index as soon as it is parsed, and returns false to stop there, the rest unread. A
    /// reader that gives up after its first problems then pays for what it read: ten million
    /// `{}` posted to the admin API took minutes and gigabytes to parse before one was looked
    /// at. nil when the document is not an array (parse it whole); false when `each` stopped.
    package static func forEachElement(
        _ bytes: [UInt8],
        rejectDuplicateKeys: Bool = false,
        _ each: (_ element: JSONNode, _ index: Int) -> Bool
    )
        throws(JSONSyntaxError) -> Bool?
    {
        var parser = JSONParser(bytes: bytes, rejectDuplicateKeys: rejectDuplicateKeys, limits: .files)
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "[") else { return nil }
        var count = 0
        parser.values += 1
        let finished = try parser.parseElements(parser.position) { element in
            defer { count += 1 }
            return each(element, count)
        }
        guard finished else { return false }
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.fail("unexpected \(parser.describeCurrent()) after the end of the JSON value")
        }
        return true
    }

    package static func parse(_ text: String, rejectDuplicateKeys: Bool = false) throws(JSONSyntaxError) -> JSONNode {
        try parse(Array(text.utf8), rejectDuplicateKeys: rejectDuplicateKeys)
    }

    private init(bytes: [UInt8], rejectDuplicateKeys: Bool, limits: Limits) {
        self.bytes = bytes
        self.limits = limits
        self.rejectDuplicateKeys = rejectDuplicateKeys
        // A UTF-8 byte order mark is what some Windows editors write first; skip it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
        }
    }

    private var position: SourcePosition { SourcePosition(line: line, column: index - lineStart + 1) }

    private func fail(_ message: String, at position: SourcePosition? = nil) -> JSONSyntaxError {
        JSONSyntaxError(position: position ?? self.position, message: message)
    }

    private mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        skipWhitespace()
        guard index < bytes.count else { throw fail("the file is empty; expected a JSON value") }
        let node = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            throw fail("unexpected \(describeCurrent()) after the end of the JSON value")
        }
        return node
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            default: return
            }
        }
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + hexByte(b)
    }

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
        let start = position
        guard index < bytes.count else { throw fail("unexpected end of file; expected a value") }
        values += 1
        if values > limits.maximumValues { throw fail("more than \(limits.maximumValues) values") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(start)
        case UInt8(ascii: "["): return try parseArray(start)
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), at: start)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return JSONNode(.bool(true), at: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return JSONNode(.bool(false), at: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return JSONNode(.null, at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(.number(try parseNumber()), at: start)
        case UInt8(ascii: "'"):
            throw fail("strings must use double quotes, not single quotes")
        case UInt8(ascii: "]"), UInt8(ascii: "}"):
            throw fail("unexpected \(describeCurrent()); expected a value (is there a trailing comma before it?)")
        default:
            throw fail(
                "unexpected \(describeCurrent()); expected a value (object, array, string, number, true, false or null)"
            )
        }
    }

    private mutating func expectLiteral(_ word: String) throws(JSONSyntaxError) {
        let start = position
        let count = word.utf8.count
        guard index + count <= bytes.count, bytes[index..<index + count].elementsEqual(word.utf8) else {
            throw fail("unknown word; expected a value (strings need double quotes)", at: start)
        }
        index += count
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > limits.maximumDepth { throw fail("nesting deeper than \(limits.maximumDepth) levels") }
    }

    private mutating func parseObject(_ start: SourcePosition) throws(JSONSyntaxError) -> JSONNode {
        try enter()
        index += 1
        var members: [JSONNode.Member] = []
        var seen = Set<String>()
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return JSONNode(.object([]), at: start)
        }
        while true {
            skipWhitespace()
            let keyPosition = position
            guard index < bytes.count else {
                throw fail("unexpected end of file inside the object that starts at \(start)")
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if bytes[index] == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
                throw fail("expected a key in double quotes, found \(describeCurrent())")
            }
            let key = try parseString()
            if rejectDuplicateKeys && !seen.insert(key).inserted {
                throw fail("duplicate key \"\(key)\" in this object", at: keyPosition)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("expected ':' after the key \"\(key)\", found \(describeCurrent())")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONNode.Member(key: key, keyPosition: keyPosition, value: value))
            skipWhitespace()
            guard index < bytes.count else {
                throw fail("unexpected end of file; the object that starts at \(start) is not closed")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                break
            }
            throw fail("expected ',' or '}' after the value of \"\(key)\", found \(describeCurrent())")
        }
        depth -= 1
        return JSONNode(.object(members), at: start)
    }

    private mutating func parseArray(_ start: SourcePosition) throws(JSONSyntaxError) -> JSONNode {
        var elements: [JSONNode] = []
        _ = try parseElements(start) { element in
            elements.append(element)
            return true
        }
        return JSONNode(.array(elements), at: start)
    }

    /// The elements of the array at `index`, each handed to `each` as soon as it is parsed;
    /// false from `each` stops there (the rest is not read) and is returned.
    private mutating func parseElements(
        _ start: SourcePosition,
        _ each: (JSONNode) -> Bool
    ) throws(JSONSyntaxError) -> Bool {
        try enter()
        index += 1
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return true
        }
        while true {
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
            guard each(try parseValue()) else { return false }
            skipWhitespace()
            guard index < bytes.count else {
                throw fail("unexpected end of file; the array that starts at \(start) is not closed")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                break
            }
            throw fail("expected ',' or ']' in the array, found \(describeCurrent())")
        }
        depth -= 1
        return true
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let start = position
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else {
                throw fail("unexpected end of file inside the string that starts at \(start)")
            }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw fail("unexpected end of file after '\\'") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw fail("a \\u escape for a high surrogate must be followed by a low surrogate")
                        }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid low surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("a lone low surrogate in a \\u escape")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    index -= 2
                    throw fail("unknown escape '\\\(Character(Unicode.Scalar(e)))' in a string")
                }
            case 0x0A:
                throw fail("line break inside a string (write \\n, or close the string with '\"')")
            case 0..<0x20:
                throw fail("control character 0x\(hexByte(b)) inside a string (escape it)")
            default:
                out.append(b)
                index += 1
            }
        }
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("a \\u escape needs four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw fail("a \\u escape needs four hex digits")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) {
                p.index += 1
            }
            return p.index - s
        }
        let intStart = index
        let intDigits = digits(&self)
        guard intDigits > 0 else { throw fail("a number needs digits after '-'") }
        if intDigits > 1 && bytes[intStart] == UInt8(ascii: "0") {
            throw fail(
                "numbers must not have leading zeros",
                at: SourcePosition(line: line, column: intStart - lineStart + 1)
            )
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw fail("a number needs digits after '.'") }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard digits(&self) > 0 else { throw fail("a number needs digits in its exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        return JSONNumber(text: text, value: Double(text) ?? .nan)
    }
}

/// `0A`: two upper-case hex digits (for messages about bytes).
func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
}
