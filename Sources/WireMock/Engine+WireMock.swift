#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine

/// The engine's stubs seen as WireMock's mapping store: mappings are the WireMock-dialect
/// stubs; one added with an id already in use replaces it; one that came from a file is taken
/// out of service (until a reset) when the admin API removes or replaces it.
extension Engine {
    /// WireMock mappings, in match order.
    package var wiremockMappings: [Stub] {
        catalog.stubs.filter { $0.dialect == .wiremock }.sorted { $0.rank < $1.rank }
    }

    package func wiremockMapping(id: String) -> Stub? {
        let key = id.lowercased()
        return catalog.stubs.first { $0.dialect == .wiremock && $0.id == key }
    }

    /// A reading context for mapping JSON given at run time: bodies from the served folder's
    /// `__files`.
    func wiremockContext(label: String, _ dialect: WireMockDialect) -> WireMockContext {
        let root = URL(
            fileURLWithPath: options.directory ?? FileManager.default.currentDirectoryPath,
            isDirectory: true
        )
        return WireMockContext(displayPath: label, root: root, globalTemplating: dialect.options.globalTemplating)
    }

    /// Reads mappings (one, or `{"mappings": [...]}`) into runtime stubs. `id` (from the path)
    /// wins over the body's; `order` keeps a replaced mapping's place.
    package func decodeWireMockMappings(
        _ json: [UInt8],
        dialect: WireMockDialect,
        id forcedID: String? = nil,
        order: Int? = nil,
        label: String = "request body"
    ) -> Result<[Stub], StubProblems> {
        let root: JSONNode
        do {
            root = try JSONParser.parse(json)
        } catch {
            return .failure(
                StubProblems(problems: [
                    StubProblem(.error, file: label, position: error.position, message: error.message)
                ])
            )
        }
        var context = wiremockContext(label: label, dialect)
        context.errorLimit = StubProblem.decodingErrorLimit
        let mappings = WireMockReader.readFile(&context, forcedID.map { WireMockAdminJSON.withID(root, $0) } ?? root)
        var stubs: [Stub] = []
        for mapping in mappings {
            let id = forcedID?.lowercased() ?? mapping.id ?? UUID().uuidString.lowercased()
            let node = WireMockAdminJSON.withID(mapping.node, id)
            var stored = mapping
            stored.node = node
            if let stub = WireMockStubBuilder.stub(
                stored,
                &context,
                source: .runtime(id: id),
                order: order ?? dialect.nextOrder(),
                id: id,
                defaultName: mapping.name ?? mapping.summary
            ) {
                stubs.append(stub)
            }
        }
        if context.hasErrors || (stubs.isEmpty && mappings.isEmpty && context.problems.isEmpty) {
            return .failure(
                StubProblems(
                    problems: context.hasErrors
                        ? context.problems : [StubProblem(.error, file: label, message: "no mapping in the body")]
                )
            )
        }
        return .success(stubs)
    }
}
