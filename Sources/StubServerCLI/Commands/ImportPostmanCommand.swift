#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StubEngine
import StubImport

/// `stubserver import postman COLLECTION --out DIR`: a Postman collection's saved examples as
/// stubs that answer the requests they were saved for.
struct ImportPostmanCommand: Command {
    static let name = "import postman"
    static let synopsis = [
        "import postman COLLECTION --out DIR [--environment FILE] [--placeholders] [--keep-secrets] [--force]"
    ]
    static let summary = "write stubs that answer with the saved examples of a Postman collection (v2.0, v2.1)"
    static let positionalCount = 1
    static let options: [Option] = [
        .value("--out", "DIR", "folder to write the stubs into (created; must be empty unless --force)"),
        .value("--environment", "FILE", "a Postman environment export: its variables over the collection's"),
        .flag("--placeholders", "a stub answering 501 for each request without a saved response"),
        .flag("--keep-secrets", "keep cookies, Authorization and token headers and query values (left out by default)"),
        .flag("--force", "replace everything in --out with the import"),
    ]
    static let details = """
        One stub per saved example, matched by method and path (:id and {{id}} segments are path
        parameters), and by the query and body where they tell a request's examples apart; examples
        that ask the same are answered in turn, and each by name with Prefer: example=NAME. Folders
        become sub-folders. Variables without a value and requests without a saved response are
        listed. Details: docs/import-postman.md. Exit status: 0 imported, 1 a file cannot be read,
        2 bad usage.
        """

    let file: String
    let output: String
    let environment: String?
    let options: PostmanImportOptions
    let replace: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        guard let file = arguments.positionals.first, !file.isEmpty else {
            throw UsageError(
                "import postman needs the collection to read: stubserver import postman COLLECTION.json --out DIR"
            )
        }
        guard let output = try arguments.nonEmpty("--out", "a folder") else {
            throw UsageError("import postman needs --out DIR, the folder to write the stubs into")
        }
        self.file = file
        self.output = output
        environment = try arguments.nonEmpty("--environment", "an environment file")
        options = PostmanImportOptions(
            placeholders: arguments.has("--placeholders"),
            keepSecrets: arguments.has("--keep-secrets")
        )
        replace = arguments.has("--force")
    }

    func run(_ console: Console) -> Int32 {
        var options = options
        if let environment {
            guard let data = FileManager.default.contents(atPath: environment) else {
                console.err("stubserver: cannot read \(environment) (does it exist, and may you read it?)")
                return 1
            }
            switch PostmanImporter.environment(Array(data), name: environment) {
            case .success(let variables): options.environment = variables
            case .failure(let problem):
                console.err(problem.description)
                return 1
            }
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            console.err("stubserver: cannot read \(file) (does it exist, and may you read it?)")
            return 1
        }
        let outcome: PostmanImporter.Outcome
        switch PostmanImporter.plan(Array(data), name: file, options: options) {
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
