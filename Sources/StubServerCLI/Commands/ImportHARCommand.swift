#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StubEngine
import StubImport

/// `stubserver import har FILE --out DIR`: recorded traffic (browser dev tools, Charles,
/// Proxyman, Insomnia) as stubs that answer with the recorded status, headers and bytes.
typealias ImportHARCommand = ImportCommand<HARImportSource>

struct HARImportSource: ImportSource {
    static let format = "har"
    static let synopsis = "FILE --out DIR [--host HOST]... [--keep-secrets] [--force]"
    static let summary = "write stubs that replay the entries of a HAR file"
    static let input = "the HAR file to read"
    static let options: [Option] = [
        ImportHARCommand.outOption,
        .value(
            "--host",
            "HOST",
            "only entries for this host (repeat for several; default: every host)",
            repeatable: true
        ),
        .flag("--keep-secrets", "keep cookies, Authorization and token headers (left out by default)"),
        ImportHARCommand.forceOption,
    ]
    static let details = """
        Entries with status 0 (blocked or cancelled) or without a recorded body are skipped and
        counted; HTTP/2 pseudo-headers, connection and framing headers, Date, Server and the stale
        Content-Encoding are left out. Repeated requests replay their responses in capture order.
        Details: docs/import-har.md. Exit status: 0 imported, 1 the file cannot be read, 2 bad usage.
        """

    let file: String
    let options: HARImportOptions

    init(input: String, _ arguments: ParsedArguments) throws(UsageError) {
        let hosts = arguments.all("--host")
        if hosts.contains(where: \.isEmpty) { throw UsageError("--host needs a host name, such as api.example.com") }
        file = input
        options = HARImportOptions(hosts: hosts, keepSecrets: arguments.has("--keep-secrets"))
    }

    func plan(_ console: Console) -> ImportPlanned? {
        guard let data = FileManager.default.contents(atPath: file) else {
            console.err("stubserver: cannot read \(file) (does it exist, and may you read it?)")
            return nil
        }
        switch HARImporter.plan(Array(data), name: file, options: options) {
        case .success(let outcome):
            return ImportPlanned(plan: outcome.plan, summary: outcome.summary)
        case .failure(let problem):
            console.err(problem.description)
            return nil
        }
    }
}
