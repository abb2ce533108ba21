import Foundation
import HTTP1

/// Turns one parsed stub file into compiled stubs, collecting every problem instead of stopping
/// at the first, each with its JSON path and position. Knows the contract in stub-format.md.
struct StubDecoder {
    /// Reads the files a `bodyFile` names; bounded to the stub folder.
    let bodyFiles: BodyFileReader
    /// The file as shown in messages, and its folder on disk (bodyFile paths are relative to it).
    let displayPath: String
    let fileURL: URL
    /// Where the stub at an index came from: the file, or (for the admin API) a runtime id.
    let makeSource: (Int) -> StubSource
    private(set) var problems: [StubProblem] = []

    init(displayPath: String, fileURL: URL, bodyFiles: BodyFileReader, makeSource: ((Int) -> StubSource)? = nil) {
        self.displayPath = displayPath
        self.fileURL = fileURL
        self.bodyFiles = bodyFiles
        self.makeSource = makeSource ?? { [displayPath] in .file(path: displayPath, index: $0) }
    }

    static let stubKeys = ["name", "priority", "request", "response", "responses", "after", "scenario"]
    static let requestKeys = ["method", "path", "pathPattern", "host", "query", "headers", "body"]
    static let responseKeys = ["status", "headers", "body", "bodyFile", "bodyBase64", "template", "delay", "fault", "dribble"]
    static let matcherKeys = ["equals", "contains", "matches", "present", "absent", "caseInsensitive"]
    static let bodyMatcherKeys = ["json", "jsonEquals", "equals", "contains", "matches", "form", "caseInsensitive"]
    /// Headers the server owns; a stub's value would break framing or the connection.
    static let framingHeaders = ["Content-Length", "Transfer-Encoding", "Connection"]
    static let serverHeaders = ["Date", "Server"]

    // MARK: Problems

    mutating func error(_ path: String, _ node: JSONNode?, _ message: String) {
        problems.append(StubProblem(.error, file: displayPath, position: node?.position, jsonPath: path, message: message))
    }

    mutating func warning(_ path: String, _ position: SourcePosition?, _ message: String) {
        problems.append(StubProblem(.warning, file: displayPath, position: position, jsonPath: path, message: message))
    }

    /// Checks an object's keys against the contract; `$schema` and `_`-prefixed keys are
    /// comments. Returns false when the node is not an object.
    mutating func checkKeys(_ node: JSONNode, _ path: String, allowed: [String], what: String) -> Bool {
        guard let members = node.members else {
            error(path, node, "expected \(what) (an object), found \(node.kindDescription)")
            return false
        }
        for member in members where !allowed.contains(member.key) && !Self.isComment(member.key) {
            var message = "unknown key \"\(member.key)\" in \(what)"
            if let suggestion = Suggestion.closest(to: member.key, among: allowed) {
                message += "; did you mean \"\(suggestion)\"?"
            } else {
                message += "; expected one of: " + allowed.joined(separator: ", ")
            }
            problems.append(StubProblem(.error, file: displayPath, position: member.keyPosition,
                                        jsonPath: path + Self.pathComponent(member.key), message: message))
        }
        return true
    }

    static func isComment(_ key: String) -> Bool { key == "$schema" || key.hasPrefix("_") }

    static func pathComponent(_ key: String) -> String {
        key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" } && !key.isEmpty
            ? ".\(key)" : "[\(JSONSerializer.quoted(key))]"
    }

    // MARK: File shapes

