/// The elements of a comma-separated field value (RFC 9110 §5.6.1: `Connection`,
/// `Content-Length`, `Transfer-Encoding`), each trimmed of optional whitespace (SP, HTAB), empty
/// elements included, as `split(separator: ",", omittingEmptySubsequences: false)` would give
/// them. Cut by bytes, without allocating: splitting into an array per field of every proxied
/// response showed in the proxy's profile.
package struct FieldListElements: Sequence, IteratorProtocol {
    private let value: String
    private var position: String.Index
    private var finished = false

    package init(_ value: String) {
        self.value = value
        position = value.utf8.startIndex
    }

    package mutating func next() -> Substring? {
        guard !finished else { return nil }
        let utf8 = value.utf8
        let end = utf8[position...].firstIndex(of: UInt8(ascii: ",")) ?? utf8.endIndex
        var low = position
        var high = end
        while low < high, Self.isOWS(utf8[low]) { utf8.formIndex(after: &low) }
        while high > low, Self.isOWS(utf8[utf8.index(before: high)]) { utf8.formIndex(before: &high) }
        if end == utf8.endIndex { finished = true } else { position = utf8.index(after: end) }
        // Comma and whitespace are ASCII, so both ends fall on scalar boundaries.
        return Substring(utf8[low..<high])
    }

    private static func isOWS(_ byte: UInt8) -> Bool { byte == ByteClass.space || byte == ByteClass.tab }
}

extension HeaderFields {
    /// The list elements of every field named `name` (any case), in arrival order: a list may be
    /// split across repeated fields (RFC 9110 §5.3). Each trimmed, empty ones included, as
    /// `FieldListElements` gives them; no array is built.
    package func listElements(_ name: String) -> HeaderListElements {
        HeaderListElements(fields: fields, name: name)
    }
}

/// `HeaderFields.listElements(_:)`: the fields with one name, element by element.
package struct HeaderListElements: Sequence, IteratorProtocol {
    private let fields: [HeaderFields.Element]
    private let name: String
    private var nextField = 0
    private var current: FieldListElements?

    init(fields: [HeaderFields.Element], name: String) {
        self.fields = fields
        self.name = name
    }

    package mutating func next() -> Substring? {
        while true {
            if let element = current?.next() { return element }
            while nextField < fields.count, !asciiCaseInsensitiveEquals(fields[nextField].name, name) { nextField += 1 }
            guard nextField < fields.count else { return nil }
            current = FieldListElements(fields[nextField].value)
            nextField += 1
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` in decimal ASCII digits: no `String` in between (an interpolation per
    /// response showed in the proxy's profile).
    package mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude)
    }

    private mutating func appendDigits(_ value: UInt) {
        if value >= 10 { appendDigits(value / 10) }
        append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
