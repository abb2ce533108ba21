import Foundation

/// A stub built in Swift: the same shape as a stub file, as Codable types. It is encoded to JSON
/// and loaded by the same loader as files, so a stub means the same thing whichever way it was
/// written, and a mistake gets the same message.
public struct StubDefinition: Codable, Sendable, Equatable {
    public var name: String?
    public var priority: Int?
    public var request: RequestDefinition?
    public var response: ResponseDefinition?
    public var responses: [ResponseDefinition]?
    public var after: String?
    public var scenario: ScenarioDefinition?

    public init(name: String? = nil, priority: Int? = nil, request: RequestDefinition? = nil,
                response: ResponseDefinition? = nil, responses: [ResponseDefinition]? = nil,
                after: String? = nil, scenario: ScenarioDefinition? = nil) {
        self.name = name
        self.priority = priority
        self.request = request
        self.response = response
        self.responses = responses
        self.after = after
        self.scenario = scenario
    }
}

public struct RequestDefinition: Codable, Sendable, Equatable {
    public var method: String?
    public var path: String?
    public var pathPattern: String?
    public var host: Matcher?
    public var query: [String: Matcher]?
    public var headers: [String: Matcher]?
    public var body: BodyMatcherDefinition?

    public init(method: String? = nil, path: String? = nil, pathPattern: String? = nil, host: Matcher? = nil,
                query: [String: Matcher]? = nil, headers: [String: Matcher]? = nil, body: BodyMatcherDefinition? = nil) {
        self.method = method
        self.path = path
        self.pathPattern = pathPattern
        self.host = host
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// A string matcher: `.equals("x")` is written as the plain string.
public enum Matcher: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    case equals(String, caseInsensitive: Bool = false)
    case contains(String, caseInsensitive: Bool = false)
    case matches(String, caseInsensitive: Bool = false)
    case present
    case absent

    public init(stringLiteral value: String) { self = .equals(value) }

    public func encode(to encoder: any Encoder) throws {
        if case .equals(let s, false) = self {
            var single = encoder.singleValueContainer()
            try single.encode(s)
            return
        }
        var container = encoder.container(keyedBy: DynamicKey.self)
        switch self {
        case .equals(let s, let ci), .contains(let s, let ci), .matches(let s, let ci):
            try container.encode(s, forKey: DynamicKey(keyName))
            if ci { try container.encode(true, forKey: DynamicKey("caseInsensitive")) }
        case .present, .absent:
            try container.encode(true, forKey: DynamicKey(keyName))
        }
    }

    private var keyName: String {
        switch self {
        case .equals: "equals"
        case .contains: "contains"
        case .matches: "matches"
        case .present: "present"
        case .absent: "absent"
        }
    }

    public init(from decoder: any Decoder) throws {
        if let s = try? decoder.singleValueContainer().decode(String.self) { self = .equals(s); return }
        let c = try decoder.container(keyedBy: DynamicKey.self)
        let ci = try c.decodeIfPresent(Bool.self, forKey: DynamicKey("caseInsensitive")) ?? false
        if let s = try c.decodeIfPresent(String.self, forKey: DynamicKey("equals")) { self = .equals(s, caseInsensitive: ci) }
        else if let s = try c.decodeIfPresent(String.self, forKey: DynamicKey("contains")) { self = .contains(s, caseInsensitive: ci) }
        else if let s = try c.decodeIfPresent(String.self, forKey: DynamicKey("matches")) { self = .matches(s, caseInsensitive: ci) }
        else if c.contains(DynamicKey("present")) { self = .present }
        else { self = .absent }
    }
}

/// A body matcher. `json` and `jsonEquals` take any Encodable value.
public struct BodyMatcherDefinition: Codable, Sendable, Equatable {
    let key: String
    let value: JSONValue
    let caseInsensitive: Bool

