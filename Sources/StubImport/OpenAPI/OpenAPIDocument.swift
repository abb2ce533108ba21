import JSONSchema
import StubEngine

/// An OpenAPI 3.0 or 3.1 document, read with every local file it refers to. Swagger 2.0 and
/// anything without an `openapi` version is refused with what to do.
package struct OpenAPIDocument {
    package let documents: DocumentSet
    /// As written: `3.0.3`, `3.1.0`.
    package let version: String
    package let dialect: SchemaDialect

    package var root: LocatedNode { documents.root }
    package var displayName: String { documents.documents[0].displayName }

    /// Reads the file at `path` (YAML or JSON).
    /// `allowsReferencesOutside`: read `$ref`s to absolute paths and outside the document's
    /// folder (`--allow-ref-outside`), each noted.
    package static func open(
        path: String,
        allowsReferencesOutside: Bool = false
    ) -> Result<OpenAPIDocument, ImportProblem> {
        DocumentSet.open(path: path).flatMap { documents in
            documents.allowsReferencesOutside = allowsReferencesOutside
            return make(documents)
        }
    }

    /// A document already read (tests, fuzzing); relative file references need `path`.
    package static func parse(
        _ bytes: [UInt8],
        name: String,
        path: String? = nil
    ) -> Result<OpenAPIDocument, ImportProblem> {
        DocumentReader.parse(bytes, name: name).flatMap { make(DocumentSet(root: $0, displayName: name, path: path)) }
    }

    package static func make(_ documents: DocumentSet) -> Result<OpenAPIDocument, ImportProblem> {
        let root = documents.root
        let name = documents.documents[0].displayName
        guard root.isObject else {
            return .failure(
                ImportProblem(
                    .error,
                    file: name,
                    position: root.node.position,
                    message:
                        """
                        expected an OpenAPI document (an object with \"openapi\", \"info\" and \"paths\"), \
                        found \(root.node.kindDescription)
                        """
                )
            )
        }
        if let swagger = root["swagger"] {
            return .failure(
                ImportProblem(
                    .error,
                    file: name,
                    position: swagger.node.position,
                    message:
                        """
                        this is a Swagger 2.0 document; stubserver reads OpenAPI 3.0 and 3.1. Convert it first \
                        (for example with swagger2openapi, or the Swagger Editor's \"Convert to OpenAPI 3\")
                        """
                )
            )
        }
        guard let versionNode = root["openapi"] else {
            return .failure(
                ImportProblem(
                    .error,
                    file: name,
                    position: root.node.position,
                    message: "not an OpenAPI document: there is no \"openapi\" version field (such as openapi: 3.1.0)"
                )
            )
        }
        let version = versionNode.string ?? versionNode.node.number?.text ?? ""
        let dialect: SchemaDialect
        if version.hasPrefix("3.0") {
            dialect = .openAPI30
        } else if version.hasPrefix("3.") {
            dialect = .jsonSchema2020
        } else {
            return .failure(
                ImportProblem(
                    .error,
                    file: name,
                    position: versionNode.node.position,
                    message:
                        """
                        OpenAPI version \(SchemaWording.value(versionNode.node)) is not one stubserver reads; \
                        it reads 3.0 and 3.1
                        """
                )
            )
        }
        return .success(OpenAPIDocument(documents: documents, version: version, dialect: dialect))
    }
}
