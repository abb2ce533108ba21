#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine

/// The native admin API's route sets (docs/admin-api.md), for `Engine.Options.adminRoutes`:
/// whoever builds an engine registers them (the command line, StubKit), after any dialect's
/// (WireMock's decides which of the two answers a route both have). An engine without them
/// answers nothing at `/__admin` but what else is registered.
package enum NativeAdmin {
    /// The native API: stubs, the journal, scenarios and webhooks; the journal as
    /// server-sent events for the inspector (`GET /__admin/events`); the open WebSockets.
    package static func routeSets(events: EventFeedLimits = EventFeedLimits()) -> [any AdminRouteSet] {
        [NativeAdminRoutes(), EventRoutes(limits: events), WebSocketRoutes()]
    }
}

/// The native admin API (`/__admin/...`, see docs/admin-api.md): JSON in and out, errors as
/// `{"error": ...}` with a 4xx. It drives the engine it is registered on; it knows nothing of
/// sockets. Claims the paths under its own roots; one it has no route for gets the engine's
/// 404 or 405 (`AdminAPI.unclaimed`).
package struct NativeAdminRoutes: AdminRouteSet {
    package init() {}

    /// The paths after `/__admin` whose subtrees are this API's.
    static let roots = ["/health", "/stubs", "/reload", "/reset", "/requests", "/scenarios", "/webhooks"]

    package var routes: [(method: String, path: String)] { Self.routes }

    /// Method and path pattern (`*` is one segment or, last, the rest) of the routes, for the
    /// engine's 404 and 405 answers (with those of the other registered sets).
    static let routes: [(method: String, path: String)] =
        [
            ("GET", "/__admin/health"),
            ("GET", "/__admin/stubs"), ("POST", "/__admin/stubs"), ("DELETE", "/__admin/stubs"),
            ("GET", "/__admin/stubs/{id}"), ("PUT", "/__admin/stubs/{id}"), ("DELETE", "/__admin/stubs/{id}"),
            ("POST", "/__admin/reload"), ("POST", "/__admin/reset"),
            ("GET", "/__admin/requests"), ("DELETE", "/__admin/requests"),
            ("POST", "/__admin/requests/find"), ("POST", "/__admin/requests/count"),
            ("GET", "/__admin/requests/unmatched"), ("GET", "/__admin/requests/{id}"),
            ("GET", "/__admin/scenarios"), ("PUT", "/__admin/scenarios/{name}"), ("POST", "/__admin/scenarios/reset"),
            ("GET", "/__admin/webhooks"), ("DELETE", "/__admin/webhooks"),
        ]

    package func claims(_ request: IncomingRequest) -> Bool {
        guard let rest = AdminAPI.rest(request.path) else { return false }
        return Self.roots.contains { rest == $0 || rest.hasPrefix($0 + "/") }
    }

    /// Reloading reads the folder; adding or replacing stubs may read body files.
    package func mayReadDisk(_ request: IncomingRequest) -> Bool {
        switch request.method {
        case "POST":
            request.path.hasSuffix("/reload") || request.path.hasSuffix("/stubs") || request.path.hasSuffix("/stubs/")
        case "PUT": request.path.contains("/stubs/")
        default: false
        }
    }

    /// `GET /__admin/health` needs no token (the Host check still applies): a container's
    /// health check and an orchestrator's probe call it without secrets, and it says only that
    /// the server is up, how many stubs it has and its version.
    package func isPublic(_ request: IncomingRequest) -> Bool {
        (request.method == "GET" || request.method == "HEAD")
            && (request.path == "/__admin/health" || request.path == "/__admin/health/")
    }

    package func handle(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        NativeAdminAPI(engine: engine).handle(request, rest: AdminAPI.rest(request.path) ?? "")
    }
}

