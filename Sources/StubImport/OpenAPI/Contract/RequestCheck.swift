import HTTP1
import JSON
import JSONSchema
import StubEngine

/// One request against the document, under the contract's lock: which operation it targets,
/// then its parameters, security and body, each departure a `ContractViolation`.
struct RequestCheck {
    let checker: OpenAPIContract.Checker
    let documentName: String
    private var violations: [ContractViolation] = []

    init(checker: OpenAPIContract.Checker, documentName: String) {
        self.checker = checker
        self.documentName = documentName
    }

    mutating func run(_ facts: RequestFacts) -> ContractReport {
        // Read through `facts` rather than copied out: a copy of the request retains each field.
        let method = facts.request.method
        guard let (routeIndex, pathValues) = checker.index.match(facts.request.path, method: method) else {
            let path = facts.request.path
            var message = "no path of \(documentName) matches \(path)"
            if let near = checker.routes.closest(to: path) { message += "; did you mean \(near)?" }
            return ContractReport(
                operation: nil,
                operationIndex: nil,
                violations: [ContractViolation(.operation, place: "path", message: message)]
            )
        }
        guard let index = checker.operation(method, route: routeIndex) else {
            let route = checker.routes.routes[routeIndex]
            let message =
                "\(method) is not documented for \(route.path) "
                + "(documented: \(route.methods.joined(separator: ", ")))"
            return ContractReport(
                operation: nil,
                operationIndex: nil,
                violations: [ContractViolation(.operation, place: "method", message: message)]
            )
        }
        let operation = checker.operations[index]
        checker.validator.direction = .request
        if !operation.parameters.isEmpty { checkParameters(operation, facts.request, pathValues) }
        checkSecurity(operation, facts)
        if let body = operation.body { checkBody(body, index, facts) }
        guard !violations.isEmpty else { return checker.cleanReports[index] }
        return ContractReport(
            operation: checker.cleanReports[index].operation,
            operationIndex: index,
            violations: violations
        )
    }

    // MARK: Parameters

    private mutating func checkParameters(
        _ operation: OperationContract,
        _ request: IncomingRequest,
        _ pathValues: [String: String]
    ) {
        var cookies: [(name: String, value: String)]?
        for parameter in operation.parameters {
            let raw: [String]
            switch parameter.location {
            case .path:
                raw = pathValues[parameter.name].map { [$0] } ?? []
            case .query:
                raw = request.queryValues(parameter.name)
            case .header:
                // OpenAPI: these three are described elsewhere (media types, security).
                let ignored = ["accept", "content-type", "authorization"]
                guard !ignored.contains(parameter.name.lowercased()) else { continue }
                raw = request.headers.values(parameter.name)
            case .cookie:
                if cookies == nil { cookies = Self.cookies(request.headers) }
                raw = (cookies ?? []).filter { $0.name == parameter.name }.map(\.value)
            }
            let place = "\(parameter.location.rawValue).\(parameter.name)"
            guard let value = checker.values.value(parameter, raw: raw, query: request.queryItems) else {
                if parameter.required {
                    add(
                        .init(
                            kind(parameter),
                            place: place,
                            message: "missing the required \(parameter.location.rawValue) parameter \(parameter.name)",
                            rule: parameter.node.location.description
                        )
                    )
                }
                continue
            }
            guard let schema = parameter.validation else { continue }
            for failure in checker.validator.validate(value, against: schema, at: "$") {
                add(
                    .init(
                        kind(parameter),
                        place: place + String(failure.instancePath.dropFirst()),
                        message: failure.message,
                        rule: failure.schemaLocation.description
                    )
                )
            }
        }
    }

    private func kind(_ parameter: OperationContract.Parameter) -> ContractViolation.Kind {
        switch parameter.location {
        case .path: .path
        case .query: .query
        case .header: .header
        case .cookie: .cookie
        }
    }

    static func cookies(_ headers: HeaderFields) -> [(name: String, value: String)] {
        headers.values("Cookie").flatMap { line in
            line.split(separator: ";").compactMap { pair -> (name: String, value: String)? in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                return (parts[0].trimmingSpaces(), parts[1].trimmingSpaces())
            }
        }
    }

    // MARK: Security

    /// Present, not valid: a mock cannot tell a good token from a bad one, but it can tell the
    /// app forgot to send one.
    private mutating func checkSecurity(_ operation: OperationContract, _ facts: RequestFacts) {
        guard let alternatives = operation.security, !alternatives.isEmpty else { return }
        let request = facts.request
        var cookies: [(name: String, value: String)]?
        func present(_ scheme: OperationContract.SecurityScheme) -> Bool {
            switch scheme {
            case .apiKey(let name, .header, _): return request.headers.contains(name)
            case .apiKey(let name, .query, _): return !request.queryValues(name).isEmpty
            case .apiKey(let name, .cookie, _):
                if cookies == nil { cookies = Self.cookies(request.headers) }
                return (cookies ?? []).contains { $0.name == name }
            case .apiKey: return true
            case .authorization(let prefix, _):
                return request.headers.values("Authorization").contains { value in
                    value.count > prefix.count && value.lowercased().hasPrefix(prefix.lowercased() + " ")
                }
            case .unverifiable: return true
            }
        }
        guard !alternatives.contains(where: { $0.schemes.allSatisfy(present) }) else { return }
        let wanted = alternatives.map { $0.schemes.map(\.description).joined(separator: " and ") }
        let rule =
            (operation.operation.node["security"] != nil)
            ? operation.operation.node.location.appending("security").description : "#/security"
        add(
            .init(
                .security,
                place: "security",
                message: "none of the security requirements is met: send " + wanted.joined(separator: ", or "),
                rule: rule
            )
        )
    }

