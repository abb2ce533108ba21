import StubEngine
import StubImport

/// `stubserver import openapi SPEC --out DIR`: stubs for every operation of an OpenAPI 3.0 or
/// 3.1 document, written through the stub encoder and loaded back before it reports success.
struct ImportOpenAPICommand: Command {
    static let name = "import openapi"
    static let synopsis = [
        "import openapi SPEC --out DIR [--strip-base-path | --base-path PATH] [--force] [--allow-ref-outside]"
    ]
    static let summary = "write stubs for every operation of an OpenAPI 3.0 or 3.1 document (YAML or JSON)"
    static let positionalCount = 1
    static let options: [Option] = [
        .value("--out", "DIR", "folder to write the stubs into (created; must be empty unless --force)"),
        .flag(
            "--strip-base-path",
            "paths exactly as under paths (default: prefixed with the first server's path, /v2/pets)"
        ),
        .value("--base-path", "PATH", "prefix paths with PATH instead of the first server's path"),
        .flag("--force", "replace everything in --out with the import"),
        .flag("--allow-ref-outside", "read $refs to absolute paths and outside the document's folder (each is noted)"),
    ]
    static let details = """
        Each operation gets one file: a stub answering the lowest 2xx with the first example (or a
        body made from the schema), and stubs for every other status and named example, selected
        with Prefer: code=404 or Prefer: example=NAME (as Prism does). Details: docs/import-openapi.md.
        Exit status: 0 imported, 1 the document cannot be read or has errors (what could be
        imported is still written), 2 bad usage.
        """

    let spec: String
    let output: String
    let options: OpenAPIImportOptions
    let replace: Bool
    let allowsReferencesOutside: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let spec = arguments.positionals.first, !spec.isEmpty else {
            throw UsageError("import openapi needs the document to read: stubserver import openapi SPEC --out DIR")
        }
        guard let output = try arguments.nonEmpty("--out", "a folder") else {
            throw UsageError("import openapi needs --out DIR, the folder to write the stubs into")
        }
        var options = OpenAPIImportOptions()
        if let prefix = arguments.string("--base-path") {
            guard !arguments.has("--strip-base-path") else {
                throw UsageError("--base-path and --strip-base-path cannot be used together")
            }
            options.basePath = .custom(prefix)
        } else if arguments.has("--strip-base-path") {
            options.basePath = .strip
        }
        self.spec = spec
        self.output = output
        self.options = options
        replace = arguments.has("--force")
        allowsReferencesOutside = arguments.has("--allow-ref-outside")
    }

    func run(_ console: Console) -> Int32 {
        let document: OpenAPIDocument
        switch OpenAPIDocument.open(path: spec, allowsReferencesOutside: allowsReferencesOutside) {
        case .success(let opened): document = opened
        case .failure(let problem):
            console.err(problem.description)
            console.err("stubserver: nothing imported: \(spec) cannot be read as an OpenAPI document")
            return 1
        }
        let outcome = OpenAPIImporter.plan(document, options: options)
        guard let written = writeImport(outcome.plan, to: output, replace: replace, console) else { return 1 }
        let errors = outcome.plan.errors.count
        let verdict =
            errors == 0
            ? "" : "; \(plural(errors, "error")) in the document (above): the operations they touch may be incomplete"
        console.out("\(output): \(outcome.summary); all \(plural(written.stubCount, "stub")) load\(verdict)")
        return errors == 0 ? 0 : 1
    }
}
