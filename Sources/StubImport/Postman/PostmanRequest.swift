import HTTP1
import JSON
import StubEngine
import SystemSupport

/// A request of a collection (an item's `request` or an example's `originalRequest`) with its
/// variables resolved, as far as a stub matches on it: method, path (a template: `:id`, a whole
/// `{{id}}` that has no value and `{id}` segments are path parameters), the enabled query
/// parameters and the body.
struct PostmanRequest {
    let method: String
    let path: PathTemplate
    /// Values the collection gives path parameters (`url.variable`), for a request made to fit.
    let pathValues: [String: String]
    let query: [(name: String, value: String)]
    let body: PostmanBody

    /// Reads a request; a failure says what is wrong with it (the item is then skipped).
    static func read(_ node: JSONNode, variables: inout PostmanVariables) -> Result<PostmanRequest, ImportFailure> {
        let urlNode = node.string != nil ? node : node["url"]
        let method = node["method"]?.string.map { variables.resolve($0) } ?? "GET"
        guard HTTPToken.isToken(method) else {
            return .failure(ImportFailure("the method \"\(method.prefix(20))\" is not an HTTP method"))
        }
        guard let urlNode else { return .failure(ImportFailure("the request has no url")) }
        let url: PostmanURL
        switch PostmanURL.read(urlNode, variables: &variables) {
        case .success(let read): url = read
        case .failure(let failure): return .failure(failure)
        }
        let body: PostmanBody
        switch PostmanBody.read(node.string != nil ? nil : node["body"], headers: node["header"], variables: &variables)
        {
        case .success(let read): body = read
        case .failure(let failure): return .failure(failure)
        }
        return .success(
            PostmanRequest(method: method, path: url.path, pathValues: url.pathValues, query: url.query, body: body)
        )
    }
}

/// A collection's URL: a string (`raw`), or an object with `host`, `path`, `query` and `variable`
/// (v2.1; v2.0 also allows a path of `{"value": ...}` objects and strings for `host` and `path`).
struct PostmanURL {
    let path: PathTemplate
    let pathValues: [String: String]
    let query: [(name: String, value: String)]

    static func read(_ node: JSONNode, variables: inout PostmanVariables) -> Result<PostmanURL, ImportFailure> {
        var text: String
        var query: [(name: String, value: String)] = []
        var pathValues: [String: String] = [:]
        if let raw = node.string {
            text = raw
        } else if node.members != nil {
            let hostNode = node["host"]
            let pathNode = node["path"]
            if hostNode == nil && pathNode == nil {
                guard let raw = node["raw"]?.string else {
                    return .failure(ImportFailure("the url has neither \"raw\" nor \"host\" and \"path\""))
                }
                text = raw
            } else {
                guard let hostText = hostNode.map({ parts($0, separator: ".") }) ?? "",
                    let pathText = pathNode.map({ parts($0, separator: "/") }) ?? ""
                else {
                    return .failure(ImportFailure("the url's host or path is neither a string nor a list of strings"))
                }
                text =
                    hostText + (pathText.hasPrefix("/") || pathText.isEmpty && hostText.isEmpty ? "" : "/") + pathText
                if let list = node["query"]?.elements {
                    query = queryList(list, variables: &variables)
                    text = String(text.prefix { $0 != "?" })
                }
            }
            for entry in node["variable"]?.elements ?? [] {
                guard let name = entry["key"]?.string ?? entry["id"]?.string,
                    let value = entry["value"].flatMap(PostmanCollection.scalarText)
                else { continue }
                pathValues[name] = variables.resolve(value)
            }
        } else {
            return .failure(ImportFailure("the url is \(node.kindDescription), expected a string or an object"))
        }
        text = variables.resolve(text)
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        if let mark = text.firstIndex(of: "?") {
            if query.isEmpty { query = rawQuery(text[text.index(after: mark)...]) }
            text = String(text[..<mark])
        }
        guard let path = pathTemplate(ofURL: text) else {
            return .failure(ImportFailure("the url \"\(text.prefix(60))\" has a dot segment ('.' or '..') in its path"))
        }
        return .success(PostmanURL(path: path, pathValues: pathValues, query: query))
    }

    /// `["api", "example", "com"]` joined, `"api.example.com"` as is, `[{"value": "v1"}]` (v2.0);
    /// nil when it is none of those.
    private static func parts(_ node: JSONNode, separator: String) -> String? {
        if let text = node.string { return text }
        guard let list = node.elements else { return nil }
        var texts: [String] = []
        for element in list {
            guard let text = element.string ?? element["value"]?.string else { return nil }
            texts.append(text)
        }
        return texts.joined(separator: separator)
    }

    /// Enabled parameters with a name, in order; a value that is null or absent is empty.
    private static func queryList(
        _ list: [JSONNode],
        variables: inout PostmanVariables
    ) -> [(name: String, value: String)] {
        var query: [(name: String, value: String)] = []
        for entry in list where entry["disabled"]?.bool != true {
            guard let key = entry["key"]?.string else { continue }
            let name = variables.resolve(key)
            guard !name.isEmpty, !query.contains(where: { $0.name == name }) else { continue }
            query.append((name, variables.resolve(entry["value"].flatMap(PostmanCollection.scalarText) ?? "")))
        }
        return query
    }

    /// `a=1&b=%20x` as the server reads a query: decoded, the first value of each name.
    private static func rawQuery(_ text: Substring) -> [(name: String, value: String)] {
        var query: [(name: String, value: String)] = []
        for pair in text.split(separator: "&") {
            let nameEnd = pair.firstIndex(of: "=") ?? pair.endIndex
            let name = PercentDecoding.decodeLenient(String(pair[..<nameEnd]))
            let value =
                nameEnd < pair.endIndex
                ? PercentDecoding.decodeLenient(String(pair[pair.index(after: nameEnd)...])) : ""
            if !name.isEmpty, !query.contains(where: { $0.name == name }) { query.append((name, value)) }
        }
        return query
    }

    /// The path of a URL without its query: after `scheme://` and the host (which may be an
    /// unresolved `{{baseUrl}}`), or the text itself when it starts with `/`.
    static func pathTemplate(ofURL text: String) -> PathTemplate? {
        var rest = Substring(text)
        if let scheme = rest.firstRange(of: "://"), !rest[..<scheme.lowerBound].contains("/") {
            rest = rest[scheme.upperBound...]
        }
        if !rest.hasPrefix("/") { rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/" }
        let segments = rest.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(segmentParts)
        if segments.contains(where: { $0 == [.literal(".")] || $0 == [.literal("..")] }) { return nil }
        return PathTemplate(segments: segments)
    }

    /// `:id`, a whole `{{id}}` left unresolved and `{id}` are parameters; `{{v}}` inside a
    /// segment (`v{{v}}.json`) a parameter within it; the rest literal text.
    static func segmentParts(_ segment: Substring) -> [PathTemplate.Part] {
        if segment.count > 1, segment.hasPrefix(":") { return [.parameter(String(segment.dropFirst()))] }
        if segment.count > 2, segment.hasPrefix("{"), segment.hasSuffix("}"), !segment.hasPrefix("{{"),
            !segment.dropFirst().dropLast().contains(where: { $0 == "{" || $0 == "}" })
        {
            return [.parameter(String(segment.dropFirst().dropLast()))]
        }
        var parts: [PathTemplate.Part] = []
        var rest = segment
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            if open.lowerBound > rest.startIndex { parts.append(.literal(String(rest[..<open.lowerBound]))) }
            parts.append(.parameter(String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty || parts.isEmpty { parts.append(.literal(String(rest))) }
        return parts
    }
}
