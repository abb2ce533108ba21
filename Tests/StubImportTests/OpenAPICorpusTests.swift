import Foundation
import HTTP1
import JSON
import JSONSchema
import NativeStubs
import StubAuthoring
@testable import StubImport
import StubEngine
import TestSupport
import XCTest
import YAML

/// Every document of `../shared/corpora/openapi` (OpenAPI 3.0 and 3.1, each in YAML and JSON):
/// it imports, every operation has a stub file, the folder loads and agrees with its document
/// (`validate --openapi`), the YAML and JSON forms give byte-identical folders, and served over
/// a real socket the stubs answer `Prefer: code=` and `Prefer: example=` with the documented
/// status and example, and by default with a body that validates against its schema.
final class OpenAPICorpusTests: XCTestCase {
    /// Documents whose YAML and JSON forms hold different data upstream: each form still
    /// imports, and its YAML, rewritten as JSON by stubserver itself, must give the same bytes.
    static let formsDiffer: [String: String] = [
        "v3.1/tictactoe":
            "the JSON form lacks the YAML form's 202 response, callback, webhook, links and a PUT parameter"
    ]

    private func documents() throws -> [(name: String, yaml: URL, json: URL)] {
        guard let root = sharedCorpus("openapi") else {
            throw XCTSkip("OpenAPI examples not found (../shared/corpora/openapi next to the package): skipped")
        }
        var found: [(String, URL, URL)] = []
        for version in ["v3.0", "v3.1"] {
            let folder = root.appendingPathComponent(version)
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            where file.hasSuffix(".yaml") {
                let base = String(file.dropLast(5))
                found.append(
                    (
                        "\(version)/\(base)", folder.appendingPathComponent(file),
                        folder.appendingPathComponent(base + ".json")
                    )
                )
            }
        }
        XCTAssertEqual(found.count, 9, "the corpus README lists nine documents")
        return found
    }

    private func importFolder(
        _ spec: URL
    ) throws -> (folder: URL, outcome: OpenAPIImporter.Outcome, document: OpenAPIDocument) {
        let document = try OpenAPIDocument.open(path: spec.path).get()
        let outcome = OpenAPIImporter.plan(document)
        let folder = temporaryFolder().appendingPathComponent("stubs")
        _ = try StubFolderWriter.write(outcome.plan.output, into: folder.path, existing: .refuse)
        return (folder, outcome, document)
    }

    func testEveryDocumentImportsLoadsAndAgreesWithItself() throws {
        for (name, yaml, json) in try documents() {
            for spec in [yaml, json] {
                let (folder, outcome, document) = try importFolder(spec)
                XCTAssertEqual(outcome.plan.errors, [], name)
                XCTAssertEqual(
                    outcome.importedOperations,
                    outcome.operationCount,
                    "\(spec.lastPathComponent): every operation has a stub"
                )
                XCTAssertEqual(outcome.plan.stubFiles.count, outcome.operationCount, name)
                let loaded = StubLoader(directory: folder.path).load()
                XCTAssertEqual(loaded.problems, [], "\(name): loads without errors or warnings")
                let findings = StubChecker(document: document).check(loaded.stubs)
                XCTAssertEqual(findings.map(\.description), [], "\(spec.lastPathComponent): validate --openapi passes")
                XCTAssertEqual(document.documents.problems.filter { $0.severity != .note }, [], name)
            }
        }
    }

    func testYAMLAndJSONFormsGiveIdenticalFolders() throws {
        var compared = 0
        for (name, yaml, json) in try documents() {
            let fromYAML = try importFolder(yaml).outcome.plan.files
            // The YAML read by stubserver and written as JSON: the same bytes whatever the input form.
            let node = try YAMLReader.parse(Array(Data(contentsOf: yaml)))
            let rewritten = try OpenAPIDocument.parse(JSONSerializer.bytes(node), name: "rewritten.json").get()
            XCTAssertEqual(OpenAPIImporter.plan(rewritten).plan.files, fromYAML, "\(name): the YAML's own data as JSON")
            let fromJSON = try importFolder(json).outcome.plan.files
            if let reason = Self.formsDiffer[name] {
                XCTAssertNotEqual(
                    fromJSON,
                    fromYAML,
                    "\(name) is listed as differing (\(reason)); take it off the list"
                )
                continue
            }
            XCTAssertEqual(fromJSON.map(\.relativePath), fromYAML.map(\.relativePath), name)
            for (a, b) in zip(fromJSON, fromYAML) {
                XCTAssertEqual(a.bytes, b.bytes, "\(name): \(a.relativePath) differs between the JSON and YAML forms")
            }
            compared += 1
        }
        XCTAssertEqual(compared, 8)
    }

