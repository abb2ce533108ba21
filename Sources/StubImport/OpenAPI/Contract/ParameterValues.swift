import HTTP1
import JSON
import JSONSchema
import StubEngine
import SystemSupport

/// Request text as the JSON values a schema checks: parameters serialised by their `style`
/// (`form`, `simple`, `deepObject`, ...) and form bodies (`a[b][0]=x`), each scalar read as the
/// type its schema asks for (`?limit=10` is the integer 10 for `type: integer`, and `ten` stays
/// the string "ten", which the schema then refuses with a message that says so).
struct ParameterValues {
    let documents: DocumentSet

    // MARK: Scalars

    /// The JSON types a schema allows, its `$ref`s and combinators looked through; empty when
    /// it does not say.
    func types(of schema: LocatedNode?) -> Set<String> {
        var found: Set<String> = []
        var pending = schema.map { [$0] } ?? []
        var visited = 0
        while let next = pending.popLast(), visited < 32 {
            visited += 1
            guard let resolved = documents.dereference(next), resolved.isObject else { continue }
            if let type = resolved["type"] {
                if let name = type.string { found.insert(name) }
                for element in type.node.elements ?? [] {
                    if let name = element.string { found.insert(name) }
                }
            } else if resolved["properties"] != nil {
                found.insert("object")
            } else if resolved["items"] != nil {
                found.insert("array")
            }
            for keyword in ["allOf", "anyOf", "oneOf"] {
                pending += resolved[keyword]?.elements ?? []
            }
        }
        return found
    }

    /// `10` as a number where the schema takes numbers, `true` as a boolean where it takes
    /// booleans; a string otherwise (and when it does not read as the type).
    func scalar(_ text: String, _ types: Set<String>) -> JSONNode {
        if types.contains("integer") || types.contains("number"), let number = Self.number(text) {
            return JSONNode(.number(number))
        }
        if types.contains("boolean"), text == "true" || text == "false" {
            return JSONNode(.bool(text == "true"))
        }
        if types.contains("null"), text == "null" || (text.isEmpty && !types.contains("string")) {
            return JSONNode(.null)
        }
        return JSONNode(.string(text))
    }

    /// A number as JSON writes it (no `+`, no hex, no `inf`), so `1e3` counts and `0x10` not.
    static func number(_ text: String) -> JSONNumber? {
        guard let first = text.utf8.first, first == UInt8(ascii: "-") || (48...57).contains(first),
            text.utf8.allSatisfy({ (48...57).contains($0) || "-+.eE".utf8.contains($0) }),
            let value = Double(text), value.isFinite
        else { return nil }
        return JSONNumber(text: text, value: value)
    }

    // MARK: Parameters

    /// A parameter's value as its schema sees it; nil when the request does not carry it.
    /// `raw` are the values found under the parameter's name (several for `?id=1&id=2`);
    /// `query` is the whole query, for `deepObject` and exploded `form` objects.
    func value(_ parameter: OperationContract.Parameter, raw: [String], query: [QueryItem]) -> JSONNode? {
        let types = types(of: parameter.schema)
        if parameter.isJSONContent {
            guard let text = raw.first else { return nil }
            return (try? JSONParser.parse(Array(text.utf8))) ?? JSONNode(.string(text))
        }
        if types.contains("object") && !types.contains("string") {
            return object(parameter, raw: raw, query: query)
        }
        guard !raw.isEmpty else { return nil }
        if types.contains("array") {
            let itemTypes = self.types(of: arrayItems(parameter.schema))
            return JSONNode(.array(split(parameter, raw).map { scalar($0, itemTypes) }))
        }
        return scalar(unprefixed(parameter, raw[0]), types)
    }

