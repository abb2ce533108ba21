import HTTP1
import JSON

/// What the engine knows of the admin API (`/__admin/...`): how a request is recognised as an
/// admin one, how it is dispatched to the registered `AdminRouteSet`s, the answer when none of
/// them claims it, and the JSON answers every set shares. The routes themselves are plugged in
/// from outside (`Engine.Options.adminRoutes`): the native API (the `StubAdmin` module), the
/// inspector's page, WireMock's API. An engine with none registered answers every admin request
/// with the 404 that lists no routes.
package enum AdminAPI {
    package static let prefix = "/__admin"

    /// Asked of every request (and again by the contract check): by bytes, where comparing
    /// `String`s cost some 100 instructions. The same answer as by characters: the prefix is
    /// ASCII, no other character is canonically equivalent to one of its characters, and a
    /// combining mark after it is no "/" either way.
    package static func claims(_ path: String) -> Bool {
        let answer = path.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.count >= 8 else { return false }
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(as: UInt64.self))
            return word == prefixWord && (bytes.count == 8 || bytes[8] == UInt8(ascii: "/"))
        }
        return answer
            ?? (path.hasPrefix(prefix)
                && (path.count == prefix.count || path.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/")))
    }

    /// The eight bytes of `prefix` as one little-endian word.
    private static let prefixWord = prefix.utf8.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }

    /// The path after `/__admin`, without a final `/` (`/stubs` for `/__admin/stubs/`); nil
    /// outside the admin API. Route sets match on it.
    package static func rest(_ path: String) -> String? {
        guard claims(path) else { return nil }
        let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        return String(trimmed.dropFirst(prefix.count))
    }

    /// Answers a request that `AdminProtection` let through (`AdminResponder` checks first): the
    /// first set that claims it, in the order they were registered, or the engine's 404 or 405.
    static func answer(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        for routeSet in engine.options.adminRoutes where routeSet.claims(request) {
            return routeSet.handle(request, engine: engine)
        }
        return unclaimed(request, engine: engine)
    }

    /// A request no set answers: 405 with `Allow` when a route of the engine's own API has its
    /// path, otherwise 404 with every route registered (another API's, such as WireMock's, apart).
    /// A set may end here too, for a path under its own that it has no route for.
    package static func unclaimed(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        let path =
            request.path.hasSuffix("/") && request.path.count > 1 ? String(request.path.dropLast()) : request.path
        let routeSets = engine.options.adminRoutes
        let routes = routeSets.filter { $0.otherAPI == nil }.flatMap(\.routes)
        let allowed = routes.filter { $0.path == path }.map(\.method)
        if !allowed.isEmpty { return methodNotAllowed(request, allowed: allowed) }
        var listing: [(String, JSONNode)] = [
            ("error", .string("no admin route \(request.method) \(request.path)")),
            ("routes", .array(routes.map { .string("\($0.method) \($0.path)") })),
        ]
        for routeSet in routeSets {
            guard let api = routeSet.otherAPI else { continue }
            listing.append((api + "Routes", .array(routeSet.routes.map { .string("\($0.method) \($0.path)") })))
        }
        return json(404, .object(listing))
    }

    package static func methodNotAllowed(_ request: IncomingRequest, allowed: [String]) -> OutgoingResponse {
        var response = error(
            405,
            "\(request.method) is not allowed on \(request.path); use \(allowed.joined(separator: ", "))"
        )
        response.prepared = response.prepared.adding(HeaderFields([("Allow", allowed.joined(separator: ", "))]))
        return response
    }

    /// What a refused admin request gets: the status, and a message naming the flag or header
    /// that would let it in. No CORS headers, whatever `--cors` says: those are for the stubs.
    static func refusal(_ refusal: AdminProtection.Refusal) -> OutgoingResponse {
        var response = error(refusal.status, refusal.message)
        if refusal == .unauthorized {
            response.prepared = response.prepared.adding(HeaderFields([("WWW-Authenticate", "Bearer")]))
        }
        return response
    }

    package static func problems(_ problems: [StubProblem]) -> OutgoingResponse {
        let errors = problems.filter { $0.severity == .error }
        return json(
            400,
            .object([
                ("error", .string(errors.first.map(\.reportedDescription) ?? "invalid stub")),
                ("errors", .array(StubProblem.reported(errors).map { .string($0) })),
            ])
        )
    }

    package static func error(_ status: Int, _ message: String) -> OutgoingResponse {
        json(status, .object([("error", .string(StubProblem.bounded(message)))]))
    }

    package static func json(_ status: Int, _ node: JSONNode) -> OutgoingResponse {
        OutgoingResponse(
            status: status,
            headers: HeaderFields([("Content-Type", "application/json")]),
            body: JSONSerializer.bytes(node)
        )
    }
}