    /// One stub object, an array of them, or `{"stubs": [...]}`.
    mutating func decodeFile(_ root: JSONNode, firstOrder: Int) -> [Stub] {
        let list: [JSONNode]
        let basePath: String
        if let elements = root.elements {
            list = elements
            basePath = "$"
        } else if let members = root.members, members.contains(where: { $0.key == "stubs" }) {
            _ = checkKeys(root, "$", allowed: ["stubs"], what: "a stub file with \"stubs\"")
            guard let elements = root["stubs"]?.elements else {
                error("$.stubs", root["stubs"], "expected an array of stubs, found \(root["stubs"]!.kindDescription)")
                return []
            }
            list = elements
            basePath = "$.stubs"
        } else if root.members != nil {
            return decodeStub(root, "$", index: 0, order: firstOrder).map { [$0] } ?? []
        } else {
            error("$", root, "expected a stub object, an array of stubs, or {\"stubs\": [...]}, found \(root.kindDescription)")
            return []
        }
        var stubs: [Stub] = []
        for (index, node) in list.enumerated() {
            if let stub = decodeStub(node, "\(basePath)[\(index)]", index: index, order: firstOrder + index) {
                stubs.append(stub)
            }
        }
        return stubs
    }

    // MARK: Stub

    mutating func decodeStub(_ node: JSONNode, _ path: String, index: Int, order: Int) -> Stub? {
        let before = problems.count
        guard checkKeys(node, path, allowed: Self.stubKeys, what: "a stub") else { return nil }
        var name = "\(displayPath)#\(index)"
        if let nameNode = node["name"] {
            if let s = nameNode.string, !s.isEmpty { name = s }
            else { error(path + ".name", nameNode, "expected a non-empty string, found \(nameNode.kindDescription)") }
        }
        var priority = 5
        if let p = node["priority"] {
            if let n = integer(p), n >= 1 { priority = n }
            else { error(path + ".priority", p, "expected a whole number of 1 or more (1 is the highest priority), found \(p.kindDescription)") }
        }
        let request = node["request"].map { decodeRequest($0, path + ".request") } ?? RequestPattern()
        let parameters = request?.path?.parameterNames ?? []
        var responses: [StubResponse] = []
        switch (node["response"], node["responses"]) {
        case (let single?, nil):
            if let response = decodeResponse(single, path + ".response", pathParameters: parameters) { responses = [response] }
        case (nil, let list?):
            if let elements = list.elements, !elements.isEmpty {
                for (i, element) in elements.enumerated() {
                    if let response = decodeResponse(element, "\(path).responses[\(i)]", pathParameters: parameters) {
                        responses.append(response)
                    }
                }
            } else {
                error(path + ".responses", list, "expected a non-empty array of responses, found \(list.kindDescription)")
            }
        case (_?, let list?):
            error(path + ".responses", list, "a stub has either \"response\" or \"responses\" (a sequence), not both")
        case (nil, nil):
            error(path, node, "a stub needs a \"response\" (what to answer) or \"responses\" (a sequence)")
        }
        var afterLast = SequenceEnd.repeatLast
        if let after = node["after"] {
            if node["responses"] == nil {
                error(path + ".after", after, "\"after\" applies to a \"responses\" sequence")
            } else if let s = after.string, let value = SequenceEnd(rawValue: s) {
                afterLast = value
            } else {
                error(path + ".after", after, "expected \"repeatLast\" or \"cycle\", found \(after.kindDescription)")
            }
        }
        let scenario = node["scenario"].flatMap { decodeScenario($0, path + ".scenario") }
        guard problems.count == before || !problems[before...].contains(where: { $0.severity == .error }),
              let request, !responses.isEmpty else { return nil }
        return Stub(name: name, source: makeSource(index), priority: priority, request: request,
                    responses: responses, afterLast: afterLast, scenario: scenario, order: order, definition: node)
    }

    mutating func decodeScenario(_ node: JSONNode, _ path: String) -> ScenarioRule? {
        guard checkKeys(node, path, allowed: ["name", "when", "then"], what: "a scenario") else { return nil }
        var values: [String: String] = [:]
        for key in ["name", "when", "then"] {
            guard let value = node[key] else { continue }
            if let s = value.string, !s.isEmpty { values[key] = s }
            else { error(path + "." + key, value, "expected a non-empty string, found \(value.kindDescription)") }
        }
        guard let name = values["name"] else {
            if node["name"] == nil { error(path, node, "a scenario needs a \"name\"") }
            return nil
        }
        return ScenarioRule(name: name, when: values["when"] ?? ScenarioRule.initialState, then: values["then"])
    }