    /// The items of an array's serialisation, by style.
    private func split(_ parameter: OperationContract.Parameter, _ raw: [String]) -> [String] {
        switch parameter.style {
        case .form where parameter.explode:
            return raw
        case .spaceDelimited:
            return raw.flatMap { $0.split(separator: " ", omittingEmptySubsequences: false).map(String.init) }
        case .pipeDelimited:
            return raw.flatMap { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        case .label:
            let text = String(raw[0].dropFirst())
            let separator: Character = parameter.explode ? "." : ","
            return text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
        case .matrix where parameter.explode:
            let prefix = ";\(parameter.name)="
            return raw[0].split(separator: ";").map { ";" + $0 }.map { String($0.dropFirst(prefix.count)) }
        default:
            let text = unprefixed(parameter, raw[0])
            guard !text.isEmpty else { return [] }
            return text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// `.5` for label style, `;id=5` for matrix: the value after its style's prefix.
    private func unprefixed(_ parameter: OperationContract.Parameter, _ text: String) -> String {
        switch parameter.style {
        case .label where text.hasPrefix("."):
            return String(text.dropFirst())
        case .matrix where text.hasPrefix(";\(parameter.name)="):
            return String(text.dropFirst(parameter.name.count + 2))
        default:
            return text
        }
    }

    private func object(_ parameter: OperationContract.Parameter, raw: [String], query: [QueryItem]) -> JSONNode? {
        let schema = parameter.schema
        switch (parameter.location, parameter.style) {
        case (.query, .deepObject):
            let items = query.filter { $0.name.hasPrefix(parameter.name + "[") }
            guard !items.isEmpty else { return nil }
            return coerce(FormFields.nest(items.map { ($0.name, $0.value) })[parameter.name], schema)
        case (.query, .form) where parameter.explode:
            let names = Set((documents.dereference(schema)?["properties"]?.members ?? []).map(\.key))
            let members = query.filter { names.contains($0.name) }.map { ($0.name, JSONNode(.string($0.value))) }
            guard !members.isEmpty else { return nil }
            return coerce(.object(members), schema)
        default:
            guard let text = raw.first.map({ unprefixed(parameter, $0) }) else { return nil }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            var members: [(String, JSONNode)] = []
            if parameter.explode {
                for part in parts {
                    let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    members.append((String(pair[0]), .string(pair.count > 1 ? String(pair[1]) : "")))
                }
            } else {
                var index = 0
                while index + 1 < parts.count {
                    members.append((parts[index], .string(parts[index + 1])))
                    index += 2
                }
            }
            return coerce(.object(members), schema)
        }
    }

    private func arrayItems(_ schema: LocatedNode?) -> LocatedNode? {
        documents.dereference(schema)?["items"]
    }

    // MARK: Structured values from text

    /// Strings inside a value read from text (a form body, a deep object) turned into the types
    /// their schemas ask for, following `properties`, `additionalProperties` and `items`.
    func coerce(_ value: JSONNode?, _ schema: LocatedNode?, depth: Int = 0) -> JSONNode? {
        guard let value else { return nil }
        guard depth < 32, let schema = documents.dereference(schema) else { return value }
        switch value.value {
        case .string(let text):
            return scalar(text, types(of: schema))
        case .object(let members):
            let properties = schema["properties"]
            let additional = schema["additionalProperties"]
            let coerced = members.map { member -> (String, JSONNode) in
                let sub =
                    properties?[member.key] ?? branchProperty(schema, member.key) ?? additional
                    ?? branchKeyword(schema, "additionalProperties")
                return (member.key, coerce(member.value, sub, depth: depth + 1) ?? member.value)
            }
            return .object(coerced)
        case .array(let elements):
            let items = schema["items"] ?? branchItems(schema)
            return .array(elements.map { coerce($0, items, depth: depth + 1) ?? $0 })
        default:
            return value
        }
    }

    /// A property's schema from an `allOf`/`anyOf`/`oneOf` branch (Stripe writes
    /// `anyOf: [{type: object, properties: ...}, {type: string, enum: [""]}]`).
    private func branchProperty(_ schema: LocatedNode, _ name: String) -> LocatedNode? {
        for keyword in ["allOf", "anyOf", "oneOf"] {
            for branch in schema[keyword]?.elements ?? [] {
                if let property = documents.dereference(branch)?["properties"]?[name] { return property }
            }
        }
        return nil
    }

    private func branchItems(_ schema: LocatedNode) -> LocatedNode? {
        branchKeyword(schema, "items")
    }

    /// The first `allOf`/`anyOf`/`oneOf` branch's value for a keyword (`items`, a map's
    /// `additionalProperties`) whose value is a schema object.
    private func branchKeyword(_ schema: LocatedNode, _ keyword: String) -> LocatedNode? {
        for combinator in ["allOf", "anyOf", "oneOf"] {
            for branch in schema[combinator]?.elements ?? [] {
                if let value = documents.dereference(branch)?[keyword], value.isObject { return value }
            }
        }
        return nil
    }
}

extension DocumentSet {
    /// `dereference` for an optional schema.
    func dereference(_ node: LocatedNode?) -> LocatedNode? {
        node.flatMap { dereference($0) }
    }
}

/// `application/x-www-form-urlencoded` fields with bracket names (`a[b]=1`, `list[]=x`,
/// `items[0][price]=5`), as Stripe's API and Rails-style clients write nested values, read as
/// one JSON value of strings.
enum FormFields {
    /// The fields of a form body: `+` is a space, then percent-decoding.
    static func parse(_ body: [UInt8]) -> [(String, String)] {
        let text = String(decoding: body, as: UTF8.self)
        return text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                PercentDecoding.decodeLenient(part.replacing("+", with: " "))
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// Bracket names nested into objects and arrays (`[]` appends, `[0]` indexes).
    static func nest(_ fields: [(String, String)]) -> JSONNode {
        var root = Nested.object([])
        for (name, value) in fields {
            root.insert(path(name), .leaf(value))
        }
        return root.node
    }

    /// `a[b][]` → `a`, `b`, `` (an append).
    static func path(_ name: String) -> [String] {
        guard let open = name.firstIndex(of: "["), name.hasSuffix("]") else { return [name] }
        var keys = [String(name[..<open])]
        let rest = name[name.index(after: open)..<name.index(before: name.endIndex)]
        keys += rest.split(separator: "][", omittingEmptySubsequences: false).map(String.init)
        return keys
    }

    private indirect enum Nested {
        case leaf(String)
        case object([(String, Nested)])
        case array([Nested])

        mutating func insert(_ path: [String], _ value: Nested) {
            guard let key = path.first else {
                self = value
                return
            }
            let rest = Array(path.dropFirst())
            switch self {
            case .array(var elements):
                if key.isEmpty {
                    var child = Nested.object([])
                    if rest.isEmpty { child = value } else { child.insert(rest, value) }
                    elements.append(child)
                } else if let index = Int(key), index >= 0, index <= elements.count, index < 1_000 {
                    if index == elements.count { elements.append(.object([])) }
                    elements[index].insert(rest, value)
                }
                self = .array(elements)
            case .object(var members):
                if let at = members.firstIndex(where: { $0.0 == key }) {
                    members[at].1.insert(rest, value)
                } else {
                    let next = rest.first
                    var child: Nested = next.map { $0.isEmpty || Int($0) != nil } == true ? .array([]) : .object([])
                    child.insert(rest, value)
                    members.append((key, child))
                }
                self = .object(members)
            case .leaf:
                break
            }
        }

        var node: JSONNode {
            switch self {
            case .leaf(let text): .string(text)
            case .object(let members): .object(members.map { ($0.0, $0.1.node) })
            case .array(let elements): .array(elements.map(\.node))
            }
        }
    }
}
