#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON

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
    func wiremockContext(label: String) -> WireMockContext {
        let root = URL(
            fileURLWithPath: options.directory ?? FileManager.default.currentDirectoryPath,
            isDirectory: true
        )
        return WireMockContext(displayPath: label, root: root, globalTemplating: options.wiremock.globalTemplating)
    }

    /// Reads mappings (one, or `{"mappings": [...]}`) into runtime stubs. `id` (from the path)
    /// wins over the body's; `order` keeps a replaced mapping's place.
    package func decodeWireMockMappings(
        _ json: [UInt8],
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
        var context = wiremockContext(label: label)
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
                order: order ?? wiremock.nextOrder(),
                id: id,
                defaultName: mapping.name ?? Self.describe(mapping)
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

    /// `GET /hello`, for a mapping without a name.
    static func describe(_ m: WireMockMapping) -> String {
        let method = m.request.methods?.joined(separator: "|") ?? "ANY"
        let url: String
        switch m.request.url {
        case .url(let s)?, .urlPath(let s)?, .urlPathTemplate(let s, _)?: url = s
        case .urlPattern(let r)?, .urlPathPattern(let r)?: url = r.pattern
        case nil: url = "(any URL)"
        }
        return "\(method) \(url)"
    }

    /// Adds or replaces mappings by id: a file mapping with the same id is taken out of
    /// service, a runtime one replaced in place.
    package func putWireMockStubs(_ stubs: [Stub]) {
        state.withLock { s in
            let ids = Set(stubs.map(\.id))
            let replacing =
                s.runtimeStubs.contains { ids.contains($0.id) } || s.fileStubs.contains { ids.contains($0.id) }
            guard replacing else {
                s.addRuntimeStubs(stubs)
                return
            }
            var runtime = s.runtimeStubs
            for stub in stubs {
                if let i = runtime.firstIndex(where: { $0.id == stub.id }) {
                    runtime[i] = stub
                } else {
                    runtime.append(stub)
                }
            }
            s.hiddenFileStubIDs.formUnion(s.fileStubs.lazy.map(\.id).filter(ids.contains))
            s.setRuntimeStubs(runtime)
        }
    }

    /// Removes mappings by id, whatever their origin; returns how many there were.
    @discardableResult
    package func removeWireMockStubs(ids: Set<String>) -> Int {
        state.withLock { s in
            let runtime = s.runtimeStubs.filter { !ids.contains($0.id) }
            let files = s.fileStubs.lazy.map(\.id).filter(ids.contains)
            let removed = s.runtimeStubs.count - runtime.count + Set(files).subtracting(s.hiddenFileStubIDs).count
            s.hiddenFileStubIDs.formUnion(files)
            s.setRuntimeStubs(runtime)
            return removed
        }
    }

    /// New file stubs (a folder just saved into), and the runtime stubs they were made from
    /// removed, in one step: no request sees both or neither.
    package func replaceFileStubs(_ stubs: [Stub], removingRuntime ids: Set<String>) {
        state.withLock { s in
            s.runtimeStubs.removeAll { ids.contains($0.id) }
            s.replaceFileStubs(stubs)
        }
    }

    /// `POST /__admin/mappings/reset`: the mappings from files again, none added at run time.
    package func resetMappings() {
        state.withLock { s in
            s.hiddenFileStubIDs = []
            s.setRuntimeStubs([])
        }
    }
}
