import Foundation
import HTTP1

/// What the engine did with one request: the response, and which stub (if any) produced it.
public struct StubOutcome: Sendable {
    public let response: HTTPResponse
    /// nil when no stub matched; `nearMiss` then says why.
    public let stub: Stub?
    public let nearMiss: NearMissReport?
    /// A CORS preflight answered by `--cors` rather than by a stub.
    public let isPreflight: Bool

    public init(response: HTTPResponse, stub: Stub?, nearMiss: NearMissReport?, isPreflight: Bool = false) {
        self.response = response
        self.stub = stub
        self.nearMiss = nearMiss
        self.isPreflight = isPreflight
    }
}

/// The stub engine: takes a request, gives back a response. It knows nothing of sockets, so the
/// same engine serves over the HTTP server, in-process, and in unit tests.
///
/// The current stubs are one immutable `StubCatalog` behind a lock held only long enough to copy
/// a reference: a reload builds the new catalog aside and swaps it in whole, so no request ever
/// sees half a folder.
public final class StubEngine: Sendable {
    private let current: LockedReference<StubCatalog>
    private let cors: CORSPolicy?

    public init(stubs: [Stub] = [], cors: CORSPolicy? = nil) {
        current = LockedReference(StubCatalog(stubs))
        self.cors = cors
    }

    public var catalog: StubCatalog { current.value }

    /// `{{request.baseUrl}}` for a request that names no host (HTTP/1.0 without `Host`):
    /// the server sets its own address here once it listens.
    public let fallbackBaseURL = LockedReference("http://localhost")

    /// Atomically replaces every stub.
    public func replace(with stubs: [Stub]) {
        current.value = StubCatalog(stubs)
    }

    public func handle(_ request: HTTPRequest) -> StubOutcome {
        guard let cors else { return match(request) }
        if let preflight = cors.preflight(request) {
            return StubOutcome(response: preflight, stub: nil, nearMiss: nil, isPreflight: true)
        }
        let outcome = match(request)
        return StubOutcome(response: cors.decorate(outcome.response, for: request), stub: outcome.stub, nearMiss: outcome.nearMiss)
    }

    private func match(_ request: HTTPRequest) -> StubOutcome {
        let catalog = current.value
        let facts = RequestFacts(request)
        if let (stub, captures) = catalog.bestMatch(facts) {
            let response = stub.response.makeHTTPResponse(
                TemplateContext(facts: facts, captures: captures, fallbackBaseURL: fallbackBaseURL.value))
            return StubOutcome(response: response, stub: stub, nearMiss: nil)
        }
        let report = NearMissReport.build(for: facts, in: catalog)
        return StubOutcome(response: report.response(for: request), stub: nil, nearMiss: report)
    }
}

/// One value behind a lock. The engine's only shared mutable state.
public final class LockedReference<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    public init(_ value: Value) { stored = value }

    public var value: Value {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}
