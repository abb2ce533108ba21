import HTTP1
import JSON
import JSONSchema
import StubEngine

/// The stubs of one operation: the default one (no conditions beyond method and path), one per
/// documented status (`Prefer: code=NNN`), one per example name (`Prefer: example=NAME`,
/// answered from whichever response has it, and `code=NNN, example=NAME` for each example of a
/// status other than the default's), and those for a `Prefer` the document cannot satisfy.
/// Priorities make the most specific ask win: code and example 2, code 3, example 4
/// (and the default stub's own code, after the examples), the default stub 5 (and, at 5 too,
/// the unsatisfied `Prefer`, which outranks the default stub by its header condition). Every
/// answer a `Prefer` chose says so: `Preference-Applied` (RFC 7240) names what was applied,
/// `X-Stubserver-Prefer` what could not be.
struct OperationStubs {
    let operation: OpenAPIOperation
    let documents: DocumentSet
    let sampler: SchemaSampler
    let path: PathTemplate.StubPath
    var notes: [ImportProblem] = []
    /// Documented responses with a body whose stubs have none (each reported once, an error).
    var lostBodies = 0
    private var lostAt: Set<NodeLocation> = []

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
        var contents: [(response: DocumentedResponse, content: Content?)] = [(primary, primaryContent)]
        for other in arrangement.others { contents.append((other, content(of: other))) }
        // `Prefer: example=NAME` answers from the first response that has the name: the default
        // stub's, then the 2xx, then the others (Twilio documents `createWithCapabilities` only
        // under 201, beside a 200).
        let isSuccess = { (entry: (response: DocumentedResponse, content: Content?)) in
            (200...299).contains(entry.response.status)
        }
        let others = contents.dropFirst()
        var exampleNames: [String] = []
        for (documented, content) in [contents[0]] + others.filter(isSuccess) + others.filter({ !isSuccess($0) }) {
            for (name, value) in content?.examples.named ?? [] where !exampleNames.contains(name) {
                exampleNames.append(name)
                stubs.append(
                    stub(
                        "\(title) \(documented.status) example \(name) (Prefer: example=\(name))",
                        priority: 4,
                        prefer: PreferCondition.example(name),
                        response(documented, content, value, applied: PreferCondition.applied(example: name))
                    )
                )
            }
        }
        // `Prefer: code=` the default stub's own status: its answer, saying the ask was heard. At
        // the examples' priority and after them, so `code=200, example=rex` gets the example.
        stubs.append(
            stub(
                "\(title) \(primary.status)\(label(primary)) (Prefer: code=\(primary.status))",
                priority: 4,
                prefer: PreferCondition.code(primary.status),
                response(primary, primaryContent, nil, applied: PreferCondition.applied(code: primary.status))
            )
        )
        for (other, otherContent) in others {
            let code = other.status
            stubs.append(
                stub(
                    "\(title) \(code)\(label(other)) (Prefer: code=\(code))",
                    priority: 3,
                    prefer: PreferCondition.code(code),
                    response(other, otherContent, nil, applied: PreferCondition.applied(code: code))
                )
            )
            for (name, value) in otherContent?.examples.named ?? [] {
                stubs.append(
                    stub(
                        "\(title) \(code) example \(name) (Prefer: code=\(code), example=\(name))",
                        priority: 2,
                        prefer: PreferCondition.code(code, example: name),
                        response(
                            other,
                            otherContent,
                            value,
                            applied: PreferCondition.applied(code: code, example: name)
                        )
                    )
                )
            }
        }
        stubs += unsatisfiedPrefer(arrangement, codes: contents.map(\.response.status), exampleNames)
        return stubs
    }

    /// ` from 4XX` for a response documented by a range or `default`.
    private func label(_ documented: DocumentedResponse) -> String {
        documented.key == String(documented.status) ? "" : " from \(documented.key)"
    }

    /// A `Prefer` that asks for a code or example the document does not have (`code=418`,
    /// `example=nosuch`). A code gets the `default` response when there is one (as Prism
    /// answers); a name no response has (when the operation has named examples), or a code with
    /// no `default`, a 404 that lists the documented codes and example names. Never the normal
    /// answer, as if the ask had been heard.
    private mutating func unsatisfiedPrefer(
        _ arrangement: DocumentedResponses.Arrangement,
        codes: [Int],
        _ examples: [String]
    ) -> [JSONNode] {
        let title = operation.title
        var listing = "documented codes: " + codes.map(String.init).joined(separator: ", ")
        if !examples.isEmpty { listing += "; examples: " + examples.joined(separator: ", ") }
        let fallback =
            [arrangement.primary].compactMap { $0 }.first { $0.key == "default" }
            ?? arrangement.others.first { $0.key == "default" }
            // A `default` beside a documented 500 is not among the others; it still answers here.
            ?? operation.node["responses"]?["default"].flatMap { documents.dereference($0) }
            .map { DocumentedResponse(key: "default", status: 500, node: $0) }
        let body: JSONNode = .object([
            ("error", .string("no documented response fits the Prefer header")),
            ("operation", .string("\(operation.method) \(operation.path)")),
            (
                "documented",
                .object([
                    ("codes", .array(codes.map { .number($0) })),
                    ("examples", .array(examples.map { .string($0) })),
                ])
            ),
        ])
        let notFound: JSONNode = .object([
            ("status", .number(404)),
            ("headers", .object([("X-Stubserver-Prefer", .string("not documented (\(listing))"))])),
            ("body", body),
        ])
        guard let fallback else {
            let name = "\(title) Prefer not documented (\(listing))"
            return [stub(name, priority: nil, prefer: PreferCondition.anyCodeOrExample, notFound)]
        }
        let answer = response(
            fallback,
            content(of: fallback),
            nil,
            applied: nil,
            unsatisfied: "not documented; answered with the default response (\(listing))"
        )
        // With no names to list, any `example=` is as unmet as an unknown code: the default too.
        guard !examples.isEmpty else {
            let name = "\(title) Prefer not documented (\(listing))"
            return [stub(name, priority: nil, prefer: PreferCondition.anyCodeOrExample, answer)]
        }
        return [
            stub(
                "\(title) Prefer example not documented (\(listing))",
                priority: nil,
                prefer: PreferCondition.anyExample,
                notFound
            ),
            stub(
                "\(title) Prefer code not documented (\(listing))",
                priority: nil,
                prefer: PreferCondition.anyCode,
                answer
            ),
        ]
    }

    /// A response's chosen media type, its examples, and the body written when no example is
    /// asked for (the first example, else one made from the schema).
    struct Content {
        let mediaType: String
        let examples: ResponseExamples
        let defaultValue: JSONNode?
    }

    mutating func content(of response: DocumentedResponse) -> Content? {
        guard let (mediaType, written) = DocumentedResponses.preferredContent(response.node) else { return nil }
        guard let media = documents.dereference(written) else { return nil }
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

    /// `applied`: the `Preference-Applied` value of a stub a `Prefer` selects; `unsatisfied`:
    /// the `X-Stubserver-Prefer` value of the one that answers an ask the document cannot meet.
    mutating func response(
        _ documented: DocumentedResponse,
        _ content: Content?,
        _ example: JSONNode?,
        applied: String? = nil,
        unsatisfied: String? = nil
    ) -> JSONNode {
        var headers = headers(of: documented)
        if let applied { headers.append((PreferCondition.appliedHeader, .string(applied))) }
        if let unsatisfied { headers.append(("X-Stubserver-Prefer", .string(unsatisfied))) }
        if content == nil, documented.status != 204, documented.status != 304,
            let media = documented.node["content"]?.members, !media.isEmpty
        {
            lost(documented.node, "its content (\(media.map(\.key).joined(separator: ", "))) cannot be read")
        }
        return response(
            status: documented.status,
            headers: headers,
            content: content,
            example: example,
            at: documented.node
        )
    }

    /// A documented body the stub goes without: an error, once per response, with its place.
    private mutating func lost(_ node: LocatedNode, _ why: String) {
        guard lostAt.insert(node.location).inserted else { return }
        lostBodies += 1
        notes.append(
            ImportProblem(
                .error,
                file: documents.displayName(of: node.location),
                position: node.node.position,
                message: "\(operation.title): the document gives this response a body, but its stub has none: \(why) "
                    + "(at \(node.location))"
            )
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
                if rendered.body == nil {
                    lost(node, "response \(status): \(problem)")
                } else {
                    notes.append(
                        ImportProblem(
                            .note,
                            file: documents.displayName(of: node.location),
                            position: node.node.position,
                            message: "response \(status) of \(operation.title): \(problem) (at \(node.location))"
                        )
                    )
                }
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
                header["example"].flatMap { documents.exampleValue($0) }
                ?? header["examples"]?.members?.lazy.compactMap {
                    documents.dereference($0.value)?["value"].flatMap { documents.exampleValue($0) }
                }
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
