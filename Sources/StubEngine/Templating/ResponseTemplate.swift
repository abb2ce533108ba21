import HTTP1
import JSON

/// What renders a response per request: the native `"template": true` (`ResponseTemplate`),
/// or a dialect's templates (WireMock's Handlebars).
package protocol ResponseRenderer: Sendable {
    func render(_ context: TemplateContext) -> PreparedResponse
    /// Rewrites the encoded head and body into the stub format's templates
    /// (`StubEncoder.encodeModel`), or adds a gap saying what it cannot say.
    func encode(into response: inout EncodedResponse)
}

extension ResponseRenderer {
    package func encode(into response: inout EncodedResponse) {
        response.gap(.dropped, ["response"], "the response's template has no form in the stub format; not templated")
    }
}

/// A response whose body or header values use `{{...}}`: compiled at load, rendered per request
/// into a fresh `PreparedResponse`. Static parts stay precomputed bytes.
package struct ResponseTemplate: ResponseRenderer {
    let status: Int
    /// Headers in order; a nil template means the value is static.
    let headers: [(name: String, value: String, template: Template?)]
    /// nil when the body is static (`staticBody`).
    let body: Template?
    let staticBody: [UInt8]

    /// The response prepared at load, reused when only the body is templated.
    let prepared: PreparedResponse

    package func render(_ context: TemplateContext) -> PreparedResponse {
        let overLimit = TemplateContext.overLimit(context.maximumRenderedBytes)
        if !headers.contains(where: { $0.template != nil }) {
            guard let body else { return prepared.replacingBody(staticBody) }
            return body.render(context).map { prepared.replacingBody($0) } ?? overLimit
        }
        var rendered = HeaderFields()
        for header in headers {
            guard let template = header.template else {
                rendered.add(header.name, header.value)
                continue
            }
            guard let value = template.renderString(context) else { return overLimit }
            rendered.add(header.name, value)
        }
        guard let body else { return PreparedResponse(status: status, headers: rendered, body: staticBody) }
        guard let bytes = body.render(context) else { return overLimit }
        return PreparedResponse(status: status, headers: rendered, body: bytes)
    }

    package init(
        status: Int,
        headers: [(name: String, value: String, template: Template?)],
        body: Template?,
        staticBody: [UInt8],
        prepared: PreparedResponse
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.staticBody = staticBody
        self.prepared = prepared
    }
}

extension Template {
    /// A JSON body as a template: structure and literal text serialised once; only strings
    /// that contain `{{` become slots, escaped at render time.
    package static func json(
        _ node: JSONNode,
        pathParameters: Set<String>?,
        path: String,
        errors: inout [(path: String, node: JSONNode, error: TemplateError)],
        allowsMessage: Bool = false
    ) -> Template {
        var template = Template()
        write(
            node,
            into: &template,
            pathParameters: pathParameters,
            path: path,
            errors: &errors,
            allowsMessage: allowsMessage
        )
        return template
    }

    private static func write(
        _ node: JSONNode,
        into template: inout Template,
        pathParameters: Set<String>?,
        path: String,
        errors: inout [(path: String, node: JSONNode, error: TemplateError)],
        allowsMessage: Bool
    ) {
        switch node.value {
        case .string(let s) where s.contains("{{"):
            if let whole = Template.wholeJSONValue(s, pathParameters: pathParameters, allowsMessage: allowsMessage) {
                template.append(whole, jsonEscaped: false)
                return
            }
            template.appendLiteral([UInt8(ascii: "\"")])
            let found = scan(
                s,
                pathParameters: pathParameters,
                jsonString: true,
                into: &template,
                allowsMessage: allowsMessage
            )
            for error in found {
                errors.append((path, node, error))
            }
            template.appendLiteral([UInt8(ascii: "\"")])
        case .array(let elements):
            template.appendLiteral([UInt8(ascii: "[")])
            for (i, element) in elements.enumerated() {
                if i > 0 { template.appendLiteral([UInt8(ascii: ",")]) }
                write(
                    element,
                    into: &template,
                    pathParameters: pathParameters,
                    path: "\(path)[\(i)]",
                    errors: &errors,
                    allowsMessage: allowsMessage
                )
            }
            template.appendLiteral([UInt8(ascii: "]")])
        case .object(let members):
            template.appendLiteral([UInt8(ascii: "{")])
            for (i, member) in members.enumerated() {
                if i > 0 { template.appendLiteral([UInt8(ascii: ",")]) }
                var key: [UInt8] = []
                JSONSerializer.writeString(member.key, into: &key)
                template.appendLiteral(key + [UInt8(ascii: ":")])
                write(
                    member.value,
                    into: &template,
                    pathParameters: pathParameters,
                    path: path + DocumentProblem.pathComponent(member.key),
                    errors: &errors,
                    allowsMessage: allowsMessage
                )
            }
            template.appendLiteral([UInt8(ascii: "}")])
        default:
            template.appendLiteral(JSONSerializer.bytes(node))
        }
    }
}
