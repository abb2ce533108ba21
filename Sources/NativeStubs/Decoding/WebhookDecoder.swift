#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine

/// A stub's `"webhooks"`: calls made after each answer (docs/stub-format.md). Checked at load
/// like every other field; with `"template": true`, the URL, method, header values and body
/// are templates over the request, compiled now.
enum WebhookDecoder {
    static func decodeWebhooks(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        pathParameters: Set<String>
    ) -> [Webhook] {
        guard let elements = node.elements else {
            c.error(
                path,
                node,
                "expected an array of webhooks, such as [{\"url\": \"http://localhost:9000/hook\"}], "
                    + "found \(node.kindDescription)"
            )
            return []
        }
        return elements.enumerated().compactMap { index, element in
            decodeWebhook(&c, element, "\(path)[\(index)]", pathParameters: pathParameters)
        }
    }

    static func decodeWebhook(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        pathParameters: Set<String>
    ) -> Webhook? {
        guard c.checkKeys(node, path, allowed: StubFormat.webhookKeys, what: "a webhook") else { return nil }
        let before = c.problems.count
        var templated = false
        if let flag = node["template"] {
            if let on = flag.bool {
                templated = on
            } else {
                c.error(path + ".template", flag, "expected true or false, found \(flag.kindDescription)")
            }
        }
        let url = text(&c, node, "url", path, default: nil)
        if node["url"] == nil {
            c.error(path, node, "a webhook needs a \"url\", such as \"http://localhost:9000/hook\"")
        }
        let method = text(&c, node, "method", path, default: "POST")
        if let url, !(templated && url.contains("{{")), WebhookTarget(url) == nil {
            c.error(
                path + ".url",
                node["url"],
                "expected an absolute http or https URL, such as \"http://localhost:9000/hook\""
            )
        }
        if let method, !(templated && method.contains("{{")), !HTTPToken.isToken(method) {
            c.error(path + ".method", node["method"], "\"\(method)\" is not an HTTP method")
        }
        var headers = node["headers"].map { requestHeaders(&c, $0, path + ".headers") } ?? []
        var body: [UInt8] = []
        var bodyNode: JSONNode?
        if node["body"] != nil, let b64 = node["bodyBase64"] {
            c.error(path + ".bodyBase64", b64, "a webhook has one body: body and bodyBase64 are both set")
        } else if let b = node["body"] {
            bodyNode = b
            body = b.string.map { Array($0.utf8) } ?? JSONSerializer.bytes(b)
            defaultContentType(&headers, b.string == nil ? "application/json" : "text/plain; charset=utf-8")
        } else if let b64 = node["bodyBase64"] {
            if let s = b64.string, let data = Data(base64Encoded: s, options: .ignoreUnknownCharacters) {
                body = Array(data)
                defaultContentType(&headers, "application/octet-stream")
            } else {
                c.error(path + ".bodyBase64", b64, "expected the body bytes as a base64 string")
            }
        }
        let delay = node["delay"].flatMap { ResponseDecoder.decodeDelay(&c, $0, path + ".delay") }
        guard c.problems.count == before, let url, let method else { return nil }
        guard templated else {
            let parts = [url, method] + headers.map(\.value) + [bodyNode.map(JSONSerializer.string) ?? ""]
            if parts.contains(where: { $0.contains("{{") }) {
                c.warning(path, node.position, "{{...}} is sent as written: add \"template\": true to render it")
            }
            var fields = HeaderFields()
            for (name, value) in headers { fields.add(name, value) }
            let call = WebhookCall(method: method, url: url, headers: fields, body: body)
            return Webhook(renderer: FixedWebhook(call: call), delay: delay)
        }
        func compile(_ text: String, _ at: String, _ node: JSONNode?) -> Template {
            var template = Template()
            for failure in Template.scan(text, pathParameters: pathParameters, jsonString: false, into: &template) {
                c.error(at, node, failure.message)
            }
            return template
        }
        let urlTemplate = compile(url, path + ".url", node["url"])
        let methodTemplate = compile(method, path + ".method", node["method"])
        let headerTemplates = headers.map { header in
            let at = path + ".headers" + DecodingContext.pathComponent(header.name)
            return (header.name, compile(header.value, at, node["headers"]))
        }
        var bodyTemplate: Template?
        if let bodyNode {
            if let s = bodyNode.string {
                bodyTemplate = compile(s, path + ".body", bodyNode)
            } else {
                var failures: [(path: String, node: JSONNode, error: TemplateError)] = []
                bodyTemplate = Template.json(
                    bodyNode,
                    pathParameters: pathParameters,
                    path: path + ".body",
                    errors: &failures
                )
                for failure in failures { c.error(failure.path, failure.node, failure.error.message) }
            }
        } else if node["bodyBase64"] != nil {
            c.error(path + ".template", node["template"], "templates apply to text bodies; bodyBase64 is bytes")
        }
        guard c.problems.count == before else { return nil }
        let renderer = NativeWebhookTemplate(
            method: methodTemplate,
            url: urlTemplate,
            headers: headerTemplates,
            body: bodyTemplate,
            fixedBody: body
        )
        return Webhook(renderer: renderer, delay: delay)
    }

    private static func text(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ key: String,
        _ path: String,
        default value: String?
    ) -> String? {
        guard let member = node[key] else { return value }
        guard let s = member.string, !s.isEmpty else {
            c.error(path + "." + key, member, "expected a non-empty string, found \(member.kindDescription)")
            return nil
        }
        return s
    }

    /// Header name to value, or to an array of values: names are tokens, values on one line.
    /// Framing fields are the client's to set from the body.
    private static func requestHeaders(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String
    ) -> [(name: String, value: String)] {
        guard let members = node.members else {
            c.error(
                path,
                node,
                "expected an object of header name to value (or to an array of values), "
                    + "found \(node.kindDescription)"
            )
            return []
        }
        var headers: [(name: String, value: String)] = []
        for member in members {
            let memberPath = path + DecodingContext.pathComponent(member.key)
            guard DecodingContext.isToken(member.key) else {
                c.problem(
                    StubProblem(
                        .error,
                        file: c.displayPath,
                        position: member.keyPosition,
                        jsonPath: memberPath,
                        message: "\"\(member.key)\" is not a valid header name"
                    )
                )
                continue
            }
            if ServerOwnedFields.isFraming(member.key) {
                c.warning(
                    memberPath,
                    member.keyPosition,
                    "\(member.key) is dropped: the call's framing is set from its body"
                )
                continue
            }
            for value in member.value.elements ?? [member.value] {
                guard let s = value.string ?? value.number?.text else {
                    c.error(
                        memberPath,
                        value,
                        "expected a header value as a string, found \(value.kindDescription)"
                    )
                    continue
                }
                if s.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                    c.error(memberPath, value, "a header value must not contain line breaks or NUL")
                    continue
                }
                headers.append((member.key, s))
            }
        }
        return headers
    }

    private static func defaultContentType(_ headers: inout [(name: String, value: String)], _ type: String) {
        if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(("Content-Type", type))
        }
    }
}
