import JSONSchema
import StubAuthoring
import StubEngine

/// Options of `stubserver import openapi`.
package struct OpenAPIImportOptions: Sendable, Equatable {
    /// Where stub paths start.
    package enum BasePath: Sendable, Equatable {
        /// The path of the first server in effect (`https://api.example.com/v2` → `/v2/pets`),
        /// which is what an app requests when only the host of its base URL changes.
        case servers
        /// The paths exactly as under `paths` (`/pets`).
        case strip
        /// This prefix instead of the servers' (`/api` → `/api/pets`).
        case custom(String)
    }

    package var basePath: BasePath = .servers

    package init(basePath: BasePath = .servers) { self.basePath = basePath }
}

/// `stubserver import openapi`: one stub file per operation (see `OperationStubs` for the stubs
/// in it), named from the method and path, in document order. The plan never depends on where
/// the document came from (YAML or JSON, its file name): one document, one set of bytes.
package enum OpenAPIImporter {
    package struct Outcome {
        package var plan = ImportPlan()
        package var operationCount = 0
        package var importedOperations = 0
        /// Reason to count of operations that got no stub file.
        package var skipped: [(reason: String, count: Int)] = []
        /// Responses the document gives a body whose stub has none (each an error in `plan`):
        /// an import that lost content must not report plain success.
        package var lostBodies = 0
    }

    package static func plan(_ document: OpenAPIDocument, options: OpenAPIImportOptions = .init()) -> Outcome {
        var outcome = Outcome()
        let documents = document.documents
        let sampler = SchemaSampler(documents: documents, dialect: document.dialect)
        let (operations, catalogNotes) = OperationCatalog.operations(in: document)
        outcome.operationCount = operations.count
        var notes = catalogNotes
        var names = FileNameAllocator()
        for operation in operations {
            let base = basePath(options.basePath, operation)
            guard let template = PathTemplate(base + operation.path), operation.path.hasPrefix("/") else {
                skip("path does not start with /", operation, documents, &outcome, &notes)
                continue
            }
            if operation.path.contains("?") || operation.path.contains("#") {
                skip(
                    "path has a query or fragment; OpenAPI describes those as parameters",
                    operation,
                    documents,
                    &outcome,
                    &notes
                )
                continue
            }
            if template.source == "/__admin" || template.source.hasPrefix("/__admin/") {
                skip(
                    "path is under /__admin/, which belongs to stubserver's admin API",
                    operation,
                    documents,
                    &outcome,
                    &notes
                )
                continue
            }
            if let reference = operation.unresolvedReference {
                // The reference's own error says why; the operation is not imported as an empty 200.
                skip(
                    "operation is a $ref that does not resolve (\(reference))",
                    operation,
                    documents,
                    &outcome,
                    &notes
                )
                continue
            }
            var builder = OperationStubs(
                operation: operation,
                documents: documents,
                sampler: sampler,
                path: template.stubPath
            )
            let stubs = builder.build()
            notes += builder.notes
            outcome.lostBodies += builder.lostBodies
            let slug =
                operation.path == "/"
                ? "\(operation.method.lowercased())-root"
                : FileNameAllocator.slug(
                    "\(operation.method) \(operation.path)",
                    fallback: operation.method.lowercased()
                )
            outcome.plan.addStubFile(names.allocate(slug, extension: "json"), stubs)
            outcome.importedOperations += 1
        }
        outcome.plan.problems = documents.problems + notes + sampler.notes
        return outcome
    }

    static func basePath(_ choice: OpenAPIImportOptions.BasePath, _ operation: OpenAPIOperation) -> String {
        switch choice {
        case .servers: return operation.basePaths.first ?? ""
        case .strip: return ""
        case .custom(let prefix):
            var trimmed = Substring(prefix)
            while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            return trimmed.isEmpty || trimmed.hasPrefix("/") ? String(trimmed) : "/" + trimmed
        }
    }

    private static func skip(
        _ reason: String,
        _ operation: OpenAPIOperation,
        _ documents: DocumentSet,
        _ outcome: inout Outcome,
        _ notes: inout [ImportProblem]
    ) {
        notes.append(
            ImportProblem(
                .note,
                file: documents.displayName(of: operation.node.location),
                position: operation.node.node.position,
                message: "\(operation.title) skipped: its \(reason) (at \(operation.node.location))"
            )
        )
        if let index = outcome.skipped.firstIndex(where: { $0.reason == reason }) {
            outcome.skipped[index].count += 1
        } else {
            outcome.skipped.append((reason, 1))
        }
    }
}

extension OpenAPIImporter.Outcome {
    /// `9 stubs for 4 operations in 4 files; 1 operation skipped (...); 2 webhooks and callbacks noted`.
    package var summary: String {
        var text =
            """
            \(SchemaWording.plural(plan.stubCount, "stub")) for \
            \(SchemaWording.plural(importedOperations, "operation")) in \
            \(SchemaWording.plural(plan.stubFiles.count, "file"))
            """
        let skippedCount = skipped.reduce(0) { $0 + $1.count }
        if skippedCount > 0 {
            text +=
                "; \(SchemaWording.plural(skippedCount, "operation")) skipped ("
                + skipped.map { "\($0.count): \($0.reason)" }.joined(separator: "; ") + ")"
        }
        let webhooks = plan.problems.filter { $0.severity == .note && $0.message.hasPrefix("webhook \"") }.count
        let callbacks = plan.problems.filter { $0.severity == .note && $0.message.hasPrefix("callback \"") }.count
        let sent = [
            webhooks > 0 ? SchemaWording.plural(webhooks, "webhook") : nil,
            callbacks > 0 ? SchemaWording.plural(callbacks, "callback") : nil,
        ].compactMap { $0 }
        if !sent.isEmpty { text += "; \(sent.joined(separator: " and ")) not stubbed (the API sends those requests)" }
        return text
    }
}
