import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import SystemSupport

/// The stub engine: takes a request, gives back a response. It knows nothing of sockets, so the
/// same engine serves over the HTTP server, in-process, and in unit tests.
///
/// A request goes through a chain of responders (`makeChain`): wrappers that observe or adjust
/// every outcome (journal, request log, global delay, CORS), then responders that may answer
/// (admin API, CORS preflight, stubs), then the near-miss fallback.
///
/// All shared state (the stubs, sequence positions, scenario states) is one `EngineState` behind
/// one lock. The stubs are an immutable `StubCatalog`: a reload builds the new one aside and swaps
/// it in whole, so no request sees half a folder. Matching runs outside the lock on a snapshot;
/// a stateful stub's answer is committed under it (see `StubMatchResponder`).
package final class Engine: Sendable {
    /// How an engine is set up; every field but the stub format has the command line's default
    /// (`NativeStubs` adds `Options()` for native stubs, what every server reads).
    package struct Options: Sendable {
        /// How stub JSON given at run time (the admin API, StubKit's definitions, verifications)
        /// is read: the native format, plugged in from outside (`NativeStubs.NativeStubDecoder`).
        package var stubDecoder: any StubDecoder
        /// Answer CORS preflights and add CORS headers (`--cors`).
        package var cors: CORSPolicy?
        /// Journal entries kept (`--journal N`); 0 turns the journal off.
        package var journalCapacity = 1000
        /// Who may use the admin API and the inspector: the token, and the hosts and origins
        /// they answer (`--admin-token`, `--allowed-host`, `--admin-origin`).
        package var admin = AdminProtection()
        /// The stub folder: runtime stubs' `bodyFile`s are relative to it, and `POST /__admin/reload` reads it.
        package var directory: String?
        /// Reported by `GET /__admin/health`.
        package var version = "dev"
        /// `--delay MS`: added to every answer that imitates the API (not admin, not preflights).
        package var globalDelayMilliseconds = 0
        /// `--max-rendered-body SIZE`: a template that renders more answers `500` instead.
        package var maximumRenderedBytes = TemplateContext.defaultMaximumRenderedBytes
        /// Outermost wrappers of the chain (the command line's request log).
        package var wrappers: [any ResponderWrapper] = []
        /// `--proxy URL`: requests no stub matches are forwarded instead of answered 404 (the
        /// initial value of `fallbackProxy`).
        package var proxy: ProxyRule?
        /// The admin API's routes, asked in order (`AdminRouteSet`): none unless the builder
        /// registers them. The command line registers WireMock's admin API, the native one
        /// (`StubAdmin`'s `NativeAdmin.routeSets`) and the inspector's page; StubKit the native one.
        package var adminRoutes: [any AdminRouteSet] = []
        /// How long an event stream's client may leave a full buffer untouched before the
        /// stream is dropped (and journaled as dropped).
        package var streamStallMilliseconds = 5_000
        /// How `directory` is written, for reloads: stub files (`NativeStubs.NativeStubFolder`),
        /// or a dialect's folder (a WireMock folder, `--wiremock`), each plugged in from outside.
        package var folderFormat: any StubFolderFormat
        /// Warnings are errors when the folder is reloaded (`--strict`).
        package var strict = false
        /// `--openapi SPEC`: every request checked against the document (the engine sees only
        /// the `RequestContract`; `StubImport.OpenAPIContract` reads documents).
        package var contract: (any RequestContract)?
        /// `--openapi-enforce`: a request that breaks the contract is answered 400 or 422 with a
        /// problem report, before any stub.
        package var enforcesContract = false
        /// `--forward-proxy`: the server as a device's HTTP proxy (`CONNECT`, absolute-form).
        package var forwardProxy: ForwardProxy?
        /// What watches the exchanges forwarded because no stub answered them: the recorder
        /// (`StubAuthoring`), plugged in by whoever builds the engine with its admin routes.
        package var exchangeObservers: [any ForwardedExchangeObserver] = []

        package init(
            stubDecoder: any StubDecoder,
            folderFormat: any StubFolderFormat,
            cors: CORSPolicy? = nil,
            journalCapacity: Int = 1000,
            adminToken: String? = nil,
            directory: String? = nil,
            version: String = "dev",
            globalDelayMilliseconds: Int = 0
        ) {
            self.stubDecoder = stubDecoder
            self.folderFormat = folderFormat
            self.cors = cors
            self.journalCapacity = journalCapacity
            self.admin = AdminProtection(token: adminToken)
            self.directory = directory
            self.version = version
            self.globalDelayMilliseconds = globalDelayMilliseconds
        }
    }

    let state: Locked<EngineState>
    package let options: Options
    package let journal: Journal
    package let startedAt = Date()
    /// Where admin work that reads the disk runs, one at a time, off the event loops.
    let adminQueue = DispatchQueue(label: "stubserver.admin")

    /// `{{request.baseUrl}}` for a request that names no host (HTTP/1.0 without `Host`):
    /// the server sets its own address here once it listens.
    package let fallbackBaseURL = Locked("http://localhost")

    /// What forwards requests to upstreams (the server's HTTP client, URLSession for https),
    /// set once the server that carries it exists.
    package let upstream = Locked<(any UpstreamTransport)?>(nil)

    /// Where requests no stub matches go (`--proxy`, `LocalStubServer(proxyingUnmatchedTo:)`,
    /// or a recording's upstream); nil: the near-miss 404.
    package let fallbackProxy: Locked<ProxyRule?>

    /// Milliseconds added before every answer that imitates the API: `--delay`, and WireMock's
    /// `fixedDelay` setting, which its admin API changes at run time.
    package let globalDelay: Locked<Int>

    /// The webhook calls made after answers, with how each ended (`GET /__admin/webhooks`).
    package let webhookLog: WebhookLog
    /// Open WebSocket connections, for `GET /__admin/websockets` and pushes from tests.
    package let webSockets = WebSocketHub()

    package init(stubs: [Stub], options: Options) {
        state = Locked(EngineState(fileStubs: stubs))
        self.options = options
        fallbackProxy = Locked(options.proxy)
        globalDelay = Locked(options.globalDelayMilliseconds)
        journal = Journal(capacity: options.journalCapacity)
        webhookLog = WebhookLog(capacity: max(100, options.journalCapacity))
        chain = ResponderChain(wrappers: [], responders: [], fallback: NearMissResponder(state: state))
        chain = Self.makeChain(self, options: options)
    }

    /// Set once, at the end of `init` (it refers back to the engine, so `self` must exist
    /// first), and never changed after: read without a lock on every request.
    private nonisolated(unsafe) var chain: ResponderChain

    package var catalog: StubCatalog { state.withLock { $0.catalog } }

    /// Atomically replaces the file stubs (after a reload). Runtime stubs, sequence positions
    /// and scenario states are kept.
    package func replace(with stubs: [Stub]) {
        state.withLock { $0.replaceFileStubs(stubs) }
    }

    /// Adds runtime stubs (they come before file stubs of equal priority and specificity). Each
    /// is inserted into the catalog at its rank; nothing is rebuilt.
    package func addRuntimeStubs(_ stubs: [Stub]) {
        state.withLock { $0.addRuntimeStubs(stubs) }
    }

    /// Removes one runtime stub; false when there is none with that id.
    @discardableResult
    package func removeRuntimeStub(id: String) -> Bool {
        state.withLock { s in
            guard s.runtimeStubs.contains(where: { $0.id == id }) else { return false }
            s.setRuntimeStubs(s.runtimeStubs.filter { $0.id != id })
            return true
        }
    }

    /// Replaces a runtime stub in place, keeping its id; false when it is gone (a concurrent
    /// DELETE may have removed it after the caller looked it up).
    @discardableResult
    package func replaceRuntimeStub(id: String, with stub: Stub) -> Bool {
        state.withLock { s in
            guard s.runtimeStubs.contains(where: { $0.id == id }) else { return false }
            s.setRuntimeStubs(s.runtimeStubs.map { $0.id == id ? stub : $0 })
            return true
        }
    }

    package func removeAllRuntimeStubs() {
        state.withLock { $0.setRuntimeStubs([]) }
    }

    /// Takes file stubs out of service (or puts them back): WireMock's admin API removes and
    /// edits mappings whatever their origin. A reset serves them all again.
    package func setHiddenFileStubs(_ ids: Set<String>) {
        state.withLock { $0.setHiddenFileStubs(ids) }
    }

    package var hiddenFileStubIDs: Set<String> { state.withLock { $0.hiddenFileStubIDs } }

    /// Runtime stubs removed, file stubs all served, journal cleared, sequences and scenarios
    /// back to the start.
    package func reset() {
        state.withLock { s in
            s.hiddenFileStubIDs = []
            s.setRuntimeStubs([])
            s.positions = [:]
            s.scenarios = [:]
            s.version &+= 1
        }
        journal.clear()
        webhookLog.clear()
    }

    /// Every sequence back to its first response and every scenario to "Started".
    package func resetSequencesAndScenarios() {
        state.withLock {
            $0.positions = [:]
            $0.scenarios = [:]
            $0.version &+= 1
        }
    }

    /// Each scenario the stubs name, with its current state.
    package var scenarios: [(name: String, state: String)] {
        state.withLock { s in
            let names = Set(s.catalog.stubs.compactMap { $0.scenario?.name }).union(s.scenarios.keys)
            return names.sorted().map { ($0, s.scenarios[$0] ?? ScenarioRule.initialState) }
        }
    }

    /// Each sequence (a stub with several responses), in match order, with the index of the
    /// response it gives next (past the last: it repeats the last or cycles, as it says).
    package var sequences: [(stub: Stub, next: Int)] {
        state.withLock { s in
            s.catalog.stubs.filter { $0.responses.count > 1 }.sorted { $0.rank < $1.rank }.map { stub in
                let position = s.positions[stub.id] ?? 0
                return (
                    stub,
                    stub.afterLast == .cycle ? position % stub.responses.count : min(position, stub.responses.count - 1)
                )
            }
        }
    }

    /// Moves a scenario straight to a state.
    package func setScenario(_ name: String, to newState: String) {
        state.withLock {
            $0.scenarios[name] = newState
            $0.version &+= 1
        }
    }

    /// Answers one request through the chain (see `makeChain`).
    /// `consuming`: the request moves into its `RequestFacts` (a borrowed one was copied there).
    package func handle(_ request: consuming IncomingRequest) -> Outcome {
        chain.respond(to: RequestFacts(request))
    }

    /// Outermost first: the caller's wrappers (the command line's request log), the journal,
    /// the webhooks, the global delay, CORS headers; then the admin API, CORS preflights, the
    /// stubs, and the near-miss 404. Where to add a responder: before `NearMissResponder`'s fallback place.
    private static func makeChain(_ engine: Engine, options: Options) -> ResponderChain {
        var wrappers: [any ResponderWrapper] = options.wrappers
        if engine.journal.isEnabled { wrappers.append(JournalRecorder(journal: engine.journal)) }
        wrappers.append(
            WebhookDispatcher(
                log: engine.webhookLog,
                transport: engine.upstream,
                fallbackBaseURL: engine.fallbackBaseURL
            )
        )
        wrappers.append(GlobalDelay(milliseconds: engine.globalDelay))
        var responders: [any Responder] = []
        if let forwardProxy = options.forwardProxy { responders.append(ForwardProxyResponder(settings: forwardProxy)) }
        responders.append(AdminResponder(engine: engine))
        if let cors = options.cors {
            wrappers.append(CORSResponder(policy: cors))
            responders.append(CORSResponder(policy: cors))
        }
        // Innermost: its report is on the facts before the journal and the log record them.
        if let contract = options.contract {
            wrappers.append(ContractCheck(contract: contract, enforces: options.enforcesContract))
        }
        responders.append(
            StubMatchResponder(
                state: engine.state,
                fallbackBaseURL: engine.fallbackBaseURL,
                upstream: engine.upstream,
                maximumRenderedBytes: engine.options.maximumRenderedBytes,
                webSockets: engine.webSockets,
                streamStallMilliseconds: engine.options.streamStallMilliseconds
            )
        )
        let fallback = UnmatchedResponder(
            proxy: engine.fallbackProxy,
            transport: engine.upstream,
            observers: options.exchangeObservers,
            nearMiss: NearMissResponder(state: engine.state),
            forwardProxy: options.forwardProxy
        )
        return ResponderChain(wrappers: wrappers, responders: responders, fallback: fallback)
    }
}
