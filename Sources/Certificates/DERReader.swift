/// Something wrong in DER input, and where: the byte offset from the start of the outermost
/// value read.
package struct DERError: Error, Sendable, Equatable, CustomStringConvertible {
    package let offset: Int
    package let reason: String

    package init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    package var description: String { "at byte \(offset): \(reason)" }
}

/// One DER element: its tag, where it starts, and its content's range within the bytes read.
package struct DERElement: Sendable, Equatable {
    package let tag: UInt8
    package let offset: Int
    package let content: Range<Int>
    /// The whole element, tag and length included.
    package let whole: Range<Int>

    package var isConstructed: Bool { tag & 0x20 != 0 }
}

/// Reads DER (definite lengths only, single-byte tags) from bytes that may come from anyone:
/// every length is checked against what is there, nesting is bounded, and nothing traps.
package struct DERReader {
    package let bytes: [UInt8]
    private(set) var position: Int
    private let end: Int
    private let depth: Int
    static let maximumDepth = 32

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.position = 0
        self.end = bytes.count
        self.depth = 0
    }

    private init(bytes: [UInt8], range: Range<Int>, depth: Int) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
        self.depth = depth
    }

    package var isAtEnd: Bool { position >= end }

    /// The next element; the reader moves past it.
    package mutating func next() throws(DERError) -> DERElement {
        let start = position
        guard position < end else { throw DERError(offset: start, reason: "a value is missing") }
        let tag = bytes[position]
        guard tag & 0x1F != 0x1F else { throw DERError(offset: start, reason: "multi-byte tags are not used here") }
        position += 1
        guard position < end else { throw DERError(offset: start, reason: "the length is missing") }
        let first = bytes[position]
        position += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            guard count > 0 else { throw DERError(offset: start, reason: "an indefinite length is not DER") }
            guard count <= 4 else { throw DERError(offset: start, reason: "a length of \(count) bytes is too long") }
            guard end - position >= count else { throw DERError(offset: start, reason: "the length is cut short") }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard length <= end - position else {
            throw DERError(offset: start, reason: "the value claims \(length) bytes; \(end - position) are left")
        }
        let content = position..<(position + length)
        position += length
        return DERElement(tag: tag, offset: start, content: content, whole: start..<position)
    }

    /// The next element, which must have `tag`.
    package mutating func next(_ tag: UInt8, _ what: String) throws(DERError) -> DERElement {
        let element = try next()
        guard element.tag == tag else {
            throw DERError(offset: element.offset, reason: "expected \(what), found tag 0x\(hex(element.tag))")
        }
        return element
    }

    /// The next element if it has `tag`; otherwise nothing is consumed.
    package mutating func optional(_ tag: UInt8) throws(DERError) -> DERElement? {
        guard position < end, bytes[position] == tag else { return nil }
        return try next()
    }

    /// A reader over a constructed element's content.
    package func children(of element: DERElement) throws(DERError) -> DERReader {
        guard depth < Self.maximumDepth else { throw DERError(offset: element.offset, reason: "nested too deeply") }
        return DERReader(bytes: bytes, range: element.content, depth: depth + 1)
    }

    package func content(of element: DERElement) -> ArraySlice<UInt8> {
        bytes[element.content]
    }

    /// An OBJECT IDENTIFIER in dotted form.
    package func objectIdentifier(_ element: DERElement) throws(DERError) -> String {
        let content = bytes[element.content]
        guard element.tag == 0x06, !content.isEmpty, content.last! & 0x80 == 0 else {
            throw DERError(offset: element.offset, reason: "not an object identifier")
        }
        var arcs: [Int] = []
        var value = 0
        for byte in content {
            guard value < Int.max >> 8 else { throw DERError(offset: element.offset, reason: "an arc is too large") }
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 {
                if arcs.isEmpty {
                    arcs += value < 80 ? [value / 40, value % 40] : [2, value - 80]
                } else {
                    arcs.append(value)
                }
                value = 0
            }
        }
        return arcs.map(String.init).joined(separator: ".")
    }
}

func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
