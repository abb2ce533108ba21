import NativeStubs
import StubEngine

/// What a JSON body (or a value in it) should look like: written as the JSON you expect, with a
/// matcher wherever a literal value will not do. The same as a `json` condition in a stub file.
///
///     .json(["title": .matches(".+"), "author": ["id": .atLeast(1)], "draft": .absent])
///
/// An object matches when every key is present with a matching value (other keys allowed), an
/// array element by element, anything else by equality (numbers by value).
public struct JSONPattern: Sendable, Equatable, CustomStringConvertible, ExpressibleByNilLiteral,
    ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// The pattern as the stub format writes it: matchers as matcher objects, and a literal
    /// object that looks like one wrapped in `{"equals": ...}`.
    let json: JSONValue

    private init(json: JSONValue) { self.json = json }

    /// `value` as the pattern: objects in it match as subsets, the rest by equality.
    public init(_ value: JSONValue) {
        switch value {
        case .array(let elements): json = .array(elements.map { JSONPattern($0).json })
        case .object(let members) where Self.looksLikeAMatcher(members.map(\.key)):
            json = ["equals": value]
        case .object(let members): json = .object(members.map { (key: $0.key, value: JSONPattern($0.value).json) })
        default: json = value
        }
    }

    public init(nilLiteral: ()) { self.init(.null) }
    public init(booleanLiteral value: Bool) { self.init(.bool(value)) }
    public init(integerLiteral value: Int) { self.init(.number(Double(value))) }
    public init(floatLiteral value: Double) { self.init(.number(value)) }
    public init(stringLiteral value: String) { self.init(.string(value)) }
    public init(arrayLiteral elements: JSONPattern...) { json = .array(elements.map(\.json)) }
    public init(dictionaryLiteral elements: (String, JSONPattern)...) {
        json = .object(elements.map { (key: $0.0, value: $0.1.json) })
    }

    /// Exactly `value`: no extra keys in its objects, and nothing in it read as a matcher.
    public static func equals(_ value: JSONValue) -> JSONPattern { JSONPattern(json: ["equals": value]) }
    /// A string equal to `text`, ignoring case.
    public static func equals(_ text: String, caseInsensitive: Bool) -> JSONPattern {
        stringMatcher(["equals": .string(text)], caseInsensitive)
    }
    /// A string containing `text`.
    public static func contains(_ text: String, caseInsensitive: Bool = false) -> JSONPattern {
        stringMatcher(["contains": .string(text)], caseInsensitive)
    }
    /// A string the regular expression matches whole.
    public static func matches(_ regex: String, caseInsensitive: Bool = false) -> JSONPattern {
        stringMatcher(["matches": .string(regex)], caseInsensitive)
    }
    /// There is a value here, whatever it is (`null` included).
    public static let present = JSONPattern(json: ["present": true])
    /// There is no value here: the object has no such key.
    public static let absent = JSONPattern(json: ["absent": true])
    /// A number above `n`.
    public static func greaterThan(_ n: Double) -> JSONPattern { JSONPattern(json: ["greaterThan": .number(n)]) }
    /// A number of at least `n`.
    public static func atLeast(_ n: Double) -> JSONPattern { JSONPattern(json: ["atLeast": .number(n)]) }
    /// A number below `n`.
    public static func lessThan(_ n: Double) -> JSONPattern { JSONPattern(json: ["lessThan": .number(n)]) }
    /// A number of at most `n`.
    public static func atMost(_ n: Double) -> JSONPattern { JSONPattern(json: ["atMost": .number(n)]) }
    /// A number in the range, both ends included.
    public static func between(_ range: ClosedRange<Double>) -> JSONPattern {
        JSONPattern(json: ["atLeast": .number(range.lowerBound), "atMost": .number(range.upperBound)])
    }

    /// The pattern as stub-file JSON.
    public var description: String { json.description }

    private static func stringMatcher(_ matcher: JSONValue, _ caseInsensitive: Bool) -> JSONPattern {
        guard caseInsensitive, case .object(let members) = matcher else { return JSONPattern(json: matcher) }
        return JSONPattern(json: .object(members + [(key: "caseInsensitive", value: true)]))
    }

    private static func looksLikeAMatcher(_ keys: [String]) -> Bool {
        !keys.isEmpty && keys.allSatisfy(StubFormat.jsonMatcherKeys.contains)
    }
}
