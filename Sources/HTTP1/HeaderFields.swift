/// Header fields in the order they arrived. Repeats are kept (`Set-Cookie`), and lookup ignores
/// ASCII case, as RFC 9110 §5.1 requires of field names.
package struct HeaderFields: Sendable, Equatable, Sequence {
    package typealias Element = (name: String, value: String)

    package private(set) var fields: [Element] = []
    /// Which of the fields every request is asked about are present, as the request parser
    /// records them while it adds fields (`add(_:_:_:)`): its framing, Host and Connection checks
    /// and `wantsKeepAlive` each scanned the fields for a name, about 400 instructions a request
    /// (callgrind). Classifying every name added any other way cost more than it saved (the
    /// proxy's fields), so those only make this a lower bound (`notableIsPartial`).
    private var notable: NotableFields = []
    /// True once a field was added or removed other than by the parser: `has` scans then.
    private var notableIsPartial = false

    package init() {}

    /// Room for `capacity` fields before the storage grows (a head rebuilt field by field would
    /// otherwise reallocate at 1, 2, 4 and 8 fields).
    package init(capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
        notableIsPartial = !fields.isEmpty
    }

    package mutating func reserveCapacity(_ capacity: Int) { fields.reserveCapacity(capacity) }

    package var count: Int { fields.count }
    package var isEmpty: Bool { fields.isEmpty }

    package mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
        notableIsPartial = true
    }

    /// `add` for the request parser, which has classified the name (`NotableFields(name:)`).
    mutating func add(_ name: String, _ value: String, _ kind: NotableFields) {
        fields.append((name: name, value: value))
        notable.formUnion(kind)
    }

    /// Removes every field with this name (any case).
    package mutating func remove(_ name: String) {
        fields.removeAll { asciiCaseInsensitiveEquals($0.name, name) }
        notable = []
        notableIsPartial = !fields.isEmpty
    }

    /// Replaces every field with this name by one field.
    package mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// The first value of the field, or nil.
    package subscript(_ name: String) -> String? {
        for field in fields where asciiCaseInsensitiveEquals(field.name, name) {
            return field.value
        }
        return nil
    }

    /// Every value of the field, in arrival order.
    package func values(_ name: String) -> [String] {
        fields.compactMap { asciiCaseInsensitiveEquals($0.name, name) ? $0.value : nil }
    }

    package func contains(_ name: String) -> Bool {
        fields.contains { asciiCaseInsensitiveEquals($0.name, name) }
    }

    /// `contains(name)` for a notable field: the parser's record answers without a scan.
    func has(_ kind: NotableFields, named name: String) -> Bool {
        notable.contains(kind) || (notableIsPartial && contains(name))
    }

    /// True when a comma-separated field (such as `Connection`) lists `token`, in any case.
    package func hasToken(_ token: String, in name: String) -> Bool {
        // Most requests carry no such field (keep-alive is asked of every request): the name
        // scan answers them without starting the list iterator, which cost about 200
        // instructions even over no field at all.
        guard contains(name) else { return false }
        return lists(token, in: name)
    }

    /// `hasToken` for a notable field, without classifying its name again.
    func hasToken(_ token: String, in kind: NotableFields, named name: String) -> Bool {
        guard has(kind, named: name) else { return false }
        return lists(token, in: name)
    }

    /// Whether the comma-separated values of the fields named `name` have `token`, in any case.
    private func lists(_ token: String, in name: String) -> Bool {
        listElements(name).contains { !$0.isEmpty && asciiCaseInsensitiveEquals($0, token) }
    }

    package func makeIterator() -> IndexingIterator<[Element]> { fields.makeIterator() }

    package static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// The fields whose presence decides how a request is read and answered (RFC 9112 §3.2, §6,
/// §9.3; RFC 9110 §10.1.1), as `HeaderFields.notable` records them.
struct NotableFields: OptionSet, Sendable {
    let rawValue: UInt8
    static let host = NotableFields(rawValue: 1)
    static let contentLength = NotableFields(rawValue: 2)
    static let transferEncoding = NotableFields(rawValue: 4)
    static let connection = NotableFields(rawValue: 8)
    static let expect = NotableFields(rawValue: 16)

    init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The kind of a field name's bytes. By length first: most names match none of the lengths,
    /// and the others mostly differ in their first byte. Bytes, not a `String`: iterating a
    /// small string's UTF-8 or comparing it as Unicode text cost about 200 instructions for
    /// `Host` (callgrind).
    init(name: UnsafeBufferPointer<UInt8>) {
        switch name.count {
        case 4: self = Self.folded(name, equals: "host") ? .host : []
        case 6: self = Self.folded(name, equals: "expect") ? .expect : []
        case 10: self = Self.folded(name, equals: "connection") ? .connection : []
        case 14: self = Self.folded(name, equals: "content-length") ? .contentLength : []
        case 17: self = Self.folded(name, equals: "transfer-encoding") ? .transferEncoding : []
        default: self = []
        }
    }

    /// Whether `name`, ASCII letters folded to lower case, is `lowercased`, which has as many
    /// bytes (the caller checked).
    private static func folded(_ name: UnsafeBufferPointer<UInt8>, equals lowercased: StaticString) -> Bool {
        let expected = lowercased.utf8Start
        for i in 0..<name.count where ByteClass.lowercased(name[i]) != expected[i] { return false }
        return true
    }
}

/// Compares two strings byte by byte, folding only ASCII letters; no allocation.
package func asciiCaseInsensitiveEquals<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
    foldedEqual(a.utf8, b.utf8)
}

/// The same for two `String`s, the common case (header names), and for an element of a field's
/// list (`FieldListElements`) against a name: not generic, so callers in other modules do not
/// run unspecialised generic code (its metadata lookups showed in the proxy's profile).
package func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    // Names mostly arrive as they are written (`Host`): same-length strings are first compared
    // whole, two small ones in a few instructions, where the fold copied each to the stack
    // (about 110 instructions for `Host` against `Host`, callgrind). The length first, since
    // `==` on strings of different lengths still compares them as Unicode text.
    a.utf8.count == b.utf8.count && (a == b || foldedEqual(a.utf8, b.utf8))
}

package func asciiCaseInsensitiveEquals(_ a: Substring, _ b: String) -> Bool {
    foldedEqual(a.utf8, b.utf8)
}

/// Over contiguous UTF-8 when both sides have it (native strings), else element by element.
/// Generic, but called only in this module, where it is specialised.
private func foldedEqual<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
    guard a.count == b.count else { return false }
    let fast = a.withContiguousStorageIfAvailable { x in
        b.withContiguousStorageIfAvailable { y in
            for i in 0..<x.count where x[i] != y[i] {
                guard ByteClass.lowercased(x[i]) == ByteClass.lowercased(y[i]) else { return false }
            }
            return true
        }
    }
    if let fast, let result = fast { return result }
    for (p, q) in zip(a, b) where p != q {
        guard ByteClass.lowercased(p) == ByteClass.lowercased(q) else { return false }
    }
    return true
}

extension StringProtocol {
    /// Strips optional whitespace (SP and HTAB) from both ends, as RFC 9110 §5.6.3 defines it.
    func trimmingOWS() -> Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