    // MARK: Body

    private mutating func checkBody(_ body: OperationContract.Body, _ operation: Int, _ facts: RequestFacts) {
        // Made only for a violation: a valid request builds no text.
        var rule: String { body.node.location.description }
        guard !facts.request.body.isEmpty else {
            if body.required {
                add(.init(.body, place: "body", message: "missing the request body, which is required", rule: rule))
            }
            return
        }
        guard !body.media.isEmpty else { return }
        let contentType = facts.request.headers["Content-Type"] ?? ""
        let choice = mediaChoice(contentType, body, operation)
        guard let media = choice.media else {
            let sent = contentType.isEmpty ? "no Content-Type" : "Content-Type \(choice.essence)"
            add(
                .init(
                    .mediaType,
                    place: "header.Content-Type",
                    message:
                        "\(sent) is not documented (documented: \(body.media.map(\.type).joined(separator: ", ")))",
                    rule: rule
                )
            )
            return
        }
        guard let validation = media.validation else { return }
        // The common case, a valid JSON body, is settled without parsing it.
        if choice.readsAsJSON,
            checker.validator.acceptsText(facts.request.body, against: validation, limits: .requestBody)
        {
            return
        }
        guard let schema = media.schema, let value = instance(facts, choice.essence, schema) else { return }
        for failure in checker.validator.validate(value, against: validation, at: "$") {
            add(
                .init(
                    .body,
                    place: "body" + String(failure.instancePath.dropFirst()),
                    message: failure.message,
                    rule: failure.schemaLocation.description
                )
            )
        }
    }

    /// What `contentType` picks among the body's media types: the one of the same essence, else
    /// the first whose wildcard covers it. Kept per operation for the values met (a client
    /// sends one or two), at most `MediaChoice.keptPerOperation` of them.
    private func mediaChoice(
        _ contentType: String,
        _ body: OperationContract.Body,
        _ operation: Int
    ) -> MediaChoice {
        if let known = checker.mediaChoices[operation].first(where: {
            MediaChoice.sameBytes($0.contentType, contentType)
        }) {
            return known
        }
        let essence = MediaTypes.essence(contentType)
        let exact = body.media.first { $0.essence == essence }
        let choice = MediaChoice(
            contentType: contentType,
            essence: essence,
            media: exact ?? body.media.first { MediaTypes.covers($0.type, contentType) },
            readsAsJSON: exact?.isJSON ?? MediaTypes.isJSON(essence)
        )
        if checker.mediaChoices[operation].count < MediaChoice.keptPerOperation {
            checker.mediaChoices[operation].append(choice)
        }
        return choice
    }

    /// The body as a value its schema can check: JSON parsed (once, shared with the matchers),
    /// a form's fields nested, text as a string; nil for what is not checked (multipart,
    /// binary), after a violation for JSON that does not parse.
    private mutating func instance(_ facts: RequestFacts, _ essence: String, _ schema: LocatedNode) -> JSONNode? {
        if MediaTypes.isJSON(essence) {
            if let json = facts.json { return json }
            add(.init(.body, place: "body", message: "expected JSON, found \(facts.jsonError ?? "something else")"))
            return nil
        }
        if essence == "application/x-www-form-urlencoded" {
            return checker.values.coerce(FormFields.nest(FormFields.parse(facts.request.body)), schema)
        }
        if essence.hasPrefix("text/") {
            return JSONNode(.string(String(decoding: facts.request.body, as: UTF8.self)))
        }
        return nil
    }

    private mutating func add(_ violation: ContractViolation) {
        violations.append(violation)
    }
}

/// What one `Content-Type` value picks among an operation's documented request media types.
struct MediaChoice {
    static let keptPerOperation = 8

    /// Whether two `Content-Type` values have the same bytes: `==` compares canonically, which
    /// cost more than the choice it saves; values that differ only so are two entries.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        let same = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in equal(a, b) }
        }
        // Both are native strings (contiguous UTF-8) in practice; others compare as strings.
        guard let both = same, let result = both else { return a == b }
        return result
    }

    /// Byte for byte, in a plain loop: the generic `elementsEqual` is not specialised across
    /// modules and cost 70 instructions for ten bytes.
    private static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a[i] != b[i] { return false }
        return true
    }

    let contentType: String
    let essence: String
    /// The documented media type that applies; nil when none does (a violation).
    let media: OperationContract.Media?
    /// Whether the body is JSON text: the documented media type says so, or else the essence.
    let readsAsJSON: Bool
}
