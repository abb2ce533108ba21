import Foundation
import JSON
import StubEngine

/// Any JSON value, for bodies built in Swift. Write it as a literal:
///
///     let body: JSONValue = ["id": 1001, "username": "new-user", "tags": ["a", "b"], "admin": false, "team": nil]
///
/// Objects keep their keys in the order written, so a body is sent the way it reads. Equality
/// is JSON's: numbers by value, object key order ignored.
public enum JSONValue: Sendable, Equatable, CustomStringConvertible, ExpressibleByNilLiteral,
    ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, Codable
{
    case null
    case bool(Bool)
    /// JSON has one kind of number. Whole numbers up to 2^53 are exact and written without a
    /// fraction; NaN and infinities, which JSON lacks, are written as `null`.
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Members in order. A repeated key is kept as given (the last one wins for readers).
    case object([(key: String, value: JSONValue)])

    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }

    /// Any Encodable value, as JSONEncoder writes it (it can throw: an Encodable may refuse).
    public init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        self = try JSONValue(JSONParser.parse(Array(data)))
    }

    /// The value of a key of an object (the last, if repeated); nil for anything else.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The element at an index of an array; nil for anything else or out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// Compact JSON text.
    public var description: String { JSONSerializer.string(node) }

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.node.equals(b.node) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .number(let n):
            if let whole = Self.wholeNumber(n) {
                try container.encode(whole)
            } else if n.isFinite {
                try container.encode(n)
            } else {
                try container.encodeNil()
            }
        case .string(let s): try container.encode(s)
        case .array(let elements): try container.encode(elements)
        case .object(let members):
            var keyed = encoder.container(keyedBy: AnyKey.self)
            for member in members { try keyed.encode(member.value, forKey: AnyKey(member.key)) }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            let keyed = try decoder.container(keyedBy: AnyKey.self)
            self = .object(
                try keyed.allKeys.map { (key: $0.stringValue, value: try keyed.decode(JSONValue.self, forKey: $0)) }
            )
        }
    }

    /// A whole number JSON can carry exactly, as an Int (so `1001` is written `1001`, not `1001.0`).
    static func wholeNumber(_ n: Double) -> Int? {
        n.rounded() == n && abs(n) <= 9_007_199_254_740_992 ? Int(n) : nil
    }
}

extension JSONValue {
    /// As the engine's JSON: member order kept.
    var node: JSONNode {
        switch self {
        case .null: .null
        case .bool(let b): .bool(b)
        case .number(let n):
            if let whole = Self.wholeNumber(n) {
                .number(whole)
            } else if n.isFinite {
                JSONNode(.number(JSONNumber(text: "\(n)", value: n)))
            } else {
                .null
            }
        case .string(let s): .string(s)
        case .array(let elements): .array(elements.map(\.node))
        case .object(let members): .object(members.map { ($0.key, $0.value.node) })
        }
    }

    init(_ node: JSONNode) {
        switch node.value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n.value)
        case .string(let s): self = .string(s)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let members): self = .object(members.map { (key: $0.key, value: JSONValue($0.value)) })
        }
    }
}

/// A coding key for any string: object keys are data here.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
