import StubAuthoring
import StubEngine
import StubImport

/// What an import of one document into a folder of stubs needs besides the folder: what it
/// reads, its own options, and how it plans the stubs. `import openapi` and `import har` are
/// `ImportCommand`s over one each, so they share `--out`, `--force`, the writing (through
/// `StubFolderWriter`, loaded back before it reports success) and the last line.
protocol ImportSource: Sendable {
    /// As typed after `import`: `openapi`.
    static var format: String { get }
    /// The usage line after `import FORMAT`, `--out DIR` included.
    static var synopsis: String { get }
    static var summary: String { get }
    /// Every option, `ImportCommand.outOption` and `ImportCommand.forceOption` among them.
    static var options: [Option] { get }
    static var details: String { get }
    /// What the positional argument is, for the usage error without it: "the document to read".
    static var input: String { get }

    init(input: String, _ arguments: ParsedArguments) throws(UsageError)

    /// The plan, or nil after saying on stderr why there is none (the input cannot be read).
    func plan(_ console: Console) -> ImportPlanned?
}

/// A planned import: the files, the summary for the last line, and what to add to it when the
/// input had errors (the import is then still written, and exits 1).
struct ImportPlanned {
    let plan: ImportPlan
    let summary: String
    var errorVerdict: (Int) -> String = { errors in "; \(plural(errors, "error")) in the input (above)" }
    /// Said after the last line (what the import could not carry over), with the exit status it
    /// calls for; nil keeps the usual one.
    var epilogue: (Console) -> Int32? = { _ in nil }
}

/// `stubserver import FORMAT INPUT --out DIR [--force]`: the import commands that write one
/// plan into a new folder.
struct ImportCommand<Source: ImportSource>: Command {
    static var name: String { "import \(Source.format)" }
    static var synopsis: [String] { ["import \(Source.format) \(Source.synopsis)"] }
    static var summary: String { Source.summary }
    static var positionalCount: Int { 1 }
    static var options: [Option] { Source.options }
    static var details: String { Source.details }

    static var outOption: Option {
        .value("--out", "DIR", "folder to write the stubs into (created; must be empty unless --force)")
    }
    static var forceOption: Option { .flag("--force", "replace everything in --out with the import") }

    let source: Source
    let output: String
    let replace: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let usage = "stubserver import \(Source.format) \(Source.synopsis.prefix { $0 != " " }) --out DIR"
        guard let input = arguments.positionals.first, !input.isEmpty else {
            throw UsageError("import \(Source.format) needs \(Source.input): \(usage)")
        }
        guard let output = try arguments.nonEmpty("--out", "a folder") else {
            throw UsageError("import \(Source.format) needs --out DIR, the folder to write the stubs into")
        }
        source = try Source(input: input, arguments)
        self.output = output
        replace = arguments.has("--force")
    }

    func run(_ console: Console) -> Int32 {
        guard let planned = source.plan(console) else { return 1 }
        for problem in planned.plan.problems { console.err(problem.description) }
        let written: StubFolderWriter.Written
        do {
            written = try StubFolderWriter.write(
                planned.plan.output,
                into: output,
                existing: replace ? .replace : .refuse
            )
        } catch {
            console.err("stubserver: \(error.description)")
            return 1
        }
        for problem in written.problems { console.err(problem.description) }
        let errors = planned.plan.errors.count
        let verdict = errors == 0 ? "" : planned.errorVerdict(errors)
        console.out("\(output): \(planned.summary); all \(plural(written.stubCount, "stub")) load\(verdict)")
        if let status = planned.epilogue(console) { return status }
        return errors == 0 ? 0 : 1
    }
}
