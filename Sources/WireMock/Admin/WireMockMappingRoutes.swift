#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubAuthoring
import StubEngine

/// `/__admin/mappings`: list (with `meta.total`, `limit` and `offset`), create (with or without
/// an id), get, edit (the id in the path wins), remove one or all, reset to the files, save to
/// the folder, import, and find or remove by metadata.
struct WireMockMappingRoutes {
    let engine: Engine
    let dialect: WireMockDialect

    func handle(_ request: IncomingRequest, rest: String) -> OutgoingResponse {
        switch (request.method, rest) {
        case ("GET", "/mappings"): return list(request)
        case ("POST", "/mappings"): return create(request)
        case ("DELETE", "/mappings"):
            engine.removeStubs(ids: Set(engine.wiremockMappings.map(\.id)))
            return WireMockAdminJSON.empty
        case ("POST", "/mappings/reset"):
            engine.restoreFileStubs()
            return WireMockAdminJSON.empty
        case ("POST", "/mappings/save"): return save()
        case ("POST", "/mappings/import"): return importMappings(request)
        case ("POST", "/mappings/find-by-metadata"): return byMetadata(request, remove: false)
        case ("POST", "/mappings/remove-by-metadata"): return byMetadata(request, remove: true)
        case ("GET", "/mappings/unmatched"): return unmatched()
        default: break
        }
        let id = String(rest.dropFirst("/mappings/".count))
        guard rest.hasPrefix("/mappings/"), !id.contains("/") else {
            return WireMockAdmin(engine: engine, dialect: dialect).notFound(request)
        }
        switch request.method {
        case "GET":
            guard let stub = engine.wiremockMapping(id: id) else { return noMapping(id) }
            return WireMockAdminJSON.json(200, WireMockAdminJSON.mapping(stub))
        case "PUT": return edit(id, request)
        case "DELETE":
            return engine.removeStubs(ids: [id.lowercased()]) > 0 ? WireMockAdminJSON.empty : noMapping(id)
        default: return WireMockAdmin(engine: engine, dialect: dialect).notFound(request)
        }
    }

    private func noMapping(_ id: String) -> OutgoingResponse {
        WireMockAdminJSON.error(404, "no mapping with id \(id)")
    }

    private func list(_ request: IncomingRequest) -> OutgoingResponse {
        let all = engine.wiremockMappings
        var page = all[...]
        if let offset = request.queryValues("offset").first.flatMap(Int.init), offset > 0 {
            page = page.dropFirst(offset)
        }
        if let limit = request.queryValues("limit").first.flatMap(Int.init), limit >= 0 { page = page.prefix(limit) }
        return WireMockAdminJSON.json(
            200,
            .object([
                ("mappings", .array(page.map(WireMockAdminJSON.mapping))),
                ("meta", .object([("total", .number(all.count))])),
            ])
        )
    }

    private func create(_ request: IncomingRequest) -> OutgoingResponse {
        switch engine.decodeWireMockMappings(request.body, dialect: dialect) {
        case .failure(let failure): return WireMockAdminJSON.problems(failure.problems)
        case .success(let stubs):
            guard stubs.count == 1 else {
                return WireMockAdminJSON.error(
                    422,
                    "POST /__admin/mappings takes one mapping; use /__admin/mappings/import for several"
                )
            }
            engine.putStubs(stubs)
            return WireMockAdminJSON.json(201, WireMockAdminJSON.mapping(stubs[0]))
        }
    }

    /// The id in the path wins over an `id` or `uuid` in the body; the mapping keeps its place
    /// among equals, as WireMock keeps its insertion index.
    private func edit(_ id: String, _ request: IncomingRequest) -> OutgoingResponse {
        guard let existing = engine.wiremockMapping(id: id) else { return noMapping(id) }
        switch engine.decodeWireMockMappings(
            request.body,
            dialect: dialect,
            id: existing.id,
            order: existing.rank.order
        ) {
        case .failure(let failure): return WireMockAdminJSON.problems(failure.problems)
        case .success(let stubs):
            guard stubs.count == 1 else { return WireMockAdminJSON.error(422, "PUT takes one mapping") }
            engine.putStubs(stubs)
            return WireMockAdminJSON.json(200, WireMockAdminJSON.mapping(stubs[0]))
        }
    }

