#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import JSONSchema
import StubEngine
import RegularExpressions

/// `stubserver validate --openapi`: are the stubs still true to the API they imitate? For every
/// file stub: its path and methods exist in the document; each response's status is documented
/// for the operation (exactly, by a range such as `4XX`, or by `default`); the headers the
/// document marks required are there; a body in a documented media type validates against its
/// schema (JSON bodies inline, in body files and in each step of a sequence; text bodies as
/// strings). Findings carry the stub's file, line, column and JSON path, and the schema keyword
/// that failed. Responses with a `fault` send no HTTP answer and are not checked; HEAD is checked
/// against GET when the document has no HEAD of its own (HEAD is GET without a body).
package final class StubChecker {
    let document: OpenAPIDocument
    let routes: RouteTable
    let validator: SchemaValidator
    var findings: [ImportProblem] = []
    /// Each stub file's stub paths (`$`, `$[1]`, `$.stubs[2]`), by the shape of its root.
    private var fileShapes: [String: String] = [:]

    package init(document: OpenAPIDocument) {
        self.document = document
        routes = RouteTable(OperationCatalog.operations(in: document).operations)
        validator = SchemaValidator(documents: document.documents, dialect: document.dialect)
    }

    /// The findings for these stubs, in stub order; problems of the document itself (references
    /// that do not resolve) are in `document.documents.problems`.
    package func check(_ stubs: [Stub]) -> [ImportProblem] {
        findings = []
        for stub in stubs {
            guard case .file(let file, let index) = stub.source, let definition = stub.definition else { continue }
            check(stub, definition, file: file, base: stubPath(file, index))
        }
        var seen = Set<String>()
        return findings.filter { seen.insert($0.description).inserted }
    }

    private func check(_ stub: Stub, _ definition: JSONNode, file: String, base: String) {
        let request = definition["request"]
        guard let pattern = stub.request.path else {
            report(
                .warning,
                file,
                request ?? definition,
                base + (request == nil ? "" : ".request"),
                "no path: the stub answers every path, so it cannot be checked against the document"
            )
            return
        }
        let pathNode = request?["path"] ?? request?["pathPattern"]
        let pathKey = base + ".request" + (request?["path"] != nil ? ".path" : ".pathPattern")
        let route: RouteTable.Route?
        if pattern.isRegex {
            route = (try? CompiledRegex(pattern.source)).flatMap(routes.route(forPattern:))
        } else {
            route = routes.route(forPath: pattern.source)
        }
        guard let route else {
            var message = "no path of \(document.displayName) matches \(pattern.source)"
            if !pattern.isRegex, let near = routes.closest(to: pattern.source) { message += "; did you mean \(near)?" }
            report(.error, file, pathNode ?? definition, pathKey, message)
            return
        }
        let methodNode = request?["method"]
        let methods = stub.request.methods ?? []
        if methods.isEmpty {
            report(
                .warning,
                file,
                request ?? definition,
                base + ".request",
                """
                no method: the stub answers every method; checked against \(route.methods.first ?? "GET") \
                \(route.path)
                """
            )
        }
        for method in methods.isEmpty ? Array(route.methods.prefix(1)) : methods {
            let documentedOperation = route.operation(method) ?? (method == "HEAD" ? route.operation("GET") : nil)
            if let reference = documentedOperation?.unresolvedReference {
                report(
                    .error,
                    file,
                    methodNode ?? definition,
                    base + ".request.method",
                    """
                    \(method) \(route.path) is a $ref that does not resolve (\(reference)), so the stub cannot be \
                    checked against it
                    """
                )
                continue
            }
            guard let operation = documentedOperation else {
                report(
                    .error,
                    file,
                    methodNode ?? definition,
                    base + ".request.method",
                    """
                    \(method) is not documented for \(route.path) (documented: \
                    \(route.methods.joined(separator: ", ")))
                    """
                )
                continue
            }
            for (i, response) in stub.responses.enumerated() {
                let key = definition["responses"] == nil ? ".response" : ".responses[\(i)]"
                let node = definition["responses"]?.elements?[i] ?? definition["response"] ?? definition
                check(
                    response,
                    node,
                    operation,
                    isHead: method == "HEAD",
                    file: file,
                    path: base + key,
                    template: definition["template"]?.bool == true || node["template"]?.bool == true
                )
            }
        }
    }

    private func check(
        _ response: StubResponse,
        _ node: JSONNode,
        _ operation: OpenAPIOperation,
        isHead: Bool,
        file: String,
        path: String,
        template: Bool
    ) {
        guard response.fault == nil, let responses = operation.node["responses"], responses.isObject else { return }
        // The answer to a `Prefer` the document cannot satisfy is stubserver's, not the API's
        // (the `default` response it may repeat is checked in its own stub).
        guard !response.prepared.headers.contains("X-Stubserver-Prefer") else { return }
        let status = response.status
        guard let (key, documented) = DocumentedResponses.documented(status: status, in: responses, document.documents)
        else {
            report(
                .error,
                file,
                node["status"] ?? node,
                path + ".status",
                """
                status \(status) is not documented for \(operation.method) \(operation.path) (documented: \
                \(DocumentedResponses.keys(of: responses).joined(separator: ", ")))
                """
            )
            return
        }
        for (name, raw) in documented["headers"]?.members ?? [] where !asciiCaseInsensitiveEquals(name, "Content-Type")
        {
            guard document.documents.dereference(raw)?["required"]?.node.bool == true,
                !response.prepared.headers.contains(name)
            else { continue }
            report(
                .error,
                file,
                node["headers"] ?? node,
                path + (node["headers"] == nil ? "" : ".headers"),
                """
                missing the header \(name), which \(operation.method) \(operation.path) requires in its \(key) \
                response (schema: \(raw.location))
                """
            )
        }
        guard !isHead else { return }
        guard !response.prepared.body.isEmpty else {
            let media = (documented["content"]?.members ?? []).map(\.key)
            // A stub that forwards or computes its answer has no body of its own to check.
            // Nor does a stream (server-sent events, a WebSocket): its content comes as it goes.
            guard !media.isEmpty, response.proxy == nil, response.computed == nil, response.stream == nil,
                status != 204, status != 304
            else {
                return
            }
            report(
                .error,
                file,
                node,
                path,
                """
                no body, but \(operation.method) \(operation.path) documents content for its \(key) response \
                (\(media.joined(separator: ", "))) (schema: \(documented.location))
                """
            )
            return
        }
        checkBody(response, node, documented, key: key, operation, file: file, path: path, template: template)
    }

    func report(
        _ severity: ImportProblem.Severity,
        _ file: String,
        _ node: JSONNode,
        _ path: String,
        _ message: String,
        position: SourcePosition? = nil
    ) {
        findings.append(
            ImportProblem(severity, file: file, position: position ?? node.position, jsonPath: path, message: message)
        )
    }

    /// Where a stub sits in its file: `$` for a file of one stub, `$[i]` in an array, `$.stubs[i]`.
    private func stubPath(_ file: String, _ index: Int) -> String {
        if fileShapes[file] == nil {
            let root = FileManager.default.contents(atPath: file).flatMap { try? JSONParser.parse(Array($0)) }
            fileShapes[file] = root?.elements != nil ? "array" : root?["stubs"] != nil ? "stubs" : "single"
        }
        switch fileShapes[file] {
        case "array": return "$[\(index)]"
        case "stubs": return "$.stubs[\(index)]"
        default: return "$"
        }
    }
}
