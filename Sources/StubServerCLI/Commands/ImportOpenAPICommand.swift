import StubEngine
import StubImport

/// `stubserver import openapi SPEC --out DIR`: stubs for every operation of an OpenAPI 3.0 or
/// 3.1 document, written through the stub encoder and loaded back before it reports success.
typealias ImportOpenAPICommand = ImportCommand<OpenAPIImportSource>

struct OpenAPIImportSource: ImportSource {
    static let format = "openapi"
    static let synopsis =
        "SPEC --out DIR [--strip-base-path | --base-path PATH] [--force] [--allow-ref-outside] [--strict]"
    static let summary = "write stubs for every operation of an OpenAPI 3.0 or 3.1 document (YAML or JSON)"
    static let input = "the document to read"
    static let options: [Option] = [
        ImportOpenAPICommand.outOption,
        .flag(
            "--strip-base-path",
            "paths exactly as under paths (default: prefixed with the first server's path, /v2/pets)"
        ),
        .value("--base-path", "PATH", "prefix paths with PATH instead of the first server's path"),
        ImportOpenAPICommand.forceOption,
        .flag("--allow-ref-outside", "read $refs to absolute paths and outside the document's folder (each is noted)"),
        .flag("--strict", "exit 2 when anything of the document is not carried over (every note:, every lost body)"),
    ]
    static let details = """
        Each operation gets one file: a stub answering the lowest 2xx with the first example (or a
        body made from the schema), and stubs for every other status and named example, selected
        with Prefer: code=404 or Prefer: example=NAME (as Prism does). Details: docs/import-openapi.md.
        Exit status: 0 imported, 1 the document cannot be read or has errors, or a documented
        response body could not be carried over (what could be imported is still written), 2 bad
        usage, or with --strict anything not carried over (each note:).
        """

    let spec: String
    let options: OpenAPIImportOptions
    let allowsReferencesOutside: Bool
    /// Anything not carried over fails the import, with exit status 2.
    let strict: Bool

    init(input: String, _ arguments: ParsedArguments) throws(UsageError) {
        var options = OpenAPIImportOptions()
        if let prefix = arguments.string("--base-path") {
            guard !arguments.has("--strip-base-path") else {
                throw UsageError("--base-path and --strip-base-path cannot be used together")
            }
            options.basePath = .custom(prefix)
        } else if arguments.has("--strip-base-path") {
            options.basePath = .strip
        }
        spec = input
        self.options = options
        allowsReferencesOutside = arguments.has("--allow-ref-outside")
        strict = arguments.has("--strict")
    }

    func plan(_ console: Console) -> ImportPlanned? {
        let document: OpenAPIDocument
        switch OpenAPIDocument.open(path: spec, allowsReferencesOutside: allowsReferencesOutside) {
        case .success(let opened): document = opened
        case .failure(let problem):
            console.err(problem.description)
            console.err("stubserver: nothing imported: \(spec) cannot be read as an OpenAPI document")
            return nil
        }
        let outcome = OpenAPIImporter.plan(document, options: options)
        var planned = ImportPlanned(plan: outcome.plan, summary: outcome.summary) { errors in
            "; \(plural(errors, "error")) in the document (above): the operations they touch may be incomplete"
        }
        let strict = self.strict
        planned.epilogue = { console in
            if outcome.lostBodies > 0 {
                let their = outcome.lostBodies == 1 ? "its" : "their"
                console.err(
                    "stubserver: \(plural(outcome.lostBodies, "documented response")) lost \(their) body in the "
                        + "import (each listed above): those stubs answer without one"
                )
            }
            let notCarried = outcome.plan.problems.filter { $0.severity == .note }.count
            guard strict, outcome.lostBodies > 0 || notCarried > 0 else { return nil }
            console.err(
                "stubserver: --strict: not everything was carried over (\(plural(notCarried, "note")), "
                    + "\(plural(outcome.lostBodies, "response")) without its body; listed above)"
            )
            return 2
        }
        return planned
    }
}
