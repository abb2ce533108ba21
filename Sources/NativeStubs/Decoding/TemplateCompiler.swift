#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine

/// `"template": true`: the body and header values of a response compiled into templates.
enum TemplateCompiler {
    static func compileTemplate(
        _ c: inout DecodingContext,
        _ node: JSONNode,
        _ path: String,
        prepared: PreparedResponse,
        pathParameters: Set<String>
    ) -> ResponseTemplate? {
        let before = c.problems.count
        var uses = false
        var headers: [(name: String, value: String, template: Template?)] = []
        let headerNodes = node["headers"]?.members ?? []
        for field in prepared.headers {
            guard field.value.contains("{{") else {
                headers.append((field.name, field.value, nil))
                continue
            }
            var template = Template()
            let member = headerNodes.first { $0.key.lowercased() == field.name.lowercased() }
            for failure in Template.scan(
                field.value,
                pathParameters: pathParameters,
                jsonString: false,
                into: &template
            ) {
                c.error(path + ".headers" + DecodingContext.pathComponent(field.name), member?.value, failure.message)
            }
            uses = true
            headers.append((field.name, field.value, template))
        }
        var body: Template?
        if let b = node["body"] {
            if let text = b.string {
                if text.contains("{{") {
                    var template = Template()
                    for failure in Template.scan(
                        text,
                        pathParameters: pathParameters,
                        jsonString: false,
                        into: &template
                    ) {
                        c.error(path + ".body", b, failure.message)
                    }
                    body = template
                }
            } else {
                var failures: [(path: String, node: JSONNode, error: TemplateError)] = []
                let template = Template.json(b, pathParameters: pathParameters, path: path + ".body", errors: &failures)
                for failure in failures { c.error(failure.path, failure.node, failure.error.message) }
                if template.hasVariables || !failures.isEmpty { body = template }
            }
        } else if let f = node["bodyFile"], prepared.body.contains(UInt8(ascii: "{")) {
            // A JSON file is templated as JSON (values escaped, so the body stays valid JSON);
            // any other file as text.
            let isJSON = prepared.headers["Content-Type"]?.lowercased().contains("json") ?? false
            if isJSON, let parsed = try? JSONParser.parse(prepared.body) {
                var failures: [(path: String, node: JSONNode, error: TemplateError)] = []
                let template = Template.json(
                    parsed,
                    pathParameters: pathParameters,
                    path: path + ".bodyFile",
                    errors: &failures
                )
                for failure in failures {
                    c.error(path + ".bodyFile", f, "in the file at \(failure.node.position): \(failure.error.message)")
                }
                if template.hasVariables { body = template }
            } else if let text = String(bytes: prepared.body, encoding: .utf8), text.contains("{{") {
                var template = Template()
                for failure in Template.scan(text, pathParameters: pathParameters, jsonString: false, into: &template) {
                    c.error(path + ".bodyFile", f, failure.message)
                }
                body = template
            }
        } else if node["bodyBase64"] != nil {
            c.error(path + ".template", node["template"], "templates apply to text bodies; bodyBase64 is bytes")
        }
        if body != nil { uses = true }
        for conflict in Template.conflictingNames(headers.compactMap(\.template) + [body].compactMap { $0 }) {
            c.error(
                path,
                node,
                "'\(conflict.name)' names one value per answer, but it is used as "
                    + conflict.definitions.joined(separator: " and as ") + ": give each its own name"
            )
        }
        guard c.problems.count == before else { return nil }
        if !uses {
            c.warning(
                path + ".template",
                node["template"]?.position,
                "template is on but neither the body nor a header uses {{...}}"
            )
            return nil
        }
        return ResponseTemplate(
            status: prepared.status,
            headers: headers,
            body: body,
            staticBody: prepared.body,
            prepared: prepared
        )
    }
}
