import Foundation
import JSON
import JSONSchema
@testable import StubImport
import XCTest

/// Every response schema without an example in the real documents of
/// `../shared/corpora/openapi-real` and the examples of `../shared/corpora/openapi`: the body
/// the importer makes from it validates against that schema (the project's one validator).
/// Samples the sampler notes as not satisfying their schema (one that requires more than a
/// sample may hold, a choice no branch of which fits) are counted apart: the user is told.
final class SampledBodiesCorpusTests: XCTestCase {
    static let realDocuments = [
        "digitalocean__openapi/specification/DigitalOcean-public.v2.yaml",
        "stripe__openapi/openapi/spec3.yaml",
        "box__box-openapi/openapi.json",
        "discord__discord-api-spec/specs/openapi.json",
        "temporalio__api/openapi/openapiv3.yaml",
        "Redocly__museum-openapi-example/openapi.yaml",
    ]

    struct Tally {
        var sampled = 0
        var cut = 0
        var failures: [String] = []
    }

    private func documentPaths() throws -> [String] {
        var paths: [String] = []
        if let real = sharedCorpus("openapi-real") {
            paths += Self.realDocuments.map { real.appendingPathComponent($0).path }
        }
        if let examples = sharedCorpus("openapi") {
            for version in ["v3.0", "v3.1"] {
                let folder = examples.appendingPathComponent(version)
                for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                where file.hasSuffix(".yaml") {
                    paths.append(folder.appendingPathComponent(file).path)
                }
            }
        }
        guard !paths.isEmpty else {
            throw XCTSkip("OpenAPI corpora not found (../shared/corpora/openapi-real and openapi): skipped")
        }
        return paths
    }

    func testEverySampledResponseBodyValidatesAgainstItsSchema() throws {
        var tally = Tally()
        for path in try documentPaths() {
            try sampleEveryResponse(of: path, into: &tally)
        }
        print(
            "sampled response bodies: \(tally.sampled) validated against their schemas, "
                + "\(tally.cut) noted as not satisfying them, \(tally.failures.count) invalid"
        )
        XCTAssertEqual(tally.failures, [], "every sampled body validates against its schema")
        XCTAssertGreaterThan(tally.sampled, 2_000)
    }

    private func sampleEveryResponse(of path: String, into tally: inout Tally) throws {
        let document = try OpenAPIDocument.open(path: path).get()
        let documents = document.documents
        let sampler = SchemaSampler(documents: documents, dialect: document.dialect)
        let validator = SchemaValidator(documents: documents, dialect: document.dialect)
        let name = URL(fileURLWithPath: path).lastPathComponent
        var seen: Set<NodeLocation> = []
        for operation in OperationCatalog.operations(in: document).operations {
            var notes: [ImportProblem] = []
            let arrangement = DocumentedResponses.arrange(operation, documents, notes: &notes)
            for response in (arrangement.primary.map { [$0] } ?? []) + arrangement.others {
                for (_, written) in response.node["content"]?.members ?? [] {
                    guard let media = documents.dereference(written), let schema = media["schema"],
                        ResponseExamples(media: media, documents: documents, notes: &notes).first == nil,
                        seen.insert(schema.location).inserted
                    else { continue }
                    let notesBefore = sampler.notes.count
                    let sample = sampler.sample(schema)
                    let failures = validator.validate(sample, against: schema)
                    if sampler.notes.count > notesBefore {
                        print("\(name) \(operation.title) \(response.status): \(sampler.notes.last!.description)")
                        tally.cut += 1
                    } else if failures.isEmpty {
                        tally.sampled += 1
                    } else {
                        let text = String(decoding: JSONSerializer.bytes(sample), as: UTF8.self)
                        tally.failures.append(
                            "\(name) \(operation.title) \(response.status): \(failures[0].instancePath) "
                                + "\(failures[0].message) in \(text.prefix(300))"
                        )
                    }
                }
            }
        }
    }
}
