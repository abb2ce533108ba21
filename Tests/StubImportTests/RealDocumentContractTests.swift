import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAuthoring
import StubEngine
@testable import StubImport
import TestSupport
import XCTest

/// The real documents of `../shared/corpora/openapi-real` (DigitalOcean's 2,907 files joined by
/// `$ref`s, Stripe's 4 MB, Box, Discord, Temporal, Redocly's museum): each imports with nothing
/// silently lost, serves, and checks requests: every operation sent a request made from its
/// own rules has no violation, and a broken one per kind of rule it has is reported with that
/// kind (and refused 400 or 422 when enforced).
final class RealDocumentContractTests: XCTestCase {
    static let documents = [
        "digitalocean__openapi/specification/DigitalOcean-public.v2.yaml",
        "stripe__openapi/openapi/spec3.yaml",
        "box__box-openapi/openapi.json",
        "discord__discord-api-spec/specs/openapi.json",
        "temporalio__api/openapi/openapiv3.yaml",
        "Redocly__museum-openapi-example/openapi.yaml",
    ]

    private func root() throws -> URL {
        guard let root = sharedCorpus("openapi-real") else {
            throw XCTSkip(
                "real OpenAPI documents not found (../shared/corpora/openapi-real next to the package): skipped"
            )
        }
        return root
    }

    func testEveryRealDocumentImportsWithNothingSilentlyLost() throws {
        let root = try root()
        for name in Self.documents {
            let document = try Self.open(root, name)
            let outcome = OpenAPIImporter.plan(document)
            XCTAssertEqual(outcome.plan.errors.map(\.description), [], name)
            XCTAssertEqual(outcome.lostBodies, 0, name)
            // Box writes 19 paths with a fragment (`/files/{file_id}#get_shared_link`): skipped,
            // each with a note that says where, and counted.
            let skipped = outcome.skipped.reduce(0) { $0 + $1.count }
            XCTAssertEqual(outcome.importedOperations + skipped, outcome.operationCount, name)
            XCTAssertEqual(
                outcome.plan.problems.filter { $0.severity == .note && $0.message.contains(" skipped: its ") }.count,
                skipped,
                "\(name): every skipped operation is listed"
            )
            let folder = temporaryFolder().appendingPathComponent("stubs")
            let written = try StubFolderWriter.write(outcome.plan.output, into: folder.path, existing: .refuse)
            XCTAssertEqual(written.stubCount, outcome.plan.stubCount, name)
        }
    }

    func testDigitalOceanImportsItsOperationsWithBodiesAndPreferVariants() throws {
        let path = try root().appendingPathComponent(Self.documents[0]).path
        let document = try OpenAPIDocument.open(path: path).get()
        let outcome = OpenAPIImporter.plan(document)
        XCTAssertEqual(outcome.operationCount, 659)
        XCTAssertEqual(outcome.importedOperations, 659)
        XCTAssertGreaterThan(outcome.plan.stubCount, 3_000, "every documented status and example has its stub")
        let files = outcome.plan.files
        let account = try XCTUnwrap(files.first { $0.relativePath == "get-v2-account.json" })
        let text = String(decoding: account.bytes, as: UTF8.self)
        XCTAssertTrue(
            text.contains("\"droplet_limit\""),
            "the 200's body is the documented example: \(text.prefix(400))"
        )
        XCTAssertTrue(text.contains("code=401"), "Prefer variants for the other statuses")
        XCTAssertFalse(
            files.contains { String(decoding: $0.bytes, as: UTF8.self).contains("\"$ref\"") },
            "no $ref is served literally"
        )
    }

    // One test per document, so a parallel run spreads them.
    func testDigitalOceanIsCheckedAtRunTime() throws { try checkEveryOperation(Self.documents[0], minimum: 600) }
    func testStripeIsCheckedAtRunTime() throws { try checkEveryOperation(Self.documents[1], minimum: 400) }
    func testBoxIsCheckedAtRunTime() throws { try checkEveryOperation(Self.documents[2], minimum: 250) }
    func testDiscordIsCheckedAtRunTime() throws { try checkEveryOperation(Self.documents[3], minimum: 200) }
    func testTemporalIsCheckedAtRunTime() throws { try checkEveryOperation(Self.documents[4], minimum: 150) }
    func testMuseumIsCheckedAtRunTime() throws { try checkEveryOperation(Self.documents[5], minimum: 5) }

    /// Each operation sent a request made from its own rules (no violation), and a broken one
    /// per kind of rule it has (that kind reported; enforced through the engine, 400 or 422).
    private func checkEveryOperation(_ name: String, minimum: Int) throws {
        let document = try Self.open(try root(), name)
        let contract = OpenAPIContract(document: document)
        let enforcing = Engine(stubs: [], options: Self.options(contract, enforcing: true))
        let maker = ContractRequestMaker(document)
        var valid = 0
        var enforced: Set<String> = []
        var samplerLimits: [String] = []
        for operation in contract.operations {
            let request = maker.valid(operation)
            let report = contract.check(RequestFacts(try Self.incoming(request)))
            // A body the sampler made that its own schema refuses (a oneOf both choices match,
            // say) is the sampler's limit, not the check's: told apart by validating the sample
            // itself, and counted.
            let samplerLimit =
                request.sampled.map { sampled in
                    !report.violations.isEmpty && report.violations.allSatisfy { $0.kind == .body }
                        && (request.lostInForm
                            || !maker.validator.validate(sampled.value, against: sampled.schema).isEmpty)
                } ?? false
            if samplerLimit {
                samplerLimits.append(operation.title)
            } else {
                XCTAssertEqual(
                    report.violations.map(\.line),
                    [],
                    "\(name): \(request.method) \(request.target) for \(operation.title)"
                )
            }
            valid += 1
            for (kind, bad) in maker.broken(operation, from: request) {
                let report = contract.check(RequestFacts(try Self.incoming(bad)))
                XCTAssertTrue(
                    report.violations.contains { $0.kind == kind },
                    "\(name): \(kind) \(bad.method) \(bad.target) gave \(report.violations.map(\.line))"
                )
                // Enforced through the engine once per kind (the check is the same).
                if enforced.insert(kind.rawValue).inserted {
                    let answer = enforcing.handle(try Self.incoming(bad)).response
                    XCTAssertTrue([400, 422].contains(answer?.prepared.status ?? 0), "\(name): enforced \(kind)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(valid, minimum, name)
        XCTAssertLessThan(samplerLimits.count, 20, "\(name): bodies the sampler could not make valid: \(samplerLimits)")
        XCTAssertTrue(enforced.isSuperset(of: ["operation"]), "\(enforced)")
    }

    static func open(_ root: URL, _ name: String) throws -> OpenAPIDocument {
        try OpenAPIDocument.open(path: root.appendingPathComponent(name).path).get()
    }

    static func options(_ contract: OpenAPIContract, enforcing: Bool) -> Engine.Options {
        var options = Engine.Options(journalCapacity: 0)
        options.contract = contract
        options.enforcesContract = enforcing
        return options
    }

    static func incoming(_ request: ContractRequestMaker.Request) throws -> IncomingRequest {
        try IncomingRequest.make(
            method: request.method,
            target: request.target,
            headers: HeaderFields(request.headers),
            body: request.body,
            peer: "",
            authority: "api.test"
        )
    }
}
