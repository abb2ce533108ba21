#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import HTTP1
import JSON
import StubAdmin
import StubEngine

/// WireMock's admin API plugged into the engine's (an `AdminRouteSet`): the routes only WireMock
/// has, WireMock's record spec, and the routes both APIs have when `AdminDialects` says the
/// request is WireMock's. Asked before the engine's own routes.
package struct WireMockAdminRoutes: AdminRouteSet {
    let dialect: WireMockDialect

    package var routes: [(method: String, path: String)] { WireMockAdmin.routes }
    package var otherAPI: String? { "wiremock" }

    package func claims(_ request: IncomingRequest) -> Bool {
        guard let rest = AdminAPI.rest(request.path) else { return false }
        if WireMockAdmin.isOwnRoute(rest) { return true }
        // WireMock's record spec names its upstream targetBaseUrl; ours says "to".
        if rest == "/recordings/start", request.body.count < 65_536,
            (try? JSONParser.parse(request.body))?["targetBaseUrl"] != nil
        {
            return true
        }
        guard AdminDialects.isShared(request.method, rest) else { return false }
        return AdminDialects.choose(request, rest: rest, default: dialect.options.adminDialect) == .wiremock
    }

    /// Mappings may name body files, and saving writes the folder.
    package func mayReadDisk(_ request: IncomingRequest) -> Bool {
        request.path.hasPrefix("/__admin/mappings") && (request.method == "POST" || request.method == "PUT")
    }

    package func handle(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        WireMockAdmin(engine: engine, dialect: dialect).handle(request, rest: AdminAPI.rest(request.path) ?? "")
    }
}

/// WireMock's admin API on the engine's port, so WireMock clients (Java, Python, JavaScript,
/// Swift's WiremockClient) work unchanged: mappings, the request journal as serve events, near
/// misses, scenarios, settings, reset, health and (behind `--allow-shutdown`) shutdown.
/// `AdminDialects` decides which requests come here (`WireMockAdminRoutes`).
struct WireMockAdmin {
    let engine: Engine
    let dialect: WireMockDialect

    /// Routes only WireMock has (after `/__admin`).
    static func isOwnRoute(_ rest: String) -> Bool {
        let roots = [
            "/mappings", "/near-misses", "/settings", "/shutdown", "/version", "/requests/remove",
            "/requests/reset", "/requests/remove-by-metadata", "/requests/unmatched/near-misses",
            "/recordings/snapshot",
        ]
        if rest.hasPrefix("/scenarios/"), rest.hasSuffix("/state") { return true }
        return roots.contains { rest == $0 || rest.hasPrefix($0 + "/") }
    }

    static let routes: [(method: String, path: String)] = [
        ("GET", "/__admin/mappings"), ("POST", "/__admin/mappings"), ("DELETE", "/__admin/mappings"),
        ("GET", "/__admin/mappings/{id}"), ("PUT", "/__admin/mappings/{id}"), ("DELETE", "/__admin/mappings/{id}"),
        ("POST", "/__admin/mappings/save"), ("POST", "/__admin/mappings/import"), ("POST", "/__admin/mappings/reset"),
        ("POST", "/__admin/mappings/find-by-metadata"), ("POST", "/__admin/mappings/remove-by-metadata"),
        ("GET", "/__admin/mappings/unmatched"),
        ("GET", "/__admin/requests"), ("DELETE", "/__admin/requests"), ("GET", "/__admin/requests/{id}"),
        ("DELETE", "/__admin/requests/{id}"), ("POST", "/__admin/requests/find"), ("POST", "/__admin/requests/count"),
        ("POST", "/__admin/requests/remove"), ("POST", "/__admin/requests/remove-by-metadata"),
        ("POST", "/__admin/requests/reset"),
        ("GET", "/__admin/requests/unmatched"), ("GET", "/__admin/requests/unmatched/near-misses"),
        ("POST", "/__admin/near-misses/request"), ("POST", "/__admin/near-misses/request-pattern"),
        ("GET", "/__admin/scenarios"), ("POST", "/__admin/scenarios/reset"), ("PUT", "/__admin/scenarios/{name}/state"),
        ("GET", "/__admin/settings"), ("POST", "/__admin/settings"), ("PUT", "/__admin/settings"),
        ("POST", "/__admin/reset"), ("GET", "/__admin/health"), ("GET", "/__admin/version"),
        ("POST", "/__admin/shutdown"),
    ]

