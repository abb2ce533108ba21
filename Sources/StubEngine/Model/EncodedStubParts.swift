import JSON

/// One step of a JSON path below a stub's definition (`["request", "bodyPatterns", 0]`): where
/// an encoding gap is, so a message can name the place and its line and column.
package enum DefinitionStep: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case key(String)
    case index(Int)

    package init(stringLiteral value: String) { self = .key(value) }
    package init(integerLiteral value: Int) { self = .index(value) }

    /// `.name`, `["odd key"]` or `[2]`, as messages write a JSON path.
    package static func path(_ steps: [DefinitionStep]) -> String {
        steps.map { step in
            switch step {
            case .key(let key): DocumentProblem.pathComponent(key)
            case .index(let index): "[\(index)]"
            }
        }
        .joined()
    }

    /// The node at `steps` below `node`, or nil when it is not there.
    package static func locate(_ steps: [DefinitionStep], in node: JSONNode) -> JSONNode? {
        var current: JSONNode? = node
        for step in steps {
            switch step {
            case .key(let key): current = current?[key]
            case .index(let index): current = current?.elements.flatMap { index < $0.count ? $0[index] : nil }
            }
        }
        return current
    }
}

/// What the stub format cannot say of a compiled stub, found while encoding it: a dialect's
/// condition or renderer left out (`dropped`: the stub matches or answers more loosely), said
/// nearly (`approximated`), or a stub that cannot be written at all (`skipped`).
package struct EncodingGap: Sendable {
    package enum Kind: String, Sendable {
        case dropped, approximated, skipped
    }

    package let kind: Kind
    /// Below the stub's definition: the part that was written in its own format.
    package let place: [DefinitionStep]
    package let message: String

    package init(_ kind: Kind, _ place: [DefinitionStep], _ message: String) {
        self.kind = kind
        self.place = place
        self.message = message
    }
}