/// The native API's answers, for one request on one engine. WireMock's admin API lists
/// scenarios with the same answer (`scenarioList`).
package struct NativeAdminAPI {
    let engine: Engine

    package init(engine: Engine) {
        self.engine = engine
    }

    func handle(_ request: IncomingRequest, rest: String) -> OutgoingResponse {
        // With the journal off, "no requests" would read as "never called": say it is off instead.
        if !engine.journal.isEnabled, rest == "/requests" || rest.hasPrefix("/requests/"), request.method != "DELETE" {
            return AdminAPI.error(409, Journal.offMessage)
        }
        switch (request.method, rest) {
        case ("GET", "/health"): return health()
        case ("GET", "/stubs"): return listStubs()
        case ("POST", "/stubs"): return addStubs(request)
        case ("DELETE", "/stubs"):
            engine.removeAllRuntimeStubs()
            return AdminAPI.json(200, .object([("removed", .bool(true))]))
        case ("POST", "/reload"): return reload()
        case ("POST", "/reset"):
            engine.reset()
            return AdminAPI.json(200, .object([("reset", .bool(true))]))
        case ("GET", "/requests"): return listRequests(request)
        case ("DELETE", "/requests"):
            engine.journal.clear()
            return AdminAPI.json(200, .object([("cleared", .bool(true))]))
        case ("POST", "/requests/find"): return findRequests(request, countOnly: false)
        case ("POST", "/requests/count"): return findRequests(request, countOnly: true)
        case ("GET", "/requests/unmatched"):
            return StreamedJSON.list("requests", engine.journal.entries.filter(\.isUnmatched), encode: AdminJSON.entry)
        case ("GET", "/scenarios"): return scenarioList()
        case ("GET", "/webhooks"):
            return StreamedJSON.list("webhooks", engine.webhookLog.all, encode: AdminJSON.webhook)
        case ("DELETE", "/webhooks"):
            engine.webhookLog.clear()
            return AdminAPI.json(200, .object([("cleared", .bool(true))]))
        case ("POST", "/scenarios/reset"):
            engine.resetSequencesAndScenarios()
            return AdminAPI.json(200, .object([("reset", .bool(true))]))
        default:
            break
        }
        if rest.hasPrefix("/stubs/") {
            let id = String(rest.dropFirst("/stubs/".count))
            switch request.method {
            case "GET": return getStub(id)
            case "PUT": return replaceStub(id, request)
            case "DELETE": return deleteStub(id)
            default: return AdminAPI.methodNotAllowed(request, allowed: ["GET", "PUT", "DELETE"])
            }
        }
        let idText = rest.dropFirst("/requests/".count)
        if rest.hasPrefix("/requests/"), !idText.isEmpty, idText.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            guard request.method == "GET" else { return AdminAPI.methodNotAllowed(request, allowed: ["GET"]) }
            // Too many digits for a number is an id no entry has: 404, as for any other.
            guard let entry = Int(idText).flatMap({ engine.journal.entry(id: $0) }) else {
                let id = StubProblem.bounded(String(idText))
                return AdminAPI.error(
                    404,
                    "no journal entry \(id): the journal keeps the last \(engine.journal.capacity) requests"
                )
            }
            return AdminAPI.json(200, AdminJSON.entry(entry))
        }
        if rest.hasPrefix("/scenarios/"), rest.count > "/scenarios/".count {
            guard request.method == "PUT" else { return AdminAPI.methodNotAllowed(request, allowed: ["PUT"]) }
            return setScenario(String(rest.dropFirst("/scenarios/".count)), request)
        }
        return AdminAPI.unclaimed(request, engine: engine)
    }

    // MARK: Routes

    private func health() -> OutgoingResponse {
        AdminAPI.json(
            200,
            .object([
                ("status", .string("ok")),
                ("stubs", .number(engine.catalog.count)),
                ("uptimeSeconds", .number(Date().timeIntervalSince(engine.startedAt), decimals: 3)),
                ("version", .string(engine.options.version)),
            ])
        )
    }

    private func listStubs() -> OutgoingResponse {
        let stubs = engine.catalog.stubs.sorted { $0.rank < $1.rank }
        return StreamedJSON.list("stubs", stubs, encode: AdminJSON.stub)
    }

    private func getStub(_ id: String) -> OutgoingResponse {
        guard let stub = engine.catalog.stubs.first(where: { $0.id == id }) else { return noStub(id) }
        return AdminAPI.json(200, AdminJSON.stub(stub))
    }

    private func addStubs(_ request: IncomingRequest) -> OutgoingResponse {
        switch engine.decodeRuntimeStubs(request.body) {
        case .failure(let failure): return AdminAPI.problems(failure.problems)
        case .success(let stubs):
            engine.addRuntimeStubs(stubs)
            return AdminAPI.json(201, .object([("ids", .array(stubs.map { .string($0.id) }))]))
        }
    }

    private func replaceStub(_ id: String, _ request: IncomingRequest) -> OutgoingResponse {
        guard let existing = engine.catalog.stubs.first(where: { $0.id == id }) else { return noStub(id) }
        guard case .runtime = existing.source else {
            return AdminAPI.error(400, "\(id) comes from a file: edit the file (it reloads) or add a runtime stub")
        }
        switch engine.decodeRuntimeStubs(request.body, ids: [id]) {
        case .failure(let failure): return AdminAPI.problems(failure.problems)
        case .success(let stubs):
            guard stubs.count == 1 else { return AdminAPI.error(400, "PUT takes one stub, not \(stubs.count)") }
            // The stub may have been deleted since it was looked up: then it is gone, not replaced.
            guard engine.replaceRuntimeStub(id: id, with: stubs[0]) else { return noStub(id) }
            return AdminAPI.json(200, AdminJSON.stub(stubs[0]))
        }
    }

    private func deleteStub(_ id: String) -> OutgoingResponse {
        if engine.removeRuntimeStub(id: id) { return AdminAPI.json(200, .object([("removed", .string(id))])) }
        if engine.catalog.stubs.contains(where: { $0.id == id }) {
            return AdminAPI.error(400, "\(id) comes from a file: delete or edit the file instead")
        }
        return noStub(id)
    }

    private func reload() -> OutgoingResponse {
        guard let directory = engine.options.directory else {
            return AdminAPI.error(400, "this engine has no stub folder to reload")
        }
        let options = engine.options
        let result = StubLoader(directory: directory, format: options.folderFormat, strict: options.strict).load()
        guard result.isServable else {
            return AdminAPI.json(
                400,
                .object([
                    (
                        "error",
                        .string(
                            "the stub folder has \(result.errors.count) error(s); still serving the last good stubs"
                        )
                    ),
                    ("errors", .array(StubProblem.reported(result.errors).map { .string($0) })),
                ])
            )
        }
        engine.replace(with: result.stubs)
        return AdminAPI.json(
            200,
            .object([
                ("stubs", .number(result.stubs.count)),
                ("warnings", .array(result.warnings.map { .string($0.description) })),
            ])
        )
    }

    private func listRequests(_ request: IncomingRequest) -> OutgoingResponse {
        var entries = engine.journal.entries
        if let method = request.queryValues("method").first { entries = entries.filter { $0.method == method } }
        if let path = request.queryValues("path").first { entries = entries.filter { $0.path == path } }
        if request.queryValues("unmatched").first == "true" { entries = entries.filter(\.isUnmatched) }
        if let since = request.queryValues("since").first {
            guard let id = Int(since) else { return AdminAPI.error(400, "since must be a journal entry id (a number)") }
            entries = entries.filter { $0.id > id }
        }
        if let limit = request.queryValues("limit").first {
            guard let n = Int(limit), n >= 0 else { return AdminAPI.error(400, "limit must be a number of 0 or more") }
            entries = Array(entries.suffix(n))
        }
        return StreamedJSON.list("requests", entries, encode: AdminJSON.entry)
    }

    private func findRequests(_ request: IncomingRequest, countOnly: Bool) -> OutgoingResponse {
        let matching: [JournalEntry]
        do {
            matching = try engine.journalEntries(matching: request.body)
        } catch {
            return AdminAPI.problems(error.problems)
        }
        if countOnly { return AdminAPI.json(200, .object([("count", .number(matching.count))])) }
        return StreamedJSON.list("requests", matching, encode: AdminJSON.entry)
    }

    /// Each scenario with its state and every state its stubs name; each sequence with the
    /// index of the response it gives next. One shape for both dialects: WireMock's clients
    /// read `id`, `name`, `state` and `possibleStates`; ours `name`, `state` and `states`.
    package func scenarioList() -> OutgoingResponse {
        let known = engine.catalog.stubs.compactMap(\.scenario)
        let scenarios: [JSONNode] = engine.scenarios.map { scenario in
            var states = [ScenarioRule.initialState]
            for rule in known where rule.name == scenario.name {
                for state in [rule.when, rule.then].compactMap({ $0 }) where !states.contains(state) {
                    states.append(state)
                }
            }
            if !states.contains(scenario.state) { states.append(scenario.state) }
            return .object([
                ("id", .string(scenario.name)), ("name", .string(scenario.name)), ("state", .string(scenario.state)),
                ("states", .array(states.map { .string($0) })), ("possibleStates", .array(states.map { .string($0) })),
            ])
        }
        let sequences: [JSONNode] = engine.sequences.map { sequence in
            .object([
                ("id", .string(sequence.stub.id)), ("name", .string(sequence.stub.name)),
                ("next", .number(sequence.next)), ("responses", .number(sequence.stub.responses.count)),
                ("afterLast", .string(sequence.stub.afterLast.rawValue)),
            ])
        }
        return AdminAPI.json(200, .object([("scenarios", .array(scenarios)), ("sequences", .array(sequences))]))
    }

    private func setScenario(_ name: String, _ request: IncomingRequest) -> OutgoingResponse {
        guard let node = try? JSONParser.parse(request.body), let state = node["state"]?.string, !state.isEmpty else {
            return AdminAPI.error(400, "expected a body like {\"state\": \"paid\"}")
        }
        engine.setScenario(name, to: state)
        return AdminAPI.json(200, .object([("name", .string(name)), ("state", .string(state))]))
    }

    // MARK: Helpers

    private func noStub(_ id: String) -> OutgoingResponse {
        AdminAPI.error(404, "no stub with id \(id)")
    }
}
