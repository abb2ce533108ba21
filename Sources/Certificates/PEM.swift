import SystemSupport

/// One `-----BEGIN LABEL-----` ... `-----END LABEL-----` block: its label, the DER it carries,
/// and the line it begins on.
package struct PEMBlock: Sendable, Equatable {
    package let label: String
    package let der: [UInt8]
    package let line: Int
}

/// Something wrong in a PEM file, and where (1-based line and column).
package struct PEMError: Error, Sendable, Equatable, CustomStringConvertible {
    package let line: Int
    package let column: Int
    package let reason: String

    package init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    package var description: String { "\(line):\(column): \(reason)" }
}

/// PEM (RFC 7468), read strictly enough to point at what is wrong: text outside blocks is
/// allowed (OpenSSL writes some), inside a block only base64 lines, and each block must end
/// with the label it began with. Written with 64-column lines.
package enum PEM {
    /// The blocks in `text`, in order.
    package static func decode(_ text: [UInt8]) throws(PEMError) -> [PEMBlock] {
        var blocks: [PEMBlock] = []
        var open: (label: String, line: Int)?
        var base64 = Base64Decoder()
        var lineNumber = 0
        var start = 0
        while start < text.count {
            lineNumber += 1
            var stop = start
            while stop < text.count, text[stop] != UInt8(ascii: "\n") { stop += 1 }
            var line = text[start..<stop]
            start = stop + 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let trimmed = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let indent = trimmed.startIndex - line.startIndex
            if let label = boundary(trimmed, "BEGIN") {
                if let open {
                    throw PEMError(
                        line: lineNumber,
                        column: indent + 1,
                        reason: "BEGIN \(label) inside the \(open.label) block begun on line \(open.line)"
                    )
                }
                open = (label, lineNumber)
                base64 = Base64Decoder()
                continue
            }
            if let label = boundary(trimmed, "END") {
                guard let current = open else {
                    throw PEMError(line: lineNumber, column: indent + 1, reason: "END \(label) without a BEGIN")
                }
                guard label == current.label else {
                    throw PEMError(
                        line: lineNumber,
                        column: indent + 1,
                        reason: "END \(label) closes the \(current.label) block begun on line \(current.line)"
                    )
                }
                let der: [UInt8]
                do {
                    der = try base64.finish()
                } catch {
                    throw PEMError(line: lineNumber, column: 1, reason: "the block's base64 \(error.reason)")
                }
                guard !der.isEmpty else {
                    throw PEMError(line: lineNumber, column: 1, reason: "the \(label) block is empty")
                }
                blocks.append(PEMBlock(label: label, der: der, line: current.line))
                open = nil
                continue
            }
            guard let current = open else { continue }  // text between blocks
            if let colon = trimmed.firstIndex(of: UInt8(ascii: ":")) {
                // RFC 1421 headers: only an encrypted key has them.
                let name = String(decoding: trimmed[trimmed.startIndex..<colon], as: UTF8.self)
                throw PEMError(
                    line: lineNumber,
                    column: indent + 1,
                    reason: "the \(current.label) block has a \"\(name)\" header: "
                        + "an encrypted key, which stubserver cannot use (decrypt it first)"
                )
            }
            for (offset, byte) in trimmed.enumerated() {
                do {
                    try base64.add(byte)
                } catch {
                    throw PEMError(line: lineNumber, column: indent + offset + 1, reason: error.reason)
                }
            }
        }
        if let open {
            throw PEMError(
                line: lineNumber,
                column: 1,
                reason: "the \(open.label) block begun on line \(open.line) has no END line"
            )
        }
        return blocks
    }

    /// `-----BEGIN LABEL-----`, its base64 in 64-column lines, `-----END LABEL-----`.
    package static func encode(label: String, der: [UInt8]) -> String {
        let text = Base64.encode(der)
        var lines = ["-----BEGIN \(label)-----"]
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 64, limitedBy: text.endIndex) ?? text.endIndex
            lines.append(String(text[index..<next]))
            index = next
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The label of a `-----BEGIN LABEL-----` (or END) line, trailing spaces allowed.
    private static func boundary(_ line: ArraySlice<UInt8>, _ word: String) -> String? {
        let prefix = Array("-----\(word) ".utf8)
        var body = line
        while let last = body.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { body = body.dropLast() }
        let suffix = Array("-----".utf8)
        guard body.count >= prefix.count + suffix.count, body.starts(with: prefix), body.suffix(5).elementsEqual(suffix)
        else { return nil }
        let label = body.dropFirst(prefix.count).dropLast(suffix.count)
        guard label.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "-") }) else { return nil }
        return String(decoding: label, as: UTF8.self)
    }
}

/// Base64 fed a character at a time (whitespace ignored), so an error names its column.
struct Base64Decoder {
    struct Failure: Error {
        let reason: String
    }

    private var bytes: [UInt8] = []
    private var quantum: UInt32 = 0
    private var count = 0
    private var padding = 0

    mutating func add(_ character: UInt8) throws(Failure) {
        if character == UInt8(ascii: " ") || character == UInt8(ascii: "\t") { return }
        if character == UInt8(ascii: "=") {
            guard count >= 2 else { throw Failure(reason: "has \"=\" where a base64 character belongs") }
            padding += 1
            count += 1
            guard padding <= 2 else { throw Failure(reason: "has too much \"=\" padding") }
            if count == 4 { flush() }
            return
        }
        guard padding == 0 else { throw Failure(reason: "has base64 after the \"=\" padding") }
        guard let value = Self.value(character) else {
            let shown =
                character >= 0x21 && character < 0x7F
                ? "\"\(Character(Unicode.Scalar(character)))\"" : "byte 0x\(hex(character))"
            throw Failure(reason: "\(shown) is not a base64 character")
        }
        quantum = quantum << 6 | UInt32(value)
        count += 1
        if count == 4 { flush() }
    }

    private mutating func flush() {
        let full = quantum << (6 * UInt32(padding))
        let produced = 3 - padding
        for index in 0..<produced { bytes.append(UInt8(truncatingIfNeeded: full >> (16 - 8 * UInt32(index)))) }
        quantum = 0
        count = 0
        if padding > 0 { padding = -1 }  // the end: nothing may follow
    }

    mutating func finish() throws(Failure) -> [UInt8] {
        guard count == 0 else { throw Failure(reason: "ends in the middle of a group of four characters") }
        return bytes
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
