import Foundation
import StubEngine
import StubImport

extension Stubs {
    /// Stubs that also check every request against an OpenAPI 3.0 or 3.1 document (YAML or
    /// JSON, with the files its `$ref`s name), as `stubserver --openapi SPEC` does: path and
    /// query parameters, headers, security present, the body against its schema.
    /// `verifyContract()` then fails the test with every violation; each `RecordedRequest` has
    /// its own in `contractViolations`. With `enforcingContract`, a request that breaks the
    /// document is answered 400 or 422 with a problem report (RFC 9457) instead of a stub.
    /// A document that cannot be read throws, with its file, line and column.
    public convenience init(
        directory: String? = nil,
        openAPI: URL,
        enforcingContract: Bool = false,
        journalCapacity: Int = 1000,
        @StubListBuilder _ stubs: () -> [StubDefinition] = { [] }
    ) throws(StubError) {
        let document: OpenAPIDocument
        switch OpenAPIDocument.open(path: openAPI.path) {
        case .success(let opened): document = opened
        case .failure(let problem): throw StubError([problem])
        }
        let contract = OpenAPIContract(document: document)
        let errors = contract.problems.filter { $0.severity == .error }
        guard errors.isEmpty else { throw StubError(errors) }
        try self.init(
            directory: directory,
            journalCapacity: journalCapacity,
            contract: (contract, enforcingContract),
            stubs
        )
    }

    /// Fails the current test when a request broke the OpenAPI document given to
    /// `init(openAPI:)`, or an answer forwarded to an upstream did, listing each request with
    /// its violations (`query.limit: expected an integer, found the string "ten"`).
    public func verifyContract(
        fileID: String = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let message: String
        do {
            let broken = try requests.filter { !$0.contractViolations.isEmpty }
            guard !broken.isEmpty else { return }
            let count = broken.count == 1 ? "1 request" : "\(broken.count) requests"
            message =
                "\(count) broke the OpenAPI contract:\n"
                + broken.map { "\($0)\n" + $0.contractViolations.map { "    \($0)" }.joined(separator: "\n") }
                .joined(separator: "\n")
        } catch {
            message = error.description
        }
        TestIssue.record(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