    /// `{"mappings": [...], "importOptions": {"duplicatePolicy": "OVERWRITE" | "IGNORE",
    /// "deleteAllNotInImport": false}}`.
    private func importMappings(_ request: IncomingRequest) -> OutgoingResponse {
        guard let root = try? JSONParser.parse(request.body), root["mappings"]?.elements != nil else {
            return WireMockAdminJSON.error(
                400,
                "expected a body like {\"mappings\": [...], \"importOptions\": {\"duplicatePolicy\": \"OVERWRITE\"}}"
            )
        }
        let options = root["importOptions"]
        let policy = options?["duplicatePolicy"]?.string ?? "OVERWRITE"
        guard policy == "OVERWRITE" || policy == "IGNORE" else {
            return WireMockAdminJSON.error(422, "duplicatePolicy is OVERWRITE or IGNORE, not \(policy)")
        }
        let stubs: [Stub]
        switch engine.decodeWireMockMappings(request.body, dialect: dialect) {
        case .failure(let failure): return WireMockAdminJSON.problems(failure.problems)
        case .success(let decoded): stubs = decoded
        }
        let existing = Set(engine.wiremockMappings.map(\.id))
        if options?["deleteAllNotInImport"]?.bool == true {
            engine.removeStubs(ids: existing.subtracting(stubs.map(\.id)))
        }
        engine.putStubs(policy == "IGNORE" ? stubs.filter { !existing.contains($0.id) } : stubs)
        return WireMockAdminJSON.empty
    }

    /// Writes the mappings added at run time into `mappings/` (one file each, named from the
    /// mapping, never replacing a file), then serves them as file mappings.
    private func save() -> OutgoingResponse {
        guard engine.options.folderFormat is WireMockFolderFormat, let directory = engine.options.directory else {
            return WireMockAdminJSON.error(
                400,
                "this server does not serve a WireMock folder (--wiremock DIR), so there is no mappings/ to save into"
            )
        }
        let runtime = engine.wiremockMappings.filter { if case .runtime = $0.source { true } else { false } }
        guard !runtime.isEmpty else { return WireMockAdminJSON.empty }
        let folder = WireMockFolderLoader(directory: URL(fileURLWithPath: directory), displayName: directory)
            .mappingsFolder
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var names = FileNameAllocator(reserving: Set(existing))
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for stub in runtime {
                let base = FileNameAllocator.slug(stub.name, fallback: "mapping") + "-" + stub.id.prefix(8)
                let file = folder.appendingPathComponent(names.allocate(String(base), extension: "json"))
                try Data(JSONPrettyPrinter.bytes(WireMockAdminJSON.mapping(stub))).write(
                    to: file,
                    options: .withoutOverwriting
                )
            }
        } catch {
            return WireMockAdminJSON.error(500, "cannot save into \(folder.path): \(describe(error))")
        }
        let reloaded = StubLoader(
            directory: directory,
            format: engine.options.folderFormat,
            strict: engine.options.strict
        ).load()
        guard reloaded.isServable else {
            return WireMockAdminJSON.problems(reloaded.errors)
        }
        engine.replaceFileStubs(reloaded.stubs, removingRuntime: Set(runtime.map(\.id)))
        return WireMockAdminJSON.empty
    }

    /// The body is a matcher applied to each mapping's `metadata` as JSON.
    private func byMetadata(_ request: IncomingRequest, remove: Bool) -> OutgoingResponse {
        guard let node = try? JSONParser.parse(request.body) else {
            return WireMockAdminJSON.error(
                400,
                "expected a matcher such as {\"matchesJsonPath\": {\"expression\": \"$.tag\", \"equalTo\": \"x\"}}"
            )
        }
        var context = engine.wiremockContext(label: "request body", dialect)
        guard let pattern = WireMockPatternReader.pattern(&context, node, "$"), !context.hasErrors else {
            return WireMockAdminJSON.problems(context.problems)
        }
        let found = engine.wiremockMappings.filter { stub in
            guard let metadata = stub.definition?["metadata"] else { return false }
            return pattern.matches(JSONSerializer.string(metadata))
        }
        if remove {
            engine.removeStubs(ids: Set(found.map(\.id)))
            return WireMockAdminJSON.empty
        }
        return WireMockAdminJSON.json(
            200,
            .object([
                ("mappings", .array(found.map(WireMockAdminJSON.mapping))),
                ("meta", .object([("total", .number(found.count))])),
            ])
        )
    }

    /// Mappings no request in the journal matched.
    private func unmatched() -> OutgoingResponse {
        let used = Set(engine.journal.entries.compactMap(\.stubID))
        let unused = engine.wiremockMappings.filter { !used.contains($0.id) }
        return WireMockAdminJSON.json(
            200,
            .object([
                ("mappings", .array(unused.map(WireMockAdminJSON.mapping))),
                ("meta", .object([("total", .number(unused.count))])),
            ])
        )
    }
}