    func integer(_ node: JSONNode) -> Int? {
        guard let n = node.number, n.value.rounded() == n.value, abs(n.value) < 1e15 else { return nil }
        return Int(n.value)
    }

    // MARK: Request

    mutating func decodeRequest(_ node: JSONNode, _ path: String) -> RequestPattern? {
        guard checkKeys(node, path, allowed: Self.requestKeys, what: "the request conditions") else { return nil }
        var methods: [String]?
        if let m = node["method"] { methods = decodeMethods(m, path + ".method") }
        var pathPattern: PathPattern?
        if let p = node["path"], let q = node["pathPattern"] {
            _ = p
            error(path + ".pathPattern", q, "use either \"path\" or \"pathPattern\", not both")
        } else if let p = node["path"] {
            pathPattern = decodePath(p, path + ".path")
        } else if let q = node["pathPattern"] {
            if let source = q.string {
                pathPattern = compileRegex(source, q, path + ".pathPattern").map { .regex($0) }
            } else {
                error(path + ".pathPattern", q, "expected a regular expression as a string, found \(q.kindDescription)")
            }
        }
        let host = node["host"].flatMap { decodeMatcher($0, path + ".host") }
        let query = node["query"].map { decodeMatcherMap($0, path + ".query", what: "query parameters") } ?? []
        let headers = node["headers"].map { decodeMatcherMap($0, path + ".headers", what: "request headers") } ?? []
        for (name, _) in headers where !Self.isToken(name) {
            error(path + ".headers" + Self.pathComponent(name), node["headers"], "\"\(name)\" is not a valid header name")
        }
        let body = node["body"].flatMap { decodeBodyMatcher($0, path + ".body") }
        return RequestPattern(methods: methods, path: pathPattern, host: host, query: query, headers: headers, body: body)
    }