    func handle(_ request: IncomingRequest, rest: String) -> OutgoingResponse {
        let mappings = WireMockMappingRoutes(engine: engine, dialect: dialect)
        let requests = WireMockRequestRoutes(engine: engine, dialect: dialect)
        switch (request.method, rest) {
        case ("GET", "/health"): return health()
        case ("GET", "/version"):
            return WireMockAdminJSON.json(200, .object([("version", .string(engine.options.version))]))
        case ("POST", "/reset"):
            engine.reset()
            return WireMockAdminJSON.empty
        case ("POST", "/shutdown"): return shutdown()
        case ("GET", "/settings"): return settings()
        case ("POST", "/settings"), ("PUT", "/settings"): return updateSettings(request)
        case (_, "/recordings/snapshot"), ("POST", "/recordings/start"):
            return WireMockAdminJSON.error(
                501,
                """
                WireMock's recording and snapshots are not supported; record with stubserver record --proxy URL \
                --out DIR or POST /__admin/recordings/start {\"to\": URL} (docs/proxy.md)
                """
            )
        default: break
        }
        if rest == "/mappings" || rest.hasPrefix("/mappings/") { return mappings.handle(request, rest: rest) }
        if rest.hasPrefix("/requests") || rest.hasPrefix("/near-misses/") {
            return requests.handle(request, rest: rest)
        }
        if rest.hasPrefix("/scenarios") { return scenarios(request, rest: rest) }
        return notFound(request)
    }

    func notFound(_ request: IncomingRequest) -> OutgoingResponse {
        let path = request.path
        let allowed = Self.routes.filter { Self.matches($0.path, path) }.map(\.method)
        if !allowed.isEmpty {
            var response = WireMockAdminJSON.error(
                405,
                "\(request.method) is not allowed on \(path); use \(allowed.joined(separator: ", "))"
            )
            response.prepared = response.prepared.adding(HeaderFields([("Allow", allowed.joined(separator: ", "))]))
            return response
        }
        return WireMockAdminJSON.error(404, "no WireMock admin route \(request.method) \(path)")
    }

    private static func matches(_ route: String, _ path: String) -> Bool {
        let a = route.split(separator: "/")
        let b = path.split(separator: "/")
        return a.count == b.count && zip(a, b).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }

    private func health() -> OutgoingResponse {
        WireMockAdminJSON.json(
            200,
            .object([
                ("status", .string("healthy")),
                ("message", .string("stubserver is ok")),
                ("version", .string(engine.options.version)),
                ("uptimeInSeconds", .number(Int(Date().timeIntervalSince(engine.startedAt)))),
                (
                    "timestamp",
                    .string(
                        DateFormats.rfc3339(
                            epochMilliseconds: Int(Date().timeIntervalSince1970 * 1000),
                            withMilliseconds: true
                        )
                    )
                ),
            ])
        )
    }

    private func shutdown() -> OutgoingResponse {
        guard dialect.options.allowShutdown, let stop = dialect.shutdown.value else {
            return WireMockAdminJSON.error(
                403,
                "shutting down through the admin API is off; start the server with --allow-shutdown to allow it"
            )
        }
        // After this answer has gone: the server's stop lets responses in flight finish.
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { stop() }
        return WireMockAdminJSON.empty
    }

    private func settings() -> OutgoingResponse {
        WireMockAdminJSON.json(
            200,
            .object([("settings", .object([("fixedDelay", .number(engine.globalDelay.value))]))])
        )
    }

    /// `{"fixedDelay": 500}` (or inside `"settings"`); other settings are refused by name.
    private func updateSettings(_ request: IncomingRequest) -> OutgoingResponse {
        guard let root = try? JSONParser.parse(request.body), root.members != nil else {
            return WireMockAdminJSON.error(400, "expected a body like {\"fixedDelay\": 500}")
        }
        let node = root["settings"] ?? root
        for member in node.members ?? [] where member.key != "fixedDelay" {
            return WireMockAdminJSON.error(
                422,
                "the setting \"\(member.key)\" is not supported; stubserver has fixedDelay"
            )
        }
        if let delay = node["fixedDelay"] {
            guard delay.value.isNull || delay.wholeNumber.map({ (0...600_000).contains($0) }) == true
            else {
                return WireMockAdminJSON.error(422, "fixedDelay is milliseconds from 0 to 600000")
            }
            engine.globalDelay.value = delay.wholeNumber ?? 0
        }
        return settings()
    }

    /// `GET /scenarios` (the shape both dialects read), reset all, set or reset one.
    private func scenarios(_ request: IncomingRequest, rest: String) -> OutgoingResponse {
        switch (request.method, rest) {
        case ("GET", "/scenarios"): return NativeAdminAPI(engine: engine).scenarioList()
        case ("POST", "/scenarios/reset"):
            engine.resetSequencesAndScenarios()
            return WireMockAdminJSON.empty
        default: break
        }
        let parts = rest.split(separator: "/").map(String.init)
        guard parts.count == 3, parts[0] == "scenarios", request.method == "PUT" || request.method == "POST",
            parts[2] == "state" || parts[2] == "reset"
        else { return notFound(request) }
        let name = parts[1]
        guard engine.scenarios.contains(where: { $0.name == name }) else {
            return WireMockAdminJSON.error(404, "no scenario named \(name)")
        }
        var state = ScenarioRule.initialState
        if parts[2] == "state", !request.body.isEmpty {
            guard let node = try? JSONParser.parse(request.body), let given = node["state"]?.string, !given.isEmpty
            else {
                return WireMockAdminJSON.error(400, "expected a body like {\"state\": \"paid\"}")
            }
            state = given
        }
        engine.setScenario(name, to: state)
        return WireMockAdminJSON.empty
    }
}

extension JSONNode.Value {
    var isNull: Bool { if case .null = self { true } else { false } }
}
