#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine

/// Reads WireMock mapping JSON (a file, or an admin API body) into checked `WireMockMapping`s,
/// every problem with its file, line, column and JSON path. The keys follow WireMock's schema
/// (`../shared/corpora/wiremock/schema`); `WireMockSchemaTests` checks every key of it is
/// either read here or listed as unsupported with a reason.
package enum WireMockReader {
    package static let mappingKeys = [
        "id", "uuid", "name", "request", "response", "priority", "scenarioName",
        "requiredScenarioState", "newScenarioState", "metadata", "persistent", "insertionIndex",
        "serveEventListeners", "postServeActions",
    ]
    package static let unsupportedMappingKeys: [String: String] = [:]
    package static let requestKeys = [
        "method", "url", "urlPattern", "urlPath", "urlPathPattern", "urlPathTemplate", "pathParameters",
        "queryParameters", "headers", "cookies", "formParameters", "basicAuthCredentials", "bodyPatterns",
        "host", "port", "scheme", "clientIp", "multipartPatterns",
    ]
    package static let unsupportedRequestKeys: [String: String] = [
        "customMatcher": "custom matchers are Java extensions; this condition never matches"
    ]
    static let urlKeys = ["url", "urlPattern", "urlPath", "urlPathPattern", "urlPathTemplate"]

    /// One mapping, or `{"mappings": [...]}` (with `meta` and, for imports, `importOptions`).
    /// A mapping with an error is left out and recorded in the context's `skipped`.
    package static func readFile(_ c: inout WireMockContext, _ parsed: JSONNode) -> [WireMockMapping] {
        // WireMock reads a key written twice as Jackson does: the last value wins. So does this
        // dialect, saying so, and so does what `import wiremock` writes (the native format
        // refuses a repeated key).
        let (root, duplicates) = parsed.mergingDuplicateKeys()
        for duplicate in duplicates {
            c.warning(
                "\(duplicate.objectPath).\(duplicate.key)",
                duplicate.position,
                "\"\(duplicate.key)\" is written twice in this object; the last value is used, as WireMock does"
            )
        }
        if let list = root["mappings"] {
            _ = c.checkKeys(
                root,
                "$",
                supported: ["mappings", "meta", "importOptions"],
                unsupported: [:],
                what: "a mappings file"
            )
            guard let elements = list.elements else {
                let before = c.problems.count
                c.error("$.mappings", list, "expected an array of mappings, found \(list.kindDescription)")
                c.skipIfFailed("$", root.position, since: before)
                return []
            }
            var mappings: [WireMockMapping] = []
            for (index, element) in elements.enumerated() {
                if c.stopsAtErrorLimit(before: index, of: elements.count, what: "mapping") { break }
                if let mapping = readMapping(&c, element, "$.mappings[\(index)]") { mappings.append(mapping) }
            }
            return mappings
        }
        return readMapping(&c, root, "$").map { [$0] } ?? []
    }

    package static func readMapping(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> WireMockMapping? {
        let before = c.problems.count
        let mapping = readCheckedMapping(&c, node, path)
        if mapping == nil { c.skipIfFailed(path, node.position, since: before) }
        return mapping
    }

    /// The mapping, or nil after an error (or the warning that a message mapping is not loaded).
    private static func readCheckedMapping(
        _ c: inout WireMockContext,
        _ node: JSONNode,
        _ path: String
    ) -> WireMockMapping? {
        guard node.members != nil else {
            c.error(
                path,
                node,
                "expected a mapping (an object with \"request\" and \"response\"), found \(node.kindDescription)"
            )
            return nil
        }
        if node["trigger"] != nil || node["actions"] != nil, node["request"] == nil {
            c.warning(path, node.position, "a message (WebSocket) mapping: not supported, so it is not loaded")
            return nil
        }
        guard node["request"] != nil || node["response"] != nil else {
            c.error(path, node, "not a WireMock mapping: it has neither \"request\" nor \"response\"")
            return nil
        }
        let before = c.problems.count
        _ = c.checkKeys(node, path, supported: mappingKeys, unsupported: unsupportedMappingKeys, what: "a mapping")
        var mapping = WireMockMapping(node: node, path: path)
        mapping.id = readID(&c, node, path)
        if let name = node["name"] {
            if let s = WireMockScalars.string(name) {
                mapping.name = s
            } else {
                c.error(path + ".name", name, "expected a string")
            }
        }
        if let p = node["priority"] {
            if let n = WireMockScalars.integer(p), n >= 1 {
                mapping.priority = n
                if WireMockScalars.isFraction(p) {
                    let written = p.string ?? p.number?.text ?? ""
                    c.warning(path + ".priority", p.position, "priority \(written) is read as \(n), as WireMock does")
                }
            } else {
                c.error(
                    path + ".priority",
                    p,
                    "expected a whole number of 1 or more (1 is the highest priority), found \(p.kindDescription)"
                )
            }
        }
        if let request = node["request"] {
            if let read = readRequest(&c, request, path + ".request") { mapping.request = read }
        }
        if let response = node["response"] {
            if let read = WireMockResponseReader.read(&c, response, path + ".response", request: mapping.request) {
                mapping.response = read
            }
        }
        mapping.scenario = readScenario(&c, node, path)
        mapping.webhooks = WireMockWebhookReader.read(&c, node, path)
        let failed = c.problems[before...].contains { $0.severity == .error }
        return failed ? nil : mapping
    }

    /// `id`, or its alias `uuid`: a UUID, as WireMock requires.
    static func readID(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> String? {
        var id: String?
        for key in ["id", "uuid"] {
            guard let value = node[key] else { continue }
            // Jackson trims a UUID's text before reading it (a real folder has "...463\n").
            guard let s = value.string.map(trimmedUUIDText), UUID(uuidString: s) != nil else {
                c.error(
                    path + "." + key,
                    value,
                    "expected a UUID such as \"76ada7b0-49ae-4229-91c4-396a36f18e09\", found \(value.kindDescription)"
                )
                continue
            }
            if let first = id, first.lowercased() != s.lowercased() {
                c.error(path + "." + key, value, "\"id\" and \"uuid\" differ; they are the same thing, so give one")
            }
            id = id ?? s.lowercased()
        }
        return id
    }

    private static func trimmedUUIDText(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let kept = scalars.drop { $0.properties.isWhitespace }.reversed().drop { $0.properties.isWhitespace }.reversed()
        return String(String.UnicodeScalarView(kept))
    }

    static func readScenario(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> ScenarioRule? {
        var values: [String: String] = [:]
        for key in ["scenarioName", "requiredScenarioState", "newScenarioState"] {
            guard let value = node[key] else { continue }
            if let s = WireMockScalars.string(value), !s.isEmpty {
                values[key] = s
            } else {
                c.error(path + "." + key, value, "expected a non-empty string, found \(value.kindDescription)")
            }
        }
        guard let name = values["scenarioName"] else {
            if values["requiredScenarioState"] != nil || values["newScenarioState"] != nil {
                c.warning(path, node.position, "scenario states without \"scenarioName\" are ignored")
            }
            return nil
        }
        return ScenarioRule(name: name, when: values["requiredScenarioState"], then: values["newScenarioState"])
    }

    package static func readRequest(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> WireMockRequest? {
        guard
            c.checkKeys(
                node,
                path,
                supported: requestKeys,
                unsupported: unsupportedRequestKeys,
                what: "a request pattern"
            )
        else { return nil }
        var request = WireMockRequest()
        if let method = node["method"] { readMethod(&c, method, path + ".method", into: &request) }
        let urls = urlKeys.filter { node[$0] != nil }
        if urls.count > 1 {
            c.error(
                path + "." + urls[1],
                node[urls[1]],
                """
                a request pattern takes one of url, urlPattern, urlPath, urlPathPattern, urlPathTemplate; found \
                \(urls.joined(separator: " and "))
                """
            )
        } else if let key = urls.first, let value = node[key] {
            request.url = readURL(&c, key, value, path + "." + key)
        }
        if let parameters = node["pathParameters"] {
            request.pathParameters = readPathParameters(&c, parameters, path + ".pathParameters", url: request.url)
        }
        request.query = named(&c, node["queryParameters"], path + ".queryParameters", what: "query parameters")
        request.headers = named(&c, node["headers"], path + ".headers", what: "headers")
        request.cookies = named(&c, node["cookies"], path + ".cookies", what: "cookies")
        request.form = named(&c, node["formParameters"], path + ".formParameters", what: "form parameters")
        if let auth = node["basicAuthCredentials"] {
            if let user = auth["username"]?.string, let password = auth["password"]?.string {
                request.basicAuth = (user, password)
            } else {
                c.error(path + ".basicAuthCredentials", auth, "expected {\"username\": \"...\", \"password\": \"...\"}")
            }
        }
        if let body = node["bodyPatterns"] {
            if let elements = body.elements {
                request.body = elements.enumerated().compactMap {
                    WireMockPatternReader.pattern(&c, $0.element, "\(path).bodyPatterns[\($0.offset)]")
                }
            } else {
                c.error(path + ".bodyPatterns", body, "expected an array of matchers, found \(body.kindDescription)")
            }
        }
        if let multipart = node["multipartPatterns"] {
            request.multipart = WireMockMultipartPattern.read(&c, multipart, path + ".multipartPatterns")
        }
        if let host = node["host"] {
            request.host =
                host.string.map { .equalTo($0.lowercased(), caseInsensitive: true) }
                ?? WireMockPatternReader.pattern(&c, host, path + ".host")
        }
        if let port = node["port"] {
            if let n = WireMockScalars.integer(port), (1...65535).contains(n) {
                request.port = n
            } else {
                c.error(path + ".port", port, "expected a port from 1 to 65535")
            }
        }
        if let scheme = node["scheme"] {
            if let s = scheme.string, s == "http" || s == "https" {
                request.scheme = s
            } else {
                c.error(path + ".scheme", scheme, "expected \"http\" or \"https\"")
            }
        }
        if let ip = node["clientIp"] {
            if let s = ip.string {
                request.clientIp = s
            } else {
                c.error(path + ".clientIp", ip, "expected an IP address as a string")
            }
        }
        for key in unsupportedRequestKeys.keys.sorted() where node[key] != nil { request.unsupported.append(key) }
        return request
    }

    static func readMethod(
        _ c: inout WireMockContext,
        _ node: JSONNode,
        _ path: String,
        into request: inout WireMockRequest
    ) {
        if let s = node.string {
            if s == "ANY" { return }
            guard HTTPToken.isToken(s) else {
                c.error(path, node, "\"\(s)\" is not an HTTP method")
                return
            }
            request.methods = [s]
            return
        }
        for key in ["oneOf", "noneOf"] {
            guard let list = node[key] else { continue }
            guard let methods = list.elements?.compactMap(\.string), methods.count == list.elements?.count,
                !methods.isEmpty,
                methods.allSatisfy(HTTPToken.isToken)
            else {
                c.error(path + "." + key, list, "expected an array of methods, such as [\"GET\", \"HEAD\"]")
                return
            }
            if key == "oneOf" { request.methods = methods } else { request.excludedMethods = methods }
            return
        }
        c.error(
            path,
            node,
            """
            expected a method (\"GET\", \"ANY\") or {\"oneOf\": [...]} / {\"noneOf\": [...]}, found \
            \(node.kindDescription)
            """
        )
    }

    static func readURL(
        _ c: inout WireMockContext,
        _ key: String,
        _ node: JSONNode,
        _ path: String
    ) -> WireMockRequest.URLMatch? {
        guard let s = node.string else {
            c.error(path, node, "expected a string, found \(node.kindDescription)")
            return nil
        }
        switch key {
        case "url", "urlPath":
            guard s.hasPrefix("/") else {
                c.error(path, node, "\(key) starts with \"/\" (found \"\(s)\")")
                return nil
            }
            if key == "urlPath", s.contains("?") {
                c.error(path, node, "urlPath is the path alone; put the query in \"url\" or in \"queryParameters\"")
                return nil
            }
            return key == "url" ? .url(s) : .urlPath(s)
        case "urlPattern", "urlPathPattern":
            guard let regex = WireMockPatternReader.compile(&c, s, node, path) else { return nil }
            return key == "urlPattern" ? .urlPattern(regex) : .urlPathPattern(regex)
        default:
            return WireMockPathTemplate.compile(&c, s, node, path).map { .urlPathTemplate(s, $0) }
        }
    }

    static func readPathParameters(
        _ c: inout WireMockContext,
        _ node: JSONNode,
        _ path: String,
        url: WireMockRequest.URLMatch?
    ) -> [(name: String, pattern: ContentPattern)] {
        guard case .urlPathTemplate(_, let template)? = url else {
            // WireMock writes `"pathParameters": {}` into every mapping it saves: nothing to check.
            if node.members?.isEmpty == true { return [] }
            c.error(path, node, "pathParameters need a urlPathTemplate (such as \"/users/{id}\") to name them")
            return []
        }
        guard let members = node.members else {
            c.error(path, node, "expected an object of parameter name to matcher")
            return []
        }
        var result: [(name: String, pattern: ContentPattern)] = []
        for member in members {
            let memberPath = path + DocumentProblem.pathComponent(member.key)
            guard template.parameterNames.contains(member.key) else {
                c.error(
                    memberPath,
                    member.value,
                    "the urlPathTemplate has no {\(member.key)}; it has "
                        + template.parameterNames.sorted().map { "{\($0)}" }.joined(separator: ", ")
                )
                continue
            }
            if let p = WireMockPatternReader.pattern(&c, member.value, memberPath) { result.append((member.key, p)) }
        }
        return result
    }

    static func named(
        _ c: inout WireMockContext,
        _ node: JSONNode?,
        _ path: String,
        what: String
    ) -> [(name: String, pattern: MultiValuePattern)] {
        guard let node else { return [] }
        guard let members = node.members else {
            c.error(path, node, "expected an object of \(what), name to matcher, found \(node.kindDescription)")
            return []
        }
        return members.compactMap { member in
            WireMockPatternReader.multiValue(&c, member.value, path + DocumentProblem.pathComponent(member.key)).map {
                (member.key, $0)
            }
        }
    }
}

/// `urlPathTemplate`: the OpenAPI subset of RFC 6570 WireMock takes, `/users/{id}`, where a
/// variable is a whole segment. Read by `PathTemplate` (the one reader of `{name}` paths) into
/// the engine's segment pattern; `*` is text here, as in WireMock.
enum WireMockPathTemplate {
    static func compile(_ c: inout WireMockContext, _ source: String, _ node: JSONNode, _ path: String) -> PathPattern?
    {
        guard let template = PathTemplate(source) else {
            c.error(path, node, "urlPathTemplate starts with \"/\"")
            return nil
        }
        switch template.segmentPattern(wildcards: false) {
        case .success(let pattern):
            return pattern
        case .failure(let problem):
            c.error(path, node, message(problem))
            return nil
        }
    }

    /// WireMock's words for what `PathTemplate` found.
    private static func message(_ problem: PathTemplate.SegmentProblem) -> String {
        switch problem {
        case .invalidName(let name):
            """
            {\(name)}: stubserver takes simple variables ({name}); RFC 6570 operators such as \
            {+name} or {name*} are not supported
            """
        case .repeatedName(let name):
            "{\(name)} appears twice"
        case .partialSegment(let segment), .partialWildcard(let segment):
            """
            \"\(segment)\": a {variable} must be a whole segment here (stubserver does not split segments \
            such as {name}.{ext})
            """
        case .badEscape(let segment):
            "\"\(segment)\" has a '%' not followed by two hex digits"
        case .restNotLast:
            "\"**\" must be the last segment"
        }
    }
}
