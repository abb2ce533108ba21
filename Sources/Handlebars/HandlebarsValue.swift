#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import SystemSupport

/// A value while a template renders: text, numbers, JSON from a body, lists, and objects whose
/// members are looked up on demand (the request: nothing is computed that no tag asks for).
package indirect enum HandlebarsValue: Sendable {
    case null
    case string(String)
    case number(Double, text: String)
    case bool(Bool)
    case json(JSONNode)
    case list([HandlebarsValue])
    case object(any HandlebarsObject)

    package static func number(_ n: Int) -> HandlebarsValue { .number(Double(n), text: String(n)) }

    /// A JSON value as a template value: scalars become text, numbers and booleans; objects
    /// and arrays stay JSON (they render as compact JSON, and `#each` walks them).
    package init(json node: JSONNode) {
        switch node.value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n.value, text: n.text)
        case .string(let s): self = .string(s)
        case .array, .object: self = .json(node)
        }
    }

    /// Falsy as in Handlebars: missing, null, false, empty text, zero, an empty list or object.
    var isTruthy: Bool {
        switch self {
        case .null: return false
        case .string(let s): return !s.isEmpty
        case .number(let n, _): return n != 0
        case .bool(let b): return b
        case .list(let items): return !items.isEmpty
        case .json(let node):
            switch node.value {
            case .array(let e): return !e.isEmpty
            case .object(let m): return !m.isEmpty
            default: return HandlebarsValue(json: node).isTruthy
            }
        case .object: return true
        }
    }

    /// Anything but null: what `val` keeps rather than its default.
    var isPresent: Bool {
        if case .null = self { return false }
        return true
    }

    /// The text a tag writes.
    var text: String {
        switch self {
        case .null: return ""
        case .string(let s): return s
        case .number(_, let text): return text
        case .bool(let b): return b ? "true" : "false"
        case .json(let node): return JSONSerializer.string(node)
        // Java's List.toString, as WireMock's multi-valued query parameters render.
        case .list(let items): return "[" + items.map(\.text).joined(separator: ", ") + "]"
        case .object(let object): return object.text
        }
    }

    /// A member by name (objects) or index (lists, JSON arrays).
    func member(_ name: String) -> HandlebarsValue {
        switch self {
        case .object(let object): return object.member(name)
        case .json(let node):
            if case .object(let members) = node.value {
                return members.last { $0.key == name }.map { HandlebarsValue(json: $0.value) } ?? .null
            }
            if case .array(let elements) = node.value, let i = Int(name), elements.indices.contains(i) {
                return HandlebarsValue(json: elements[i])
            }
            return .null
        case .list(let items):
            if let i = Int(name), items.indices.contains(i) { return items[i] }
            if name == "size" || name == "length" { return .number(items.count) }
            return .null
        case .string(let s):
            return name == "length" ? .number(s.count) : .null
        default:
            return .null
        }
    }

    /// What `#each` walks: elements with no key, or members with their key.
    var iterationItems: [(key: String?, value: HandlebarsValue)]? {
        switch self {
        case .list(let items): return items.map { (nil, $0) }
        case .json(let node):
            switch node.value {
            case .array(let e): return e.map { (nil, HandlebarsValue(json: $0)) }
            case .object(let m): return m.map { ($0.key, HandlebarsValue(json: $0.value)) }
            default: return nil
            }
        case .object(let object): return object.elements?.map { (nil, $0) }
        default: return nil
        }
    }

    /// A number when the value reads as one (numbers, numeric text).
    var numeric: Double? {
        switch self {
        case .number(let n, _): return n
        case .string(let s): return Double(s.trimmingSpaces())
        case .bool: return nil
        default: return Double(text)
        }
    }

    /// A whole number when the value reads as one that fits (so no conversion can trap).
    var integer: Int? {
        guard let n = numeric, n.isFinite, abs(n) < 9e15 else { return nil }
        return Int(n.rounded(.towardZero))
    }

    /// Equality as `eq` sees it: numbers by value, anything else by its text.
    func equals(_ other: HandlebarsValue) -> Bool {
        if case .number(let a, _) = self, let b = other.numeric { return a == b }
        if case .number(let b, _) = other, let a = numeric { return a == b }
        return text == other.text
    }
}

/// An object whose members are computed when asked (`request`, its headers, its query).
package protocol HandlebarsObject: Sendable {
    func member(_ name: String) -> HandlebarsValue
    /// What `{{object}}` writes.
    var text: String { get }
    /// When the object is also a list (a URL path is its segments).
    var elements: [HandlebarsValue]? { get }
}

extension HandlebarsObject {
    package var elements: [HandlebarsValue]? { nil }
}

/// What a template can see at its root, supplied by whoever renders it (WireMock's request
/// model), and the JSON parse of text a helper needs (so the request body is parsed once).
package protocol HandlebarsData {
    func root(_ name: String) -> HandlebarsValue?
    func parseJSON(_ text: String) -> JSONNode?
}
