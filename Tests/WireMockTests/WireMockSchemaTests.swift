import Foundation
import StubEngine
import WireMock
import Testing

/// WireMock's JSON Schema of stub mappings (../shared/corpora/wiremock/schema) against the
/// reader: every key it names for a mapping, a request pattern, a response and a matcher is
/// either read or refused by name with a reason, and everything the reader takes beyond it is
/// listed here on purpose. The schema's own examples load.
@Suite struct WireMockSchemaTests {
    static let schemaFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("../shared/corpora/wiremock/schema/wiremock-stub-mapping-or-mappings.json")
        .standardizedFileURL
    static var available: Bool { FileManager.default.fileExists(atPath: schemaFile.path) }

    func definitions() throws -> [String: Any] {
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.schemaFile)) as? [String: Any]
        return try #require(schema?["definitions"] as? [String: Any])
    }

    func properties(_ definition: Any?) -> Set<String> {
        guard let object = definition as? [String: Any] else { return [] }
        if let all = object["allOf"] as? [Any] {
            return all.reduce(into: Set<String>()) { $0.formUnion(properties($1)) }
        }
        return Set((object["properties"] as? [String: Any])?.keys.map { $0 } ?? [])
    }

    @Test(.enabled(if: available, "the WireMock schema is not here; see ../shared/corpora/README.md"))
    func everyKeyIsReadOrRefusedByName() throws {
        let d = try definitions()
        let mapping = Set(WireMockReader.mappingKeys).union(WireMockReader.unsupportedMappingKeys.keys)
        #expect(properties(d["stub-mapping"]).subtracting(mapping).isEmpty, "mapping keys the reader does not know")
        #expect(
            mapping.subtracting(properties(d["stub-mapping"])) == ["insertionIndex"],
            "WireMock writes insertionIndex in listings"
        )

        let request = Set(WireMockReader.requestKeys).union(WireMockReader.unsupportedRequestKeys.keys)
        #expect(properties(d["request-pattern"]).subtracting(request).isEmpty)
        #expect(request.subtracting(properties(d["request-pattern"])).isEmpty)

        let response = Set(WireMockResponseReader.keys).union(WireMockResponseReader.unsupported.keys)
        #expect(properties(d["response-definition"]).subtracting(response).isEmpty)
        #expect(response.subtracting(properties(d["response-definition"])).isEmpty)
    }

    @Test(.enabled(if: available, "the WireMock schema is not here; see ../shared/corpora/README.md"))
    func everyMatcherIsReadOrRefusedByName() throws {
        let d = try definitions()
        let oneOf = try #require((d["content-pattern"] as? [String: Any])?["oneOf"] as? [[String: String]])
        let operators = Set(WireMockPatternReader.operators).union(WireMockPatternReader.unsupportedOperators.keys)
            .union(["hasExactly", "includes"])
        var named: Set<String> = []
        for reference in oneOf {
            let name = try #require(reference["$ref"]?.split(separator: "/").last.map(String.init))
            let required = try #require((d[name] as? [String: Any])?["required"] as? [String])
            named.formUnion(required)
        }
        #expect(
            named.subtracting(operators).isEmpty,
            "matchers the reader does not know: \(named.subtracting(operators))"
        )
        #expect(operators.subtracting(named) == ["anything"], "WireMock's AnythingPattern is not in the schema")
    }

    @Test(.enabled(if: available, "the WireMock schema is not here; see ../shared/corpora/README.md"))
    func faultsAndDelayTypes() throws {
        let d = try definitions()
        let response = try #require(
            ((d["response-definition"] as? [String: Any])?["allOf"] as? [[String: Any]])?.first?["properties"]
                as? [String: Any]
        )
        let faults = try #require((response["fault"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(faults) == Set(WireMockResponseReader.faults.keys))
        let delays = try #require((d["delay-distribution"] as? [String: Any])?["oneOf"] as? [[String: Any]])
        let types = delays.compactMap {
            (($0["properties"] as? [String: Any])?["type"] as? [String: Any])?["enum"] as? [String]
        }.flatMap { $0 }
        #expect(Set(types) == ["lognormal", "uniform", "fixed"])
    }

    /// The schema's example request pattern reads without a problem.
    @Test(.enabled(if: available, "the WireMock schema is not here; see ../shared/corpora/README.md"))
    func theSchemasExampleLoads() throws {
        let d = try definitions()
        let example = try #require((d["request-pattern"] as? [String: Any])?["example"] as? String)
        let mapping = #"{"request": \#(example), "response": {"status": 201}}"#
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-schema-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(["example.json": mapping], [:], into: folder)
        let result = StubLoader(directory: folder.path, format: WireMockFolderFormat()).load()
        #expect(result.problems.isEmpty, "\(result.problems)")
        #expect(result.stubs.count == 1)
    }
}
