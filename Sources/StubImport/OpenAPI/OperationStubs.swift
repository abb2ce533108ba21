import HTTP1
import StubEngine

/// The stubs of one operation: the default one (no conditions beyond method and path), one per
/// other documented status (`Prefer: code=NNN`), one per named example (`Prefer: example=NAME`,
/// with `code=NNN` for a status other than the default's). Priorities make the most specific
/// ask win: code and example 2, code 3, example 4, the default stub 5.
struct OperationStubs {
    let operation: OpenAPIOperation
    let documents: DocumentSet
    let sampler: SchemaSampler
    let path: PathTemplate.StubPath
    var notes: [ImportProblem] = []

    init(operation: OpenAPIOperation, documents: DocumentSet, sampler: SchemaSampler, path: PathTemplate.StubPath) {
        self.operation = operation
        self.documents = documents
        self.sampler = sampler
        self.path = path
    }

    mutating func build() -> [JSONNode] {
        let title = operation.title
        let arrangement = DocumentedResponses.arrange(operation, documents, notes: &notes)
        guard let primary = arrangement.primary else {
            // OpenAPI 3.1 lets an operation document no responses; the path still answers.
            return [stub("\(title) 200", priority: nil, prefer: nil, response(status: 200, headers: [], content: nil))]
        }
        var stubs: [JSONNode] = []
        let primaryContent = content(of: primary)
        stubs.append(
            stub("\(title) \(primary.status)", priority: nil, prefer: nil, response(primary, primaryContent, nil))
        )
        for (name, value) in primaryContent?.examples.named ?? [] {
            stubs.append(
                stub(
                    "\(title) \(primary.status) example \(name) (Prefer: example=\(name))",
                    priority: 4,
                    prefer: PreferCondition.example(name),
                    response(primary, primaryContent, value)
                )
            )
        }
        for other in arrangement.others {
            let otherContent = content(of: other)
            let label = other.key == String(other.status) ? "" : " from \(other.key)"
            stubs.append(
                stub(
                    "\(title) \(other.status)\(label) (Prefer: code=\(other.status))",
                    priority: 3,
                    prefer: PreferCondition.code(other.status),
                    response(other, otherContent, nil)
                )
            )
            for (name, value) in otherContent?.examples.named ?? [] {
                stubs.append(
                    stub(
                        "\(title) \(other.status) example \(name) (Prefer: code=\(other.status), example=\(name))",
                        priority: 2,
                        prefer: PreferCondition.code(other.status, example: name),
                        response(other, otherContent, value)
                    )
                )
            }
        }
        return stubs
    }

    /// A response's chosen media type, its examples, and the body written when no example is
    /// asked for (the first example, else one made from the schema).
    struct Content {
        let mediaType: String
        let examples: ResponseExamples
        let defaultValue: JSONNode?
    }

    mutating func content(of response: DocumentedResponse) -> Content? {
        guard let (mediaType, media) = DocumentedResponses.preferredContent(response.node) else { return nil }
        let examples = ResponseExamples(media: media, documents: documents, notes: &notes)
        var value = examples.first
        if value == nil {
            if let schema = media["schema"] {
                value = sampler.sample(schema)
            } else if MediaTypes.isJSON(mediaType) {
                value = .object([])
            }
        }
        return Content(mediaType: mediaType, examples: examples, defaultValue: value)
    }

    mutating func response(_ documented: DocumentedResponse, _ content: Content?, _ example: JSONNode?) -> JSONNode {
        response(
            status: documented.status,
            headers: headers(of: documented),
            content: content,
            example: example,
            at: documented.node
        )
    }

    mutating func response(
        status: Int,
        headers: [(String, JSONNode)],
        content: Content?,
        example: JSONNode? = nil,
        at node: LocatedNode? = nil
    ) -> JSONNode {
        var members: [(String, JSONNode)] = [("status", .number(status))]
        var headerMembers = headers
        // 204 and 304 never carry a body; the loader would warn about one.
        if let content, status != 204, status != 304, MediaTypes.essence(content.mediaType) == "text/event-stream" {
            // An event stream: its example's events (or the sample as one event's data).
            if !headerMembers.isEmpty { members.append(("headers", .object(headerMembers))) }
            members.append(("events", ResponseBody.events(from: example ?? content.defaultValue)))
        } else if let content, status != 204, status != 304 {
            let rendered = ResponseBody.render(example ?? content.defaultValue, mediaType: content.mediaType)
            if let type = rendered.contentType { headerMembers.insert(("Content-Type", .string(type)), at: 0) }
            if let problem = rendered.problem, let node {
                notes.append(
                    ImportProblem(
                        .note,
                        file: documents.displayName(of: node.location),
                        position: node.node.position,
                        message: "response \(status) of \(operation.title): \(problem)"
                    )
                )
            }
            if !headerMembers.isEmpty { members.append(("headers", .object(headerMembers))) }
            if let body = rendered.body { members.append(("body", body)) }
        } else if !headerMembers.isEmpty {
            members.append(("headers", .object(headerMembers)))
        }
        return .object(members)
    }

    /// The documented response headers with example values. Content-Type is the media type's;
    /// the headers the server sets itself (Content-Length, Date, ...) are left to it.
    func headers(of documented: DocumentedResponse) -> [(String, JSONNode)] {
        var result: [(String, JSONNode)] = []
        for (name, raw) in documented.node["headers"]?.members ?? [] {
            guard HTTPToken.isToken(name), !asciiCaseInsensitiveEquals(name, "Content-Type"),
                !ServerOwnedFields.contains(name),
                !result.contains(where: { asciiCaseInsensitiveEquals($0.0, name) }),
                let header = documents.dereference(raw)
            else { continue }
            let value =
                header["example"]?.node
                ?? header["examples"]?.members?.lazy.compactMap { documents.dereference($0.value)?["value"]?.node }
                .first
                ?? header["schema"].map { sampler.sample($0) }
            if let value, let text = ResponseBody.headerText(value) { result.append((name, .string(text))) }
        }
        return result
    }

    func stub(_ name: String, priority: Int?, prefer: String?, _ response: JSONNode) -> JSONNode {
        var request: [(String, JSONNode)] = [("method", .string(operation.method))]
        switch path {
        case .path(let p): request.append(("path", .string(p)))
        case .pattern(let p): request.append(("pathPattern", .string(p)))
        }
        if let prefer { request.append(("headers", .object([("Prefer", .object([("matches", .string(prefer))]))]))) }
        var members: [(String, JSONNode)] = [("name", .string(name))]
        if let priority { members.append(("priority", .number(priority))) }
        members += [("request", .object(request)), ("response", response)]
        return .object(members)
    }
}
