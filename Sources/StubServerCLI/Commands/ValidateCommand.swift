import StubEngine

/// `stubserver validate`: load the folder, print every problem, exit 0 when it would serve.
struct ValidateCommand: Command {
    static let name = "validate"
    static let synopsis = ["validate [--dir DIR]"]
    static let summary = "check every stub file, print all errors"
    static let options: [Option] = [
        .value("--dir", "DIR", "folder of stub files (default: stubs)"),
        .flag("--verbose", "accepted for symmetry with serve"),
    ]

    let directory: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        directory = try arguments.nonEmpty("--dir", "a folder") ?? "stubs"
    }

    func run(_ console: Console) -> Int32 {
        let result = StubLoader(directory: directory).load()
        for problem in result.problems { console.out(problem.description) }
        let errors = result.errors
        if errors.isEmpty {
            let warnings = result.warnings.isEmpty ? "" : ", \(plural(result.warnings.count, "warning"))"
            console.out("\(directory): \(plural(result.stubs.count, "stub")) in \(plural(result.fileCount, "file")), no errors\(warnings)")
            return 0
        }
        let files = Set(errors.map(\.file)).count
        console.out("\(directory): \(plural(errors.count, "error")) in \(plural(files, "file")); fix them and run validate again")
        return 1
    }
}

func plural(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }
