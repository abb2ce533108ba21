#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StubAuthoring
import StubEngine
import StubImport
import WireMock

/// `stubserver import wiremock DIR --out DIR`: a WireMock folder as native stub files, with the
/// list of what could not be converted (docs/wiremock.md, "Moving to native stubs").
struct ImportWireMockCommand: Command {
    static let name = "import wiremock"
    static let synopsis = ["import wiremock DIR --out DIR [--force]"]
    static let summary = "convert a WireMock folder (mappings/, __files/) into stub files"
    static let positionalCount = 1
    static let options: [Option] = [
        .value(
            "--out",
            "DIR",
            "folder to write the stub files into (created if missing; nothing in it is replaced without --force)"
        ),
        .flag("--force", "replace everything in --out with the import"),
        .flag(
            "--global-response-templating",
            "treat every mapping's response as a template, as the server that served them did"
        ),
    ]
    static let details = """
        Each mapping file becomes one stub file; body files are copied into DIR/__files/. What the
        stub format cannot say is listed with its file, line, column and JSON path: "dropped" (the
        stub checks or sends less) or "approximated" (close, not the same). The written folder is
        loaded before anything is moved into place. Exit status: 0 written, 1 nothing written or a
        mapping had an error.
        """

    let folder: String
    let out: String
    let globalTemplating: Bool
    /// `--force`: the folder becomes the import; else the import is added beside what it holds.
    let replace: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let folder = arguments.positionals.first else {
            throw UsageError("import wiremock needs the WireMock folder: stubserver import wiremock DIR --out DIR")
        }
        guard let out = try arguments.nonEmpty("--out", "a folder") else {
            throw UsageError("import wiremock needs --out DIR: where to write the stub files")
        }
        self.folder = folder
        self.out = out
        globalTemplating = arguments.has("--global-response-templating")
        replace = arguments.has("--force")
    }

    func run(_ console: Console) -> Int32 {
        let result = WireMockImporter.plan(
            folder: folder,
            existing: replace ? ([], []) : StubFolderWriter.existingNames(in: out),
            globalTemplating: globalTemplating
        )
        for problem in result.problems { console.err(problem.description) }
        // Mappings with errors: not imported (serve skips them too), one line each with its place.
        for skip in result.skipped { console.err(skip.description) }
        for note in result.notes { console.out(note.description) }
        let errors = result.problems.filter { $0.severity == .error }.count
        guard result.plan.stubCount > 0 else {
            console.err(
                """
                stubserver: nothing to import from \(folder) \
                (\(plural(result.fileCount, "mapping file"))\(errors > 0 ? ", \(plural(errors, "error"))" : ""))
                """
            )
            return 1
        }
        do {
            try StubFolderWriter.write(result.plan, into: out, existing: replace ? .replace : .keep)
        } catch {
            console.err("stubserver: \(error.description)")
            return 1
        }
        let dropped = result.notes.filter { $0.kind == .dropped }.count
        let approximated = result.notes.filter { $0.kind == .approximated }.count
        let skipped = result.notes.filter { $0.kind == .skipped }.count
        let mappings = plural(result.mappingCount, "mapping")
        let files = plural(result.fileCount, "file")
        let stubFiles = plural(result.plan.stubFiles.count, "stub file")
        let bodyFiles = plural(result.plan.bodyFiles.count, "body file")
        var summary = "imported \(mappings) from \(files) into \(out): \(stubFiles), \(bodyFiles); "
        summary += "\(dropped) dropped, \(approximated) approximated"
        if skipped > 0 { summary += ", \(plural(skipped, "mapping")) skipped" }
        if !result.skipped.isEmpty {
            summary += ", \(plural(result.skipped.count, "mapping")) with errors not imported"
        }
        console.out(summary)
        return errors > 0 ? 1 : 0
    }
}
