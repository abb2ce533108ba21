import StubEngine

/// `stubserver validate`: load the folder, print every problem, exit 0 when it would serve.
struct ValidateCommand {
    let options: CommandLineOptions
    let console: Console

    func run() -> Int32 {
        let result = StubLoader(directory: options.directory).load()
        for problem in result.problems { console.out(problem.description) }
        let errors = result.errors
        if errors.isEmpty {
            let warnings = result.warnings.isEmpty ? "" : ", \(plural(result.warnings.count, "warning"))"
            console.out("\(options.directory): \(plural(result.stubs.count, "stub")) in \(plural(result.fileCount, "file")), no errors\(warnings)")
            return 0
        }
        let files = Set(errors.map(\.file)).count
        console.out("\(options.directory): \(plural(errors.count, "error")) in \(plural(files, "file")); fix them and run validate again")
        return 1
    }
}

func plural(_ n: Int, _ word: String) -> String { n == 1 ? "1 \(word)" : "\(n) \(word)s" }
