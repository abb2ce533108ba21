import NativeStubs
import StubEngine
import StubImport

/// `stubserver validate`: load the folder, print every problem, exit 0 when it would serve.
/// With `--openapi SPEC`, also check every stub against the document (`StubChecker`).
struct ValidateCommand: Command {
    static let name = "validate"
    static let synopsis = ["validate [--dir DIR] [--openapi SPEC] [--strict]", "validate --wiremock DIR [--strict]"]
    static let summary = "check every stub file (or WireMock mapping), print all errors and warnings"
    static let options: [Option] =
        [
            .value("--dir", "DIR", "folder of stub files (default: stubs)"),
            .value(
                "--openapi",
                "SPEC",
                "also check every stub against an OpenAPI 3.0 or 3.1 document (paths, statuses, bodies)"
            ),
            .flag("--verbose", "accepted for symmetry with serve"),
        ] + ServingOptions.folderOptions
    static let details = """
        With --openapi: each stub's method and path must exist in the document, each response's
        status must be documented for that operation, required headers present, and bodies valid
        against their schemas. Details: docs/validate-openapi.md.
        With --wiremock DIR: the WireMock folder's mappings, as serve --wiremock reads them
        (docs/wiremock.md).
        Exit status: 0 no errors, 1 errors (or findings), 2 bad usage.
        """

    let folder: ServingOptions
    let spec: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        var folder = ServingOptions()
        folder.directory = try arguments.nonEmpty("--dir", "a folder") ?? "stubs"
        try folder.readFolderFormat(arguments)
        self.folder = folder
        spec = try arguments.nonEmpty("--openapi", "an OpenAPI document (YAML or JSON)")
    }

    var directory: String { folder.directory }

    func run(_ console: Console) -> Int32 {
        let result = folder.loader.load()
        for problem in result.problems { console.out(problem.description) }
        for skip in result.skipped { console.out(skip.description) }
        let errors = result.errors
        guard errors.isEmpty else {
            let files = Set(errors.map(\.file)).count
            var summary = "\(directory): \(plural(errors.count, "error")) in \(plural(files, "file"))"
            if result.isServable, !result.skipped.isEmpty {
                // A WireMock folder still serves: say what, and without which mappings.
                summary +=
                    "; serve would skip \(plural(result.skipped.count, "mapping")) (listed above) "
                    + "and serve \(plural(result.stubs.count, "stub"))"
            }
            console.out(summary + "; fix them and run validate again")
            return 1
        }
        let warnings = result.warnings.isEmpty ? "" : ", \(plural(result.warnings.count, "warning"))"
        guard let spec else {
            let format = folder.resolvedFormat
            let kind = format.isNative ? "" : " (\(format.folderDescription))"
            console.out(
                """
                \(directory)\(kind): \(plural(result.stubs.count, "stub")) in \
                \(plural(result.fileCount, "file")), no errors\(warnings)
                """
            )
            return 0
        }
        return checkAgainstDocument(spec, result, console)
    }

    private func checkAgainstDocument(_ spec: String, _ result: StubLoadResult, _ console: Console) -> Int32 {
        let document: OpenAPIDocument
        switch OpenAPIDocument.open(path: spec) {
        case .success(let opened): document = opened
        case .failure(let problem):
            console.out(problem.description)
            console.out("\(directory): not checked: \(spec) cannot be read as an OpenAPI document")
            return 1
        }
        let findings = StubChecker(document: document).check(result.stubs)
        let documentProblems = document.documents.problems
        for problem in documentProblems + findings { console.out(problem.description) }
        let failing = findings.filter { $0.severity == .error }
        let documentErrors = documentProblems.filter { $0.severity == .error }.count
        if failing.isEmpty && documentErrors == 0 {
            let noted = findings.isEmpty ? "" : " (\(plural(findings.count, "warning")))"
            console.out(
                """
                \(directory): \(plural(result.stubs.count, "stub")) in \(plural(result.fileCount, "file")) \
                agree with \(spec)\(noted)
                """
            )
            return 0
        }
        var parts: [String] = []
        if !failing.isEmpty {
            parts.append(
                "\(plural(failing.count, "error")) in \(plural(Set(failing.map(\.file)).count, "file")) against \(spec)"
            )
        }
        if documentErrors > 0 { parts.append("\(plural(documentErrors, "error")) in the document") }
        console.out(
            "\(directory): \(parts.joined(separator: " and ")); fix the stubs or the document and run validate again"
        )
        return 1
    }
}

func plural(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }
