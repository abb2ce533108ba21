import JSONSchema
import StubEngine

/// One operation of a document: a method on a path, with what applies to it.
package struct OpenAPIOperation {
    /// Upper case, as requests carry it: `GET`.
    package let method: String
    /// The key under `paths`: `/pets/{petId}`.
    package let path: String
    package let node: LocatedNode
    package let pathItem: LocatedNode
    /// The base paths of the servers in effect, first the one imports use ("" for the root).
    package let basePaths: [String]

    /// The `$ref` the operation is written as, when it does not resolve (reported where it is
    /// written): the operation is known to exist, but not what it says.
    package var unresolvedReference: String?

    package var operationId: String? { node["operationId"]?.string }

    /// `listPets`, or `GET /pets` without an operationId: how stubs and messages name it.
    package var title: String { operationId.map { $0.isEmpty ? "\(method) \(path)" : $0 } ?? "\(method) \(path)" }
}

/// The operations of a document, in document order (paths as written, methods in OpenAPI's
/// order), with notes for what is not an operation a mock server answers: webhooks and
/// callbacks are requests the API makes, not answers it gives.
package enum OperationCatalog {
    package static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    package static func operations(
        in document: OpenAPIDocument
    ) -> (operations: [OpenAPIOperation], notes: [ImportProblem]) {
        let documents = document.documents
        var operations: [OpenAPIOperation] = []
        var notes: [ImportProblem] = []
        func note(_ message: String, _ at: LocatedNode) {
            notes.append(
                ImportProblem(
                    .note,
                    file: documents.displayName(of: at.location),
                    position: at.node.position,
                    message: "\(message) (at \(at.location))"
                )
            )
        }
        if let paths = document.root["paths"], !paths.isObject, !paths.node.value.isNull {
            documents.report(
                .error,
                "\"paths\" must be an object of path to path item, found \(paths.node.kindDescription)",
                at: paths
            )
        }
        for (path, rawItem) in document.root["paths"]?.members ?? [] where !path.hasPrefix("x-") {
            guard let item = documents.dereference(rawItem), item.isObject else { continue }
            for (key, value) in item.members ?? [] where methods.contains(key) {
                guard value.isObject else {
                    documents.report(
                        .error,
                        "the \(key) operation of \(path) must be an object, found \(value.node.kindDescription)",
                        at: value
                    )
                    continue
                }
                // DigitalOcean writes every operation as `get: {$ref: "resources/.../x.yml"}`:
                // followed like any other reference (read as written, each became a body-less 200).
                var node = value
                var unresolved: String?
                if value.node["$ref"] != nil {
                    if let resolved = documents.dereference(value), resolved.isObject {
                        node = resolved
                    } else {
                        unresolved = value.reference ?? "$ref"
                    }
                }
                var operation = OpenAPIOperation(
                    method: key.uppercased(),
                    path: path,
                    node: node,
                    pathItem: item,
                    basePaths: ServerBasePaths.paths(operation: node, pathItem: item, document: document.root)
                )
                operation.unresolvedReference = unresolved
                operations.append(operation)
                for (name, callback) in node["callbacks"]?.members ?? [] {
                    note(
                        """
                        callback \"\(name)\" of \(operation.title) skipped: the API calls the client there, so \
                        there is nothing to stub
                        """,
                        callback
                    )
                }
            }
        }
        for (name, webhook) in document.root["webhooks"]?.members ?? [] {
            note("webhook \"\(name)\" skipped: the API sends it to the client, so there is nothing to stub", webhook)
        }
        return (operations, notes)
    }
}