    func testServedStubsAnswerPreferAndDefaultBodiesMatchTheirSchemas() throws {
        var preferChecked = 0
        var bodiesChecked = 0
        for (name, yaml, _) in try documents() {
            let (folder, _, document) = try importFolder(yaml)
            let server = try serve(folder)
            let validator = SchemaValidator(documents: document.documents, dialect: document.dialect)
            for operation in OperationCatalog.operations(in: document).operations {
                let target = Self.concretePath(operation.basePaths[0] + operation.path)
                var notes: [ImportProblem] = []
                let arrangement = DocumentedResponses.arrange(operation, document.documents, notes: &notes)
                let plain = try exchange(server, operation.method, target)
                guard let primary = arrangement.primary else {
                    XCTAssertEqual(plain.status, 200, "\(name) \(operation.title)")
                    continue
                }
                XCTAssertEqual(plain.status, primary.status, "\(name) \(operation.title): the default stub")
                if let (mediaType, media) = DocumentedResponses.preferredContent(primary.node),
                    MediaTypes.isJSON(mediaType),
                    let schema = media["schema"], !plain.body.isEmpty
                {
                    let body = try JSONParser.parse(plain.body)
                    XCTAssertEqual(
                        validator.validate(body, against: schema).map(\.message),
                        [],
                        "\(name) \(operation.title): served body"
                    )
                    bodiesChecked += 1
                }
                for other in arrangement.others {
                    let answer = try exchange(
                        server,
                        operation.method,
                        target,
                        headers: [("Prefer", "code=\(other.status)")]
                    )
                    XCTAssertEqual(
                        answer.status,
                        other.status,
                        "\(name) \(operation.title): Prefer: code=\(other.status)"
                    )
                    preferChecked += 1
                }
                if let (_, media) = DocumentedResponses.preferredContent(primary.node) {
                    var notes: [ImportProblem] = []
                    for (example, value) in ResponseExamples(media: media, documents: document.documents, notes: &notes)
                        .named
                    {
                        let answer = try exchange(
                            server,
                            operation.method,
                            target,
                            headers: [("Prefer", "example=\(example)")]
                        )
                        XCTAssertEqual(
                            try JSONParser.parse(answer.body).equals(value),
                            true,
                            "\(name): Prefer: example=\(example)"
                        )
                        preferChecked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThanOrEqual(preferChecked, 15)
        XCTAssertGreaterThanOrEqual(bodiesChecked, 10)
    }

    /// A request path for a template: each parameter filled with `1`.
    static func concretePath(_ template: String) -> String {
        var out = ""
        var inside = false
        for character in template {
            if character == "{" {
                inside = true
                out += "1"
                continue
            }
            if character == "}" {
                inside = false
                continue
            }
            if !inside { out.append(character) }
        }
        return out
    }

    /// Temporal's published OpenAPI document writes six long paths as explicit keys (`? /api/...`
    /// with `: post:` on the next line), as Go's YAML library does: it reads, and imports.
    func testTemporalsDocumentWithExplicitKeysImports() throws {
        guard let root = sharedCorpus("openapi-real/temporalio__api/openapi") else {
            throw XCTSkip("../shared/corpora/openapi-real/temporalio__api not found: skipped")
        }
        let path = root.appendingPathComponent("openapiv3.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: "\n  ? /").count - 1, 6, "the six explicit keys are still there")
        let document = try OpenAPIDocument.open(path: path).get()
        let outcome = OpenAPIImporter.plan(document)
        XCTAssertEqual(outcome.plan.errors, [])
        XCTAssertEqual(outcome.importedOperations, outcome.operationCount)
        let explicit =
            "/api/v1/namespaces/{namespace}/worker-deployment-versions/{deployment_version.deployment_name}/"
            + "{deployment_version.build_id}/update-metadata"
        XCTAssertNotNil(document.root.node["paths"]?[explicit]?["post"])
    }
}
