#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StubEngine
import StubImport

/// `stubserver import har FILE --out DIR`: recorded traffic (browser dev tools, Charles,
/// Proxyman, Insomnia) as stubs that answer with the recorded status, headers and bytes.
struct ImportHARCommand: Command {
    static let name = "import har"
    static let synopsis = ["import har FILE --out DIR [--host HOST]... [--keep-secrets] [--force]"]
    static let summary = "write stubs that replay the entries of a HAR file"
    static let positionalCount = 1
    static let options: [Option] = [
        .value("--out", "DIR", "folder to write the stubs into (created; must be empty unless --force)"),
        .value(
            "--host",
            "HOST",
            "only entries for this host (repeat for several; default: every host)",
            repeatable: true
        ),
        .flag("--keep-secrets", "keep cookies, Authorization and token headers (left out by default)"),
        .flag("--force", "replace everything in --out with the import"),
    ]
    static let details = """
        Entries with status 0 (blocked or cancelled) or without a recorded body are skipped and
        counted; HTTP/2 pseudo-headers, connection and framing headers, Date, Server and the stale
        Content-Encoding are left out. Repeated requests replay their responses in capture order.
        Details: docs/import-har.md. Exit status: 0 imported, 1 the file cannot be read, 2 bad usage.
        """

    let file: String
    let output: String
    let options: HARImportOptions
    let replace: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let file = arguments.positionals.first, !file.isEmpty else {
            throw UsageError("import har needs the HAR file to read: stubserver import har FILE --out DIR")
        }
        guard let output = try arguments.nonEmpty("--out", "a folder") else {
            throw UsageError("import har needs --out DIR, the folder to write the stubs into")
        }
        let hosts = arguments.all("--host")
        if hosts.contains(where: \.isEmpty) { throw UsageError("--host needs a host name, such as api.example.com") }
        self.file = file
        self.output = output
        options = HARImportOptions(hosts: hosts, keepSecrets: arguments.has("--keep-secrets"))
        replace = arguments.has("--force")
    }

    func run(_ console: Console) -> Int32 {
        guard let data = FileManager.default.contents(atPath: file) else {
            console.err("stubserver: cannot read \(file) (does it exist, and may you read it?)")
            return 1
        }
        let outcome: HARImporter.Outcome
        switch HARImporter.plan(Array(data), name: file, options: options) {
        case .success(let planned): outcome = planned
        case .failure(let problem):
            console.err(problem.description)
            return 1
        }
        guard let written = writeImport(outcome.plan, to: output, replace: replace, console) else { return 1 }
        console.out("\(output): \(outcome.summary); all \(plural(written.stubCount, "stub")) load")
        return 0
    }
}
