import Foundation

/// Which requests a stub answers, or which ones `count(matching:)` and `verify` look for: the
/// `request` object of a stub file. Every condition is optional; an empty one matches all.
///
///     RequestDefinition(method: .post, path: "/v1/register", body: .json(["username": "swift-senpai"]))
///     .post("/oauth/token", headers: ["X-Client-Id": "ios-app"], body: .json(["grant_type": "password"]))
public struct RequestDefinition: Sendable, Equatable {
    /// nil: any method.
    public var method: Method?
    /// Literal segments, `{name}` (one segment, captured), `*` (one segment), `**` as the last
    /// segment (the rest). Without the query.
    public var path: String?
    /// A regular expression the whole path matches; instead of `path`.
    public var pathPattern: String?
    /// The Host header without its port.
    public var host: Matcher?
    /// Only the named parameters are checked; a repeated one matches if any value does.
    public var query: [String: Matcher]?
    /// Names are case-insensitive; the same rules as `query`.
    public var headers: [String: Matcher]?
    public var body: BodyMatcherDefinition?

    public init(
        method: Method? = nil,
        path: String? = nil,
        pathPattern: String? = nil,
        host: Matcher? = nil,
        query: [String: Matcher]? = nil,
        headers: [String: Matcher]? = nil,
        body: BodyMatcherDefinition? = nil
    ) {
        self.method = method
        self.path = path
        self.pathPattern = pathPattern
        self.host = host
        self.query = query
        self.headers = headers
        self.body = body
    }

    public static func get(
        _ path: String,
        query: [String: Matcher]? = nil,
        headers: [String: Matcher]? = nil
    ) -> RequestDefinition {
        RequestDefinition(method: .get, path: path, query: query, headers: headers)
    }

    public static func post(
        _ path: String,
        query: [String: Matcher]? = nil,
        headers: [String: Matcher]? = nil,
        body: BodyMatcherDefinition? = nil
    ) -> RequestDefinition {
        RequestDefinition(method: .post, path: path, query: query, headers: headers, body: body)
    }

    public static func put(
        _ path: String,
        query: [String: Matcher]? = nil,
        headers: [String: Matcher]? = nil,
        body: BodyMatcherDefinition? = nil
    ) -> RequestDefinition {
        RequestDefinition(method: .put, path: path, query: query, headers: headers, body: body)
    }

    public static func patch(
        _ path: String,
        query: [String: Matcher]? = nil,
        headers: [String: Matcher]? = nil,
        body: BodyMatcherDefinition? = nil
    ) -> RequestDefinition {
        RequestDefinition(method: .patch, path: path, query: query, headers: headers, body: body)
    }

    public static func delete(
        _ path: String,
        query: [String: Matcher]? = nil,
        headers: [String: Matcher]? = nil
    ) -> RequestDefinition {
        RequestDefinition(method: .delete, path: path, query: query, headers: headers)
    }

    /// A HEAD request (a client checking a resource's size or freshness without its body).
    public static func head(
        _ path: String,
        query: [String: Matcher]? = nil,
        headers: [String: Matcher]? = nil
    ) -> RequestDefinition {
        RequestDefinition(method: .head, path: path, query: query, headers: headers)
    }

    /// An OPTIONS request (a CORS preflight, or a client asking what a resource allows).
    public static func options(
        _ path: String,
        query: [String: Matcher]? = nil,
        headers: [String: Matcher]? = nil
    ) -> RequestDefinition {
        RequestDefinition(method: .options, path: path, query: query, headers: headers)
    }

    /// An HTTP method. A struct rather than an enum because methods are an open set of tokens
    /// (`PURGE`, `PROPFIND`): the common ones are constants, any other is a string literal.
    /// Case-sensitive, as in HTTP.
    public struct Method: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { rawValue = value }
        public var description: String { rawValue }

        public static let get: Method = "GET"
        public static let head: Method = "HEAD"
        public static let post: Method = "POST"
        public static let put: Method = "PUT"
        public static let patch: Method = "PATCH"
        public static let delete: Method = "DELETE"
        public static let options: Method = "OPTIONS"
    }
}

/// A condition on one string (a header, a query parameter, the host, a form field). A string
/// literal means `.equals`.
public enum Matcher: Sendable, Equatable, ExpressibleByStringLiteral {
    case equals(String, caseInsensitive: Bool = false)
    case contains(String, caseInsensitive: Bool = false)
    /// The regular expression matches the whole value.
    case matches(String, caseInsensitive: Bool = false)
    case present
    case absent

    public init(stringLiteral value: String) { self = .equals(value) }
}

/// A condition on the request body: the `body` object of a stub file's `request`.
public struct BodyMatcherDefinition: Sendable, Equatable {
    let json: JSONValue

