import HTTP1
import JSON
import NativeStubs
import StubEngine

/// A request body of a collection (`body.mode`), variables resolved: what a stub can match on
/// when bodies tell examples apart, and the bytes a request made to fit would send.
enum PostmanBody: Equatable {
    case none
    /// `raw`: text, JSON when `options.raw.language` or the request's `Content-Type` says so.
    case raw(String, json: Bool)
    /// `urlencoded`: enabled fields in order.
    case form([Field])
    /// `formdata` (multipart) and `file`: sent, but not matched on (there is no multipart matcher).
    case unmatched(mode: String)
    /// `graphql`: sent as JSON `{"query": ..., "variables": ...}`.
    case graphQL(query: String, variables: String)

    struct Field: Equatable {
        let name: String
        let value: String
    }

    static let modes = ["raw", "urlencoded", "formdata", "file", "graphql", "none"]

    static func read(
        _ node: JSONNode?,
        headers: JSONNode?,
        variables: inout PostmanVariables
    ) -> Result<PostmanBody, ImportFailure> {
        guard let node, node.members != nil, node["disabled"]?.bool != true else { return .success(.none) }
        guard let modeNode = node["mode"] else {
            return .success(node["raw"]?.string.map { .raw(variables.resolve($0), json: false) } ?? .none)
        }
        guard let mode = modeNode.string else {
            return .failure(
                ImportFailure(
                    "the body mode is \(modeNode.kindDescription), expected one of \(modes.joined(separator: ", "))"
                )
            )
        }
        switch mode {
        case "raw":
            let text = variables.resolve(node["raw"]?.string ?? "")
            if text.isEmpty { return .success(.none) }
            let language = node["options"]?["raw"]?["language"]?.string?.lowercased()
            let contentType = Self.contentType(headers, variables: &variables) ?? ""
            return .success(.raw(text, json: language == "json" || MediaTypes.isJSON(contentType)))
        case "urlencoded":
            var fields: [Field] = []
            for entry in node["urlencoded"]?.elements ?? [] where entry["disabled"]?.bool != true {
                guard let key = entry["key"]?.string, !key.isEmpty else { continue }
                let value = entry["value"].flatMap(PostmanCollection.scalarText) ?? ""
                fields.append(Field(name: variables.resolve(key), value: variables.resolve(value)))
            }
            return .success(fields.isEmpty ? .none : .form(fields))
        case "formdata", "file":
            return .success(.unmatched(mode: mode))
        case "graphql":
            let graphql = node["graphql"]
            return .success(
                .graphQL(
                    query: variables.resolve(graphql?["query"]?.string ?? ""),
                    variables: variables.resolve(graphql?["variables"]?.string ?? "")
                )
            )
        case "none", "":
            return .success(.none)
        default:
            return .failure(
                ImportFailure(
                    "unknown body mode \"\(mode.prefix(30))\" (Postman writes \(modes.joined(separator: ", ")))"
                )
            )
        }
    }

    /// The request's `Content-Type` header, if it lists one that is enabled.
    private static func contentType(_ headers: JSONNode?, variables: inout PostmanVariables) -> String? {
        for header in headers?.elements ?? [] where header["disabled"]?.bool != true {
            if let key = header["key"]?.string, asciiCaseInsensitiveEquals(key, "Content-Type"),
                let value = header["value"]?.string
            {
                return variables.resolve(value)
            }
        }
        return nil
    }

    /// The condition a stub writes for this body: `jsonEquals` for JSON (`json`, a pattern, where
    /// a value is a placeholder, which then only has to be present), `equals` for text, `form`
    /// for fields; nil when the body cannot be matched on (multipart, a file, text with a
    /// placeholder). `secret` says which field names are secrets: their values are not written.
    func condition(isSecret: (String) -> Bool) -> JSONNode? {
        switch self {
        case .none, .unmatched:
            return nil
        case .raw(let text, let json):
            if json || text.first == "{" || text.first == "[" {
                if let value = try? JSONParser.parse(Array(text.utf8), rejectDuplicateKeys: true) {
                    return Self.jsonCondition(value)
                }
            }
            if PostmanVariables.hasReference(text) { return nil }
            return .object([("equals", .string(text))])
        case .form(let fields):
            var members: [(String, JSONNode)] = []
            for field in fields where !members.contains(where: { $0.0 == field.name }) {
                let placeholder = PostmanVariables.isPlaceholder(field.value) || isSecret(field.name.lowercased())
                members.append((field.name, placeholder ? .object([("present", .bool(true))]) : .string(field.value)))
            }
            return .object([("form", .object(members))])
        case .graphQL(let query, let variables):
            var members: [(String, JSONNode)] = [("query", .string(query))]
            if let parsed = try? JSONParser.parse(Array(variables.utf8)), parsed.members != nil {
                members.append(("variables", parsed))
            }
            return Self.jsonCondition(.object(members))
        }
    }

    /// `jsonEquals` when every value is one; else a `json` pattern with each placeholder string
    /// (`"{{merchant}}"`, `"<string>"`) made `{"present": true}`.
    static func jsonCondition(_ value: JSONNode) -> JSONNode {
        var placeholders = false
        let pattern = replacingPlaceholders(value, found: &placeholders)
        return placeholders ? .object([("json", pattern)]) : .object([("jsonEquals", value)])
    }

    private static func replacingPlaceholders(_ node: JSONNode, found: inout Bool) -> JSONNode {
        switch node.value {
        case .string(let text) where PostmanVariables.isPlaceholder(text):
            found = true
            return .object([("present", .bool(true))])
        case .array(let elements):
            return .array(elements.map { replacingPlaceholders($0, found: &found) })
        case .object(let members):
            let literal = members.map { ($0.key, replacingPlaceholders($0.value, found: &found)) }
            // An object whose keys all look like matcher keys would be read as a matcher: one
            // without placeholders is wrapped in `equals`, which takes it literally.
            let looksLikeMatcher =
                !members.isEmpty && members.allSatisfy { StubFormat.jsonMatcherKeys.contains($0.key) }
            if looksLikeMatcher { return .object([("equals", node)]) }
            return .object(literal)
        default:
            return node
        }
    }
}