/// A stub's request as the stub format writes it, filled from the compiled pattern: the native
/// parts by the encoder, then each `RequestCondition` adds what it can say (or a gap).
package struct EncodedRequest {
    package var methods: [String]?
    /// The `path` as written: each segment escaped as the decoder reads it back (`{name}`, `*`,
    /// `**` kept), or nil.
    package var pathSegments: [String]?
    package var pathPattern: String?
    package var host: JSONNode?
    package private(set) var query: [(name: String, matcher: JSONNode)] = []
    package var rawQuery: JSONNode?
    package private(set) var headers: [(name: String, matcher: JSONNode)] = []
    /// A body condition other than a form.
    package var body: JSONNode?
    package private(set) var form: [(name: String, matcher: JSONNode)] = []
    package private(set) var gaps: [EncodingGap] = []
    /// Path parameters written as the one value their `equalTo` allows.
    package private(set) var fixedPathValues: [String: String] = [:]

    package init() {}

    package var hasPath: Bool { pathSegments != nil || pathPattern != nil }
    package var hasBody: Bool { body != nil || !form.isEmpty }

    /// The `{name}`s the written path captures.
    package var pathParameterNames: Set<String> {
        Set(
            (pathSegments ?? []).compactMap { segment in
                segment.hasPrefix("{") && segment.hasSuffix("}") ? String(segment.dropFirst().dropLast()) : nil
            }
        )
    }

    package var pathVariables: EncodedPathVariables {
        EncodedPathVariables(captured: pathParameterNames, fixed: fixedPathValues)
    }

    /// Adds a header condition; false when the name has one already (a stub file has one per name).
    package mutating func addHeader(_ name: String, _ matcher: JSONNode) -> Bool {
        guard !headers.contains(where: { $0.name.lowercased() == name.lowercased() }) else { return false }
        headers.append((name, matcher))
        return true
    }

    /// Adds a query condition; false when the name has one already.
    package mutating func addQuery(_ name: String, _ matcher: JSONNode) -> Bool {
        guard !query.contains(where: { $0.name == name }) else { return false }
        query.append((name, matcher))
        return true
    }

    /// Adds a form field condition; false when the body has another condition or the field one.
    package mutating func addFormField(_ name: String, _ matcher: JSONNode) -> Bool {
        guard body == nil, !form.contains(where: { $0.name == name }) else { return false }
        form.append((name, matcher))
        return true
    }

    /// Writes `{name}` in the path as the literal segment `value`; false when the path has no such segment.
    package mutating func fixPathParameter(_ name: String, to value: String) -> Bool {
        guard let index = pathSegments?.firstIndex(of: "{\(name)}") else { return false }
        pathSegments?[index] = Self.segment(value)
        fixedPathValues[name] = value
        return true
    }

    package mutating func gap(_ kind: EncodingGap.Kind, _ place: [DefinitionStep], _ message: String) {
        gaps.append(EncodingGap(kind, place, message))
    }

    /// One decoded literal segment as a path writes it: the characters a path gives meaning to,
    /// or that cannot stand in a segment, percent-encoded (the decoder decodes them back).
    package static func segment(_ decoded: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var out = String.UnicodeScalarView()
        for scalar in decoded.unicodeScalars {
            if "%/?#{}*".unicodeScalars.contains(scalar) {
                out.append("%")
                out.append(hex[Int(scalar.value >> 4)])
                out.append(hex[Int(scalar.value & 0xF)])
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// A value matcher as the stub format writes it: a plain string for a case-sensitive equality.
    package static func matcher(_ m: ValueMatcher) -> JSONNode {
        var members: [(String, JSONNode)]
        switch m.kind {
        case .equals(let s):
            guard m.caseInsensitive else { return .string(s) }
            members = [("equals", .string(s))]
        case .contains(let s): members = [("contains", .string(s))]
        case .matches(let regex): members = [("matches", .string(regex.pattern))]
        case .present: members = [("present", .bool(true))]
        case .absent: members = [("absent", .bool(true))]
        }
        if m.caseInsensitive { members.append(("caseInsensitive", .bool(true))) }
        return .object(members)
    }

    package var node: JSONNode {
        var members: [(String, JSONNode)] = []
        if let methods {
            members.append(("method", methods.count == 1 ? .string(methods[0]) : .array(methods.map { .string($0) })))
        }
        if let pathSegments { members.append(("path", .string("/" + pathSegments.joined(separator: "/")))) }
        if let pathPattern { members.append(("pathPattern", .string(pathPattern))) }
        if let host { members.append(("host", host)) }
        if !query.isEmpty { members.append(("query", .object(query.map { ($0.name, $0.matcher) }))) }
        if let rawQuery { members.append(("rawQuery", rawQuery)) }
        if !headers.isEmpty { members.append(("headers", .object(headers.map { ($0.name, $0.matcher) }))) }
        if let body {
            members.append(("body", body))
        } else if !form.isEmpty {
            members.append(("body", .object([("form", .object(form.map { ($0.name, $0.matcher) }))])))
        }
        return .object(members)
    }
}

/// The `{name}`s of a written path: those it captures (a native template may name them), and
/// those written as the one value their condition allows (a template gets that value).
package struct EncodedPathVariables: Sendable {
    package var captured: Set<String>
    package var fixed: [String: String]

    package init(captured: Set<String> = [], fixed: [String: String] = [:]) {
        self.captured = captured
        self.fixed = fixed
    }
}

/// A response's head and body as the stub format writes them; a dialect's `ResponseRenderer`
/// rewrites them into native templates where it can.
package struct EncodedResponse {
    package enum Body {
        /// Bytes the encoder places (inline text or JSON, base64, or a body file).
        case bytes([UInt8])
        /// Template text, written as `body`.
        case text(String)
        /// A JSON body, written as JSON (its strings may be templates).
        case json(JSONNode)
    }

    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: Body
    /// `"template": true`.
    package var templated = false
    /// The path variables a native template may name.
    package let pathVariables: EncodedPathVariables
    package private(set) var gaps: [EncodingGap] = []

    package init(
        status: Int,
        headers: [(name: String, value: String)],
        body: Body,
        pathVariables: EncodedPathVariables
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.pathVariables = pathVariables
    }

    package mutating func gap(_ kind: EncodingGap.Kind, _ place: [DefinitionStep], _ message: String) {
        gaps.append(EncodingGap(kind, place, message))
    }
}

/// A webhook as the stub format writes it (its delay is the encoder's).
package struct EncodedWebhook {
    package enum Body {
        case none
        case text(String)
        case bytes([UInt8])
    }

    package var method: String
    package var url: String
    package var headers: [(name: String, value: String)]
    package var body: Body
    package var templated: Bool
    /// Where the webhook was written below the stub's definition, for the gaps about it.
    package var place: [DefinitionStep] = ["webhooks"]

    package init(method: String, url: String, headers: [(name: String, value: String)], body: Body, templated: Bool) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.templated = templated
    }
}
