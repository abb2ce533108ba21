import StubEngine

/// `stubserver validate`: load the folder, print every problem, exit 0 when it would serve.
struct ValidateCommand: Command {
    static let name = "validate"
    static let synopsis = ["validate [--dir DIR] [--strict]", "validate --wiremock DIR [--strict]"]
    static let summary = "check every stub file (or WireMock mapping), print all errors and warnings"
    static let options: [Option] = [
        .value("--dir", "DIR", "folder of stub files (default: stubs)"),
        .flag("--verbose", "accepted for symmetry with serve"),
    ] + ServingOptions.folderOptions

    let folder: ServingOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        var folder = ServingOptions()
        folder.directory = try arguments.nonEmpty("--dir", "a folder") ?? "stubs"
        try folder.readFolderFormat(arguments)
        self.folder = folder
    }

    var directory: String { folder.directory }

    func run(_ console: Console) -> Int32 {
        let result = folder.loader.load()
        for problem in result.problems { console.out(problem.description) }
        let errors = result.errors
        if errors.isEmpty {
            let warnings = result.warnings.isEmpty ? "" : ", \(plural(result.warnings.count, "warning"))"
            let kind = folder.resolvedFormat == .wiremock ? " (a WireMock folder)" : ""
            console.out("\(directory)\(kind): \(plural(result.stubs.count, "stub")) in \(plural(result.fileCount, "file")), no errors\(warnings)")
            return 0
        }
        let files = Set(errors.map(\.file)).count
        console.out("\(directory): \(plural(errors.count, "error")) in \(plural(files, "file")); fix them and run validate again")
        return 1
    }
}

func plural(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }
