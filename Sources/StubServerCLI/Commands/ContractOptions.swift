import StubEngine
import StubImport

/// `--openapi SPEC` while serving: every request checked against the document it should follow
/// (docs/validate-openapi.md, "Run-time checking"); `--openapi-enforce` answers one that does
/// not with a problem report instead of a stub.
struct ContractOptions: Sendable, Equatable {
    var spec: String?
    var enforces = false
    var allowsReferencesOutside = false

    static let options: [Option] = [
        .value(
            "--openapi",
            "SPEC",
            "check every request (and every forwarded answer) against an OpenAPI 3.0 or 3.1 document; "
                + "violations are logged, journaled and flagged with X-Stubserver-Contract"
        ),
        .flag(
            "--openapi-enforce",
            "answer a request that breaks the --openapi document 400 or 422 (a problem report) "
                + "instead of with a stub"
        ),
        .flag("--openapi-allow-ref-outside", "read the --openapi document's $refs outside its folder"),
    ]

    init() {}

    init(_ arguments: ParsedArguments) throws(UsageError) {
        spec = try arguments.nonEmpty("--openapi", "an OpenAPI document (YAML or JSON)")
        enforces = arguments.has("--openapi-enforce")
        allowsReferencesOutside = arguments.has("--openapi-allow-ref-outside")
        if spec == nil, enforces || allowsReferencesOutside {
            throw UsageError(
                "--openapi-enforce and --openapi-allow-ref-outside need --openapi SPEC, the document to check against"
            )
        }
    }

    /// The contract, after printing the document's problems; nil after saying why when the
    /// document cannot be read (serving then does not start: the user asked for the check).
    func load(_ console: Console) -> Result<OpenAPIContract?, ContractLoadFailure> {
        guard let spec else { return .success(nil) }
        switch OpenAPIDocument.open(path: spec, allowsReferencesOutside: allowsReferencesOutside) {
        case .failure(let problem):
            console.err(problem.description)
            console.err("stubserver: not serving: \(spec) cannot be read as an OpenAPI document")
            return .failure(ContractLoadFailure())
        case .success(let document):
            let contract = OpenAPIContract(document: document)
            for problem in contract.problems { console.err(problem.description) }
            return .success(contract)
        }
    }

    struct ContractLoadFailure: Error {}
}