    mutating func decodeMethods(_ node: JSONNode, _ path: String) -> [String]? {
        if let s = node.string {
            if s == "ANY" { return nil }
            guard Self.isToken(s) else {
                error(path, node, "\"\(s)\" is not an HTTP method (a token such as GET or POST)")
                return nil
            }
            if s != s.uppercased(), ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].contains(s.uppercased()) {
                warning(path, node.position, "methods are case-sensitive: \"\(s)\" will not match \(s.uppercased()) requests")
            }
            return [s]
        }
        if let elements = node.elements, !elements.isEmpty {
            var methods: [String] = []
            for (i, element) in elements.enumerated() {
                guard let s = element.string, Self.isToken(s), s != "ANY" else {
                    error("\(path)[\(i)]", element, "expected an HTTP method such as \"GET\", found \(element.kindDescription)")
                    continue
                }
                methods.append(s)
            }
            return methods
        }
        error(path, node, "expected a method (\"GET\"), an array of methods ([\"GET\", \"HEAD\"]) or \"ANY\", found \(node.kindDescription)")
        return nil
    }

    mutating func decodePath(_ node: JSONNode, _ path: String) -> PathPattern? {
        guard let source = node.string else {
            error(path, node, "expected a path such as \"/v1/users/{id}\", found \(node.kindDescription)")
            return nil
        }
        guard source.hasPrefix("/") else {
            error(path, node, "a path starts with \"/\" (found \"\(source)\")")
            return nil
        }
        if source == "/__admin" || source.hasPrefix("/__admin/") {
            error(path, node, "paths under /__admin/ belong to the admin API; pick another path")
            return nil
        }
        if source.contains("?") {
            error(path, node, "the path must not contain a query; put parameters in \"query\": {\"name\": \"value\"}")
            return nil
        }
        var segments: [PathPattern.Segment] = []
        var names = Set<String>()
        let parts = PathPattern.split(source)
        for (i, part) in parts.enumerated() {
            if part == "**" {
                guard i == parts.count - 1 else {
                    error(path, node, "\"**\" matches the rest of the path, so it must be the last segment")
                    return nil
                }
                segments.append(.rest)
            } else if part == "*" {
                segments.append(.wildcard)
            } else if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                let name = String(part.dropFirst().dropLast())
                guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                    error(path, node, "\"{\(name)}\": a parameter name uses letters, digits, '_' and '-'")
                    return nil
                }
                guard names.insert(name).inserted else {
                    error(path, node, "the parameter {\(name)} appears twice")
                    return nil
                }
                segments.append(.parameter(name))
            } else if part.contains("{") || part.contains("}") {
                error(path, node, "\"\(part)\": a {parameter} must be a whole segment, like /users/{id}")
                return nil
            } else if part.contains("*") {
                error(path, node, "\"\(part)\": '*' matches a whole segment; for partial matches use \"pathPattern\"")
                return nil
            } else {
                guard let decoded = PercentDecoding.decode(part, strict: true) else {
                    error(path, node, "\"\(part)\" has a '%' not followed by two hex digits")
                    return nil
                }
                segments.append(.literal(decoded))
            }
        }
        return .segments(source: source, segments)
    }

    mutating func compileRegex(_ source: String, _ node: JSONNode, _ path: String, caseInsensitive: Bool = false) -> CompiledRegex? {
        do {
            return try CompiledRegex(source, caseInsensitive: caseInsensitive)
        } catch let syntax as RegexSyntaxError {
            self.error(path, node, "invalid regular expression \"\(source)\": \(syntax.message) (at character \(syntax.offset))")
            return nil
        } catch {
            self.error(path, node, "invalid regular expression \"\(source)\": \(error)")
            return nil
        }
    }

    mutating func decodeMatcherMap(_ node: JSONNode, _ path: String, what: String) -> [(name: String, matcher: ValueMatcher)] {
        guard let members = node.members else {
            error(path, node, "expected an object of \(what), name to matcher, found \(node.kindDescription)")
            return []
        }
        var result: [(name: String, matcher: ValueMatcher)] = []
        // Names here are data (a query parameter may well start with "_"), not comments.
        for member in members {
            if let matcher = decodeMatcher(member.value, path + Self.pathComponent(member.key)) {
                result.append((member.key, matcher))
            }
        }
        return result
    }

    /// A string (exact) or an object with exactly one of the matcher keys.
    mutating func decodeMatcher(_ node: JSONNode, _ path: String) -> ValueMatcher? {
        if let s = node.string { return ValueMatcher(.equals(s)) }
        guard node.members != nil else {
            error(path, node, "expected a string or a matcher such as {\"contains\": \"json\"}, found \(node.kindDescription)")
            return nil
        }
        guard checkKeys(node, path, allowed: Self.matcherKeys, what: "a matcher") else { return nil }
        let caseInsensitive = decodeCaseInsensitive(node, path)
        let operators = Self.matcherKeys.filter { $0 != "caseInsensitive" && node[$0] != nil }
        guard operators.count == 1, let op = operators.first, let operand = node[op] else {
            error(path, node, operators.isEmpty
                  ? "a matcher needs one of: equals, contains, matches, present, absent"
                  : "a matcher takes exactly one of \(operators.joined(separator: ", ")); split it into separate stubs or use \"matches\"")
            return nil
        }
        switch op {
        case "present", "absent":
            guard operand.bool == true else {
                error(path + "." + op, operand, "expected true, found \(operand.kindDescription); use \(op == "present" ? "absent" : "present"): true for the opposite")
                return nil
            }
            return ValueMatcher(op == "present" ? .present : .absent)
        default:
            guard let s = operand.string else {
                error(path + "." + op, operand, "expected a string, found \(operand.kindDescription)")
                return nil
            }
            switch op {
            case "equals": return ValueMatcher(.equals(s), caseInsensitive: caseInsensitive)
            case "contains": return ValueMatcher(.contains(s), caseInsensitive: caseInsensitive)
            default:
                return compileRegex(s, operand, path + ".matches", caseInsensitive: caseInsensitive)
                    .map { ValueMatcher(.matches($0), caseInsensitive: caseInsensitive) }
            }
        }
    }

    mutating func decodeCaseInsensitive(_ node: JSONNode, _ path: String) -> Bool {
        guard let flag = node["caseInsensitive"] else { return false }
        guard let b = flag.bool else {
            error(path + ".caseInsensitive", flag, "expected true or false, found \(flag.kindDescription)")
            return false
        }
        return b
    }

    mutating func decodeBodyMatcher(_ node: JSONNode, _ path: String) -> BodyMatcher? {
        guard node.members != nil else {
            error(path, node, "expected a body matcher such as {\"json\": {...}} or {\"contains\": \"text\"}, found \(node.kindDescription)")
            return nil
        }
        guard checkKeys(node, path, allowed: Self.bodyMatcherKeys, what: "a body matcher") else { return nil }
        let operators = Self.bodyMatcherKeys.filter { $0 != "caseInsensitive" && node[$0] != nil }
        guard operators.count == 1, let op = operators.first, let operand = node[op] else {
            error(path, node, operators.isEmpty
                  ? "a body matcher needs one of: json, jsonEquals, equals, contains, matches, form"
                  : "a body matcher takes exactly one of \(operators.joined(separator: ", "))")
            return nil
        }
        switch op {
        case "json", "jsonEquals":
            if node["caseInsensitive"] != nil {
                error(path + ".caseInsensitive", node["caseInsensitive"], "caseInsensitive applies to equals, contains and matches, not to \(op)")
            }
            return op == "json" ? .json(operand) : .jsonEquals(operand)
        case "form":
            if node["caseInsensitive"] != nil {
                error(path + ".caseInsensitive", node["caseInsensitive"], "put caseInsensitive on each field's matcher inside \"form\"")
            }
            return .form(decodeMatcherMap(operand, path + ".form", what: "form fields"))
        default:
            var textNode: [JSONNode.Member] = [JSONNode.Member(key: op, keyPosition: node.position, value: operand)]
            if let flag = node["caseInsensitive"] {
                textNode.append(JSONNode.Member(key: "caseInsensitive", keyPosition: flag.position, value: flag))
            }
            return decodeMatcher(JSONNode(.object(textNode), at: node.position), path).map { .text($0) }
        }
    }

    // MARK: Response

    mutating func decodeResponse(_ node: JSONNode, _ path: String, pathParameters: Set<String>) -> StubResponse? {
        guard checkKeys(node, path, allowed: Self.responseKeys, what: "the response") else { return nil }
        var status = 200
        if let s = node["status"] {
            if let n = integer(s), (100...599).contains(n) { status = n }
            else { error(path + ".status", s, "expected an HTTP status from 100 to 599, found \(s.kindDescription)") }
        }
        var headers = HTTPHeaders()
        if let h = node["headers"] { headers = decodeResponseHeaders(h, path + ".headers") }

        let bodyForms = ["body", "bodyFile", "bodyBase64"].filter { node[$0] != nil }
        var body: [UInt8] = []
        var defaultContentType: String?
        if bodyForms.count > 1 {
            error(path + "." + bodyForms[1], node[bodyForms[1]], "a response has one body: \(bodyForms.joined(separator: " and ")) are both set")
        } else if let b = node["body"] {
            if let s = b.string {
                body = Array(s.utf8)
                defaultContentType = "text/plain; charset=utf-8"
            } else {
                body = JSONSerializer.bytes(b)
                defaultContentType = "application/json"
            }
        } else if let f = node["bodyFile"] {
            if let relative = f.string {
                switch bodyFiles.read(relative, from: fileURL) {
                case .success(let bytes):
                    body = bytes
                    defaultContentType = ContentTypes.forFileName(relative)
                case .failure(let failure):
                    error(path + ".bodyFile", f, failure.message)
                }
            } else {
                error(path + ".bodyFile", f, "expected a file path relative to this stub file, found \(f.kindDescription)")
            }
        } else if let b64 = node["bodyBase64"] {
            if let s = b64.string, let data = Data(base64Encoded: s, options: .ignoreUnknownCharacters) {
                body = Array(data)
                defaultContentType = "application/octet-stream"
            } else {
                error(path + ".bodyBase64", b64, "expected the body bytes as a base64 string")
            }
        }
        if let defaultContentType, !headers.contains("Content-Type") {
            headers.add("Content-Type", defaultContentType)
        }
        if !body.isEmpty && (status < 200 || status == 204 || status == 304) {
            warning(path + ".status", node["status"]?.position, "a \(status) response has no body; the body is not sent")
        }

        let delay = node["delay"].flatMap { decodeDelay($0, path + ".delay") }
        var fault: Fault?
        if let f = node["fault"] {
            if let s = f.string, let value = Fault(rawValue: s) { fault = value }
            else { error(path + ".fault", f, "expected one of \(Fault.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")), found \(f.kindDescription)") }
        }
        let dribble = node["dribble"].flatMap { decodeDribble($0, path + ".dribble") }
        if fault != nil, dribble != nil {
            error(path + ".dribble", node["dribble"], "a response with a fault sends no body, so it cannot dribble")
        }
        let prepared = PreparedResponse(status: status, headers: headers, body: body)
        var template: ResponseTemplate?
        if let flag = node["template"] {
            if flag.bool == nil {
                error(path + ".template", flag, "expected true or false, found \(flag.kindDescription)")
            } else if flag.bool == true {
                template = compileTemplate(node, path, prepared: prepared, pathParameters: pathParameters)
            }
        }
        return StubResponse(prepared: prepared, delay: delay, fault: fault, dribble: dribble, template: template)
    }

    /// `"template": true`: body and header values become templates, checked now so an unknown
    /// variable is a load error with its JSON path, never an empty string at run time.
    mutating func compileTemplate(_ node: JSONNode, _ path: String, prepared: PreparedResponse,
                                  pathParameters: Set<String>) -> ResponseTemplate? {
        let before = problems.count
        var uses = false
        var headers: [(name: String, value: String, template: Template?)] = []
        let headerNodes = node["headers"]?.members ?? []
        for field in prepared.headers {
            guard field.value.contains("{{") else { headers.append((field.name, field.value, nil)); continue }
            var template = Template()
            let member = headerNodes.first { $0.key.lowercased() == field.name.lowercased() }
            for failure in Template.scan(field.value, pathParameters: pathParameters, jsonString: false, into: &template) {
                error(path + ".headers" + Self.pathComponent(field.name), member?.value, failure.message)
            }
            uses = true
            headers.append((field.name, field.value, template))
        }
        var body: Template?
        if let b = node["body"] {
            if let text = b.string {
                if text.contains("{{") {
                    var template = Template()
                    for failure in Template.scan(text, pathParameters: pathParameters, jsonString: false, into: &template) {
                        error(path + ".body", b, failure.message)
                    }
                    body = template
                }
            } else {
                var failures: [(path: String, node: JSONNode, error: TemplateError)] = []
                let template = Template.json(b, pathParameters: pathParameters, path: path + ".body", errors: &failures)
                for failure in failures { error(failure.path, failure.node, failure.error.message) }
                if template.hasVariables || !failures.isEmpty { body = template }
            }
        } else if let f = node["bodyFile"], prepared.body.contains(UInt8(ascii: "{")) {
            // A JSON file is templated as JSON (values escaped, so the body stays valid JSON);
            // any other file as text.
            let isJSON = prepared.headers["Content-Type"]?.lowercased().contains("json") ?? false
            if isJSON, let parsed = try? JSONParser.parse(prepared.body) {
                var failures: [(path: String, node: JSONNode, error: TemplateError)] = []
                let template = Template.json(parsed, pathParameters: pathParameters, path: path + ".bodyFile", errors: &failures)
                for failure in failures { error(path + ".bodyFile", f, "in the file at \(failure.node.position): \(failure.error.message)") }
                if template.hasVariables { body = template }
            } else if let text = String(bytes: prepared.body, encoding: .utf8), text.contains("{{") {
                var template = Template()
                for failure in Template.scan(text, pathParameters: pathParameters, jsonString: false, into: &template) {
                    error(path + ".bodyFile", f, failure.message)
                }
                body = template
            }
        } else if node["bodyBase64"] != nil {
            error(path + ".template", node["template"], "templates apply to text bodies; bodyBase64 is bytes")
        }
        if body != nil { uses = true }
        guard problems.count == before else { return nil }
        if !uses {
            warning(path + ".template", node["template"]?.position, "template is on but neither the body nor a header uses {{...}}")
            return nil
        }
        return ResponseTemplate(status: prepared.status, headers: headers, body: body, staticBody: prepared.body, prepared: prepared)
    }

    mutating func decodeResponseHeaders(_ node: JSONNode, _ path: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        guard let members = node.members else {
            error(path, node, "expected an object of header name to value (or to an array of values), found \(node.kindDescription)")
            return headers
        }
        for member in members {
            let memberPath = path + Self.pathComponent(member.key)
            guard Self.isToken(member.key) else {
                problems.append(StubProblem(.error, file: displayPath, position: member.keyPosition, jsonPath: memberPath,
                                            message: "\"\(member.key)\" is not a valid header name"))
                continue
            }
            if (Self.framingHeaders + Self.serverHeaders).contains(where: { $0.lowercased() == member.key.lowercased() }) {
                let why = Self.framingHeaders.contains(where: { $0.lowercased() == member.key.lowercased() })
                    ? "the server sets it from the body and the connection state; a stub's value would break framing"
                    : "the server sets it on every response"
                warning(memberPath, member.keyPosition, "\(member.key) is dropped: \(why)")
                continue
            }
            let values: [JSONNode] = member.value.elements ?? [member.value]
            for (i, value) in values.enumerated() {
                let valuePath = member.value.elements == nil ? memberPath : "\(memberPath)[\(i)]"
                guard let s = value.string ?? value.number?.text else {
                    error(valuePath, value, "expected a header value as a string, found \(value.kindDescription)")
                    continue
                }
                if s.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                    error(valuePath, value, "a header value must not contain line breaks or NUL")
                    continue
                }
                headers.add(member.key, s)
            }
        }
        return headers
    }

    mutating func decodeDelay(_ node: JSONNode, _ path: String) -> Delay? {
        if let n = integer(node), n >= 0 { return .fixed(n) }
        if node.members != nil, checkKeys(node, path, allowed: ["min", "max"], what: "a delay range") {
            if let lo = node["min"].flatMap(integer), let hi = node["max"].flatMap(integer), lo >= 0, lo <= hi {
                return .uniform(min: lo, max: hi)
            }
            error(path, node, "a delay range needs whole milliseconds with 0 <= min <= max, e.g. {\"min\": 100, \"max\": 800}")
            return nil
        }
        if node.members == nil {
            error(path, node, "expected milliseconds (a whole number of 0 or more) or {\"min\": 100, \"max\": 800}, found \(node.kindDescription)")
        }
        return nil
    }

    mutating func decodeDribble(_ node: JSONNode, _ path: String) -> Dribble? {
        guard checkKeys(node, path, allowed: ["chunks", "durationMs"], what: "dribble") else { return nil }
        guard let chunks = node["chunks"].flatMap(integer), chunks >= 1,
              let duration = node["durationMs"].flatMap(integer), duration >= 0 else {
            error(path, node, "dribble needs \"chunks\" (1 or more) and \"durationMs\" (0 or more), e.g. {\"chunks\": 10, \"durationMs\": 3000}")
            return nil
        }
        return Dribble(chunks: chunks, durationMilliseconds: duration)
    }

    /// RFC 9110 token: what method and field names are made of.
    static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}