    /// The body is JSON that matches the pattern: objects need their keys (others allowed),
    /// arrays their elements in order, a matcher (`.matches(".+")`, `.atLeast(1)`, `.absent`)
    /// holds wherever it stands.
    public static func json(_ pattern: JSONPattern) -> BodyMatcherDefinition {
        BodyMatcherDefinition(json: ["json": pattern.json])
    }
    /// The body is JSON that contains what `value` encodes to (as `json(_:)` with no matchers).
    public static func json(encoding value: some Encodable) throws -> BodyMatcherDefinition {
        .json(JSONPattern(try JSONValue(encoding: value)))
    }
    /// The body is JSON equal to `value` (no extra keys; object key order ignored).
    public static func jsonEquals(_ value: JSONValue) -> BodyMatcherDefinition {
        BodyMatcherDefinition(json: ["jsonEquals": value])
    }
    /// The body is JSON equal to what `value` encodes to.
    public static func jsonEquals(encoding value: some Encodable) throws -> BodyMatcherDefinition {
        .jsonEquals(try JSONValue(encoding: value))
    }
    /// The body is JSON and what each RFC 6901 pointer (`"/user/name"`, `"/items/0"`) selects
    /// matches its pattern (`.absent`: selects nothing).
    public static func jsonPointer(_ conditions: KeyValuePairs<String, JSONPattern>) -> BodyMatcherDefinition {
        BodyMatcherDefinition(json: ["jsonPointer": .object(conditions.map { (key: $0.key, value: $0.value.json) })])
    }
    /// The body, as UTF-8 text, is `text`.
    public static func equals(_ text: String, caseInsensitive: Bool = false) -> BodyMatcherDefinition {
        textMatcher("equals", text, caseInsensitive)
    }
    public static func contains(_ text: String, caseInsensitive: Bool = false) -> BodyMatcherDefinition {
        textMatcher("contains", text, caseInsensitive)
    }
    /// The regular expression matches the whole body text.
    public static func matches(_ regex: String, caseInsensitive: Bool = false) -> BodyMatcherDefinition {
        textMatcher("matches", regex, caseInsensitive)
    }
    /// An `application/x-www-form-urlencoded` body; only the named fields are checked.
    public static func form(_ fields: [String: Matcher]) -> BodyMatcherDefinition {
        BodyMatcherDefinition(json: ["form": DefinitionJSON.matchers(fields)])
    }

    /// A `multipart/form-data` body (a form with files, as an upload sends it); only the named
    /// fields (the text of a part without a file name) and files are checked.
    ///
    ///     .multipart(fields: ["caption": "Holiday"],
    ///                files: ["photo": FileMatcher(filename: .matches(".+\\.jpg"), contentType: "image/jpeg")])
    public static func multipart(
        fields: [String: Matcher] = [:],
        files: [String: FileMatcher] = [:]
    )
        -> BodyMatcherDefinition
    {
        var condition: [(key: String, value: JSONValue)] = []
        if !fields.isEmpty { condition.append(("fields", DefinitionJSON.matchers(fields))) }
        if !files.isEmpty {
            let sorted = files.sorted { $0.key < $1.key }
            condition.append(("files", .object(sorted.map { (key: $0.key, value: $0.value.json) })))
        }
        return BodyMatcherDefinition(json: ["multipart": .object(condition)])
    }

    private static func textMatcher(_ key: String, _ operand: String, _ caseInsensitive: Bool) -> BodyMatcherDefinition
    {
        BodyMatcherDefinition(
            json: caseInsensitive ? [key: .string(operand), "caseInsensitive": true] : [key: .string(operand)]
        )
    }
}

/// Conditions on one file of a `multipart` body, each optional: `FileMatcher()` is any file sent
/// under that name, `.absent` none.
public struct FileMatcher: Sendable, Equatable {
    /// The part's file name.
    public var filename: Matcher?
    /// The part's `Content-Type`.
    public var contentType: Matcher?
    /// The file's bytes as UTF-8 text.
    public var content: Matcher?
    var isAbsent = false

    public init(filename: Matcher? = nil, contentType: Matcher? = nil, content: Matcher? = nil) {
        self.filename = filename
        self.contentType = contentType
        self.content = content
    }

    /// No file of that name was sent.
    public static var absent: FileMatcher {
        var matcher = FileMatcher()
        matcher.isAbsent = true
        return matcher
    }

    var json: JSONValue {
        if isAbsent { return ["absent": true] }
        var members: [(key: String, value: JSONValue)] = []
        if let filename { members.append(("filename", DefinitionJSON.matcher(filename))) }
        if let contentType { members.append(("contentType", DefinitionJSON.matcher(contentType))) }
        if let content { members.append(("content", DefinitionJSON.matcher(content))) }
        return .object(members)
    }
}