    public static func json(_ value: some Encodable) throws -> BodyMatcherDefinition {
        BodyMatcherDefinition(key: "json", value: try JSONValue(encoding: value), caseInsensitive: false)
    }
    public static func jsonEquals(_ value: some Encodable) throws -> BodyMatcherDefinition {
        BodyMatcherDefinition(key: "jsonEquals", value: try JSONValue(encoding: value), caseInsensitive: false)
    }
    public static func equals(_ text: String, caseInsensitive: Bool = false) -> BodyMatcherDefinition {
        BodyMatcherDefinition(key: "equals", value: .string(text), caseInsensitive: caseInsensitive)
    }
    public static func contains(_ text: String, caseInsensitive: Bool = false) -> BodyMatcherDefinition {
        BodyMatcherDefinition(key: "contains", value: .string(text), caseInsensitive: caseInsensitive)
    }
    public static func matches(_ regex: String, caseInsensitive: Bool = false) -> BodyMatcherDefinition {
        BodyMatcherDefinition(key: "matches", value: .string(regex), caseInsensitive: caseInsensitive)
    }
    public static func form(_ fields: [String: Matcher]) throws -> BodyMatcherDefinition {
        BodyMatcherDefinition(key: "form", value: try JSONValue(encoding: fields), caseInsensitive: false)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DynamicKey.self)
        try c.encode(value, forKey: DynamicKey(key))
        if caseInsensitive { try c.encode(true, forKey: DynamicKey("caseInsensitive")) }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: DynamicKey.self)
        caseInsensitive = try c.decodeIfPresent(Bool.self, forKey: DynamicKey("caseInsensitive")) ?? false
        guard let key = c.allKeys.first(where: { $0.stringValue != "caseInsensitive" }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "a body matcher needs one key"))
        }
        self.key = key.stringValue
        value = try c.decode(JSONValue.self, forKey: key)
    }

    private init(key: String, value: JSONValue, caseInsensitive: Bool) {
        self.key = key
        self.value = value
        self.caseInsensitive = caseInsensitive
    }
}

public struct ResponseDefinition: Codable, Sendable, Equatable {
    public var status: Int?
    public var headers: [String: HeaderValue]?
    public var body: JSONValue?
    public var bodyFile: String?
    public var bodyBase64: String?
    public var template: Bool?
    public var delay: Int?
    public var fault: String?
    public var dribble: DribbleDefinition?

    public init(status: Int? = nil, headers: [String: HeaderValue]? = nil, body: JSONValue? = nil,
                bodyFile: String? = nil, bodyBase64: String? = nil, template: Bool? = nil,
                delay: Int? = nil, fault: String? = nil, dribble: DribbleDefinition? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.bodyBase64 = bodyBase64
        self.template = template
        self.delay = delay
        self.fault = fault
        self.dribble = dribble
    }

    /// A JSON body from any Encodable value.
    public static func json(_ value: some Encodable, status: Int = 200, headers: [String: HeaderValue]? = nil) throws -> ResponseDefinition {
        ResponseDefinition(status: status, headers: headers, body: try JSONValue(encoding: value))
    }

    /// A text body (sent as is, `text/plain` unless a header says otherwise).
    public static func text(_ text: String, status: Int = 200, headers: [String: HeaderValue]? = nil) -> ResponseDefinition {
        ResponseDefinition(status: status, headers: headers, body: .string(text))
    }
}

public enum HeaderValue: Codable, Sendable, Equatable, ExpressibleByStringLiteral {
    case one(String)
    case many([String])

    public init(stringLiteral value: String) { self = .one(value) }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .one(let s): try c.encode(s)
        case .many(let list): try c.encode(list)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) { self = .one(s) } else { self = .many(try c.decode([String].self)) }
    }
}

public struct DribbleDefinition: Codable, Sendable, Equatable {
    public var chunks: Int
    public var durationMs: Int
    public init(chunks: Int, durationMs: Int) { self.chunks = chunks; self.durationMs = durationMs }
}

public struct ScenarioDefinition: Codable, Sendable, Equatable {
    public var name: String
    public var when: String?
    public var then: String?
    public init(name: String, when: String? = nil, then: String? = nil) { self.name = name; self.when = when; self.then = then }
}

/// Any JSON value, for bodies built in code.
public indirect enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Any Encodable value, through JSONEncoder.
    public init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 { try c.encode(Int(n)) } else { try c.encode(n) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }
}

struct DynamicKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
