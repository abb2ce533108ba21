#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StubEngine
import StubImport

/// `stubserver import postman COLLECTION --out DIR`: a Postman collection's saved examples as
/// stubs that answer the requests they were saved for.
typealias ImportPostmanCommand = ImportCommand<PostmanImportSource>

struct PostmanImportSource: ImportSource {
    static let format = "postman"
    static let synopsis = "COLLECTION --out DIR [--environment FILE] [--placeholders] [--keep-secrets] [--force]"
    static let summary = "write stubs that answer with the saved examples of a Postman collection (v2.0, v2.1)"
    static let input = "the collection to read"
    static let options: [Option] = [
        ImportPostmanCommand.outOption,
        .value("--environment", "FILE", "a Postman environment export: its variables over the collection's"),
        .flag("--placeholders", "a stub answering 501 for each request without a saved response"),
        .flag("--keep-secrets", "keep cookies, Authorization and token headers and query values (left out by default)"),
        ImportPostmanCommand.forceOption,
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
    let environment: String?
    let options: PostmanImportOptions

    init(input: String, _ arguments: ParsedArguments) throws(UsageError) {
        file = input
        environment = try arguments.nonEmpty("--environment", "an environment file")
        options = PostmanImportOptions(
            placeholders: arguments.has("--placeholders"),
            keepSecrets: arguments.has("--keep-secrets")
        )
    }

    func plan(_ console: Console) -> ImportPlanned? {
        var options = options
        if let environment {
            guard let data = FileManager.default.contents(atPath: environment) else {
                console.err("stubserver: cannot read \(environment) (does it exist, and may you read it?)")
                return nil
            }
            switch PostmanImporter.environment(Array(data), name: environment) {
            case .success(let variables): options.environment = variables
            case .failure(let problem):
                console.err(problem.description)
                return nil
            }
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            console.err("stubserver: cannot read \(file) (does it exist, and may you read it?)")
            return nil
        }
        switch PostmanImporter.plan(Array(data), name: file, options: options) {
        case .success(let outcome):
            return ImportPlanned(plan: outcome.plan, summary: outcome.summary)
        case .failure(let problem):
            console.err(problem.description)
            return nil
        }
    }
}
