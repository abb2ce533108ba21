import HTTP1

/// The engine's registry of admin routes: every route under `/__admin` is plugged in from
/// outside through `Engine.Options.adminRoutes`, by whoever builds the engine: the native admin
/// API (the `StubAdmin` module: stubs, the journal, scenarios, the event streams, WebSockets),
/// the inspector's page (the `Inspector` module), WireMock's admin API (the `WireMock` module).
/// The engine owns the registry and the policy: `AdminResponder` applies `AdminProtection` to
/// every admin request first, then asks each set in order whether it answers (`AdminAPI.answer`).
package protocol AdminRouteSet: Sendable {
    /// Method and path of each route, listed in the admin API's 404 and 405 answers.
    var routes: [(method: String, path: String)] { get }

    /// Whether this set answers the request (any method: it answers 405 itself).
    func claims(_ request: IncomingRequest) -> Bool

    /// Whether the request may be answered without the admin token: routes that hold no data,
    /// such as a page that must load before it can ask for the token. The Host check still applies.
    func isPublic(_ request: IncomingRequest) -> Bool

    /// Whether answering the request may read or write the disk (body files, a folder saved):
    /// then it is answered on the engine's admin queue, never on an event loop's thread.
    func mayReadDisk(_ request: IncomingRequest) -> Bool

    /// The admin API these routes belong to when it is another one beside the engine's own on
    /// the same port (`wiremock`): the engine's 404 lists them apart (`wiremockRoutes`) and its
    /// 405 answers leave them out. nil: routes of the engine's own API (the inspector's page).
    var otherAPI: String? { get }

    /// Answers a request it claims, once the access checks let it through.
    func handle(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse
}

extension AdminRouteSet {
    package func isPublic(_ request: IncomingRequest) -> Bool {
        false
    }

    package func mayReadDisk(_ request: IncomingRequest) -> Bool {
        false
    }

    package var otherAPI: String? { nil }
}
