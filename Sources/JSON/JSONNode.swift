#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a value starts in its source text, 1-based, for error messages users can jump to.
package struct SourcePosition: Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }
    package var description: String { "\(line):\(column)" }
}

/// A JSON number kept as written (so a stub's `1.50` is served as `1.50`) and as a value
/// (so matching compares `1` and `1.0` as equal).
package struct JSONNumber: Sendable, Equatable {
    package let text: String
    package let value: Double
    package init(text: String, value: Double) {
        self.text = text
        self.value = value
    }
}

/// A parsed JSON value with object members in source order and the position of every value.
/// Stub files need the order (first match wins in file order) and positions (errors name a
/// line and column); request bodies use the same type so matching is one code path.
package struct JSONNode: Sendable {
    package indirect enum Value: Sendable {
        case null
        case bool(Bool)
        case number(JSONNumber)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    package struct Member: Sendable {
        package let key: String
        package let keyPosition: SourcePosition
        package let value: JSONNode
        /// For readers of other formats (the YAML importer) that build nodes with positions.
        package init(key: String, keyPosition: SourcePosition, value: JSONNode) {
            self.key = key
            self.keyPosition = keyPosition
            self.value = value
        }
    }

    package let value: Value
    package let position: SourcePosition

    package init(_ value: Value, at position: SourcePosition = SourcePosition(line: 0, column: 0)) {
        self.value = value
        self.position = position
    }

    package var members: [Member]? { if case .object(let m) = value { m } else { nil } }
    package var elements: [JSONNode]? { if case .array(let e) = value { e } else { nil } }
    package var string: String? { if case .string(let s) = value { s } else { nil } }
    package var number: JSONNumber? { if case .number(let n) = value { n } else { nil } }
    package var bool: Bool? { if case .bool(let b) = value { b } else { nil } }

    /// A whole number written as a JSON number (`5` or `5.0`), bounded so conversion cannot trap.
    package var wholeNumber: Int? {
        guard let n = number, n.value.rounded() == n.value, abs(n.value) < 1e15 else { return nil }
        return Int(n.value)
    }

    package subscript(key: String) -> JSONNode? { members?.first { $0.key == key }?.value }

    /// "an object", "a string", ...: for messages that say what was found.
    package var kindDescription: String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): "the number \(n.text)"
        case .string(let s): "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// RFC 6901 JSON pointer lookup (`/user/name`, `/items/0`); nil when `pointer` is not one.
    package func resolve(pointer: String) -> JSONNode? {
        JSONPointer(pointer)?.resolve(in: self)
    }
}

extension JSONNode {
    /// Exact equality: numbers by value, object key order ignored, positions ignored.
    package func equals(_ other: JSONNode) -> Bool {
        switch (value, other.value) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a.value == b.value
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.equals($1) }
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { member in b.contains { $0.key == member.key && $0.value.equals(member.value) } }
        default: return false
        }
    }
}
