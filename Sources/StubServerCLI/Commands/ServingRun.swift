#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import HTTPSockets
import Inspector
import NativeStubs
import StubAdmin
import StubAuthoring
import StubEngine
import StubProxy
import SystemSupport
import WireMock

/// What `serve` and `record` share: the folder loaded (refused with its errors), the engine and
/// the server built, the proxy's transport installed, signals, the port file and the warnings
/// about listening beyond loopback.
struct ServingRun {
    let options: ServingOptions
    let loader: StubLoader
    let result: StubLoadResult
    let engine: Engine
    /// Plugged into the engine (`POST /__admin/recordings/start`, and `record`'s session).
    let recorder: Recorder
    let server: HTTP1Server
    /// The admin token the server made up (listening beyond loopback, none given): printed
    /// once, with the inspector's address that carries it.
    let generatedToken: String?

    /// What a second Ctrl-C (or signal) does before the process ends: said when stopping begins.
    struct UrgentStop: Sendable {
        /// Completes "press Ctrl-C again to ...".
        let promise: String
        let action: @Sendable (Engine) -> Void

        static let quit = UrgentStop(promise: "quit now") { _ in }
    }

    /// nil, after saying why, when the folder has errors or the server cannot start.
    /// `recorder`: the one plugged into the engine (`record` makes its own first, for its urgent stop).
    static func start(
        _ options: ServingOptions,
        _ proxy: ProxyOptions,
        console: Console,
        recorder: Recorder = Recorder(),
        urgentStop: UrgentStop = .quit,
        contract: (any RequestContract)? = nil,
        enforcing: Bool = false
    ) -> ServingRun? {
        let loader = options.loader
        if !loader.format.isNative, !options.formatWasGiven {
            console.err(
                "stubserver: \(options.directory) \(loader.format.recognisedNote) (docs/\(loader.format.name).md)"
            )
        }
        let result = loader.load()
        for problem in result.problems { console.err(problem.description) }
        guard result.isServable else {
            let validate = loader.format.isNative ? "validate --dir" : "validate --\(loader.format.name)"
            console.err(
                "stubserver: not serving: \(plural(result.errors.count, "error")) in \(options.directory); "
                    + "fix them (stubserver \(validate) \(options.directory) lists them)"
            )
            return nil
        }
        reportSkipped(result, options.directory, console: console)
        var engineOptions = Engine.Options(
            cors: options.cors ? CORSPolicy() : nil,
            journalCapacity: options.journal,
            directory: options.directory,
            version: StubServerVersion.current,
            globalDelayMilliseconds: options.globalDelayMilliseconds
        )
        // Beyond loopback anyone on the network can connect: the admin API needs a token.
        let generatedToken =
            options.adminToken == nil && !options.isLoopback && !options.adminOpen
            ? AdminProtection.generatedToken() : nil
        engineOptions.admin = options.adminProtection(token: options.adminToken ?? generatedToken)
        // A quiet log has nothing to do: left out of the chain, it costs a request no call at all.
        engineOptions.wrappers =
            options.log == .quiet ? [] : [RequestLog(format: options.log, verbose: options.verbose, console: console)]
        engineOptions.proxy = proxy.rule
        engineOptions.forwardProxy = options.forwardProxy.settings(
            token: options.adminToken ?? generatedToken,
            timeoutSeconds: proxy.timeoutSeconds
        )
        // WireMock's admin API first (it decides which of the two answers a route both have), the
        // native one, and the inspector's page beside the admin API it reads.
        let wiremock = options.wiremock(serving: loader.format)
        engineOptions.adminRoutes = [wiremock.adminRoutes] + NativeAdmin.routeSets() + [InspectorRoutes()]
        // After WireMock's routes, which claim a WireMock record spec sent to the same path.
        engineOptions.addRecorder(recorder)
        engineOptions.contract = contract
        engineOptions.enforcesContract = enforcing
        engineOptions.folderFormat = loader.format
        engineOptions.strict = options.strict
        engineOptions.maximumRenderedBytes = options.maxRenderedBodyBytes
        let engine = Engine(stubs: result.stubs, options: engineOptions)
        var configuration = options.serverConfiguration
        let interceptsTLS = !options.forwardProxy.intercept.isEmpty
        if options.https.enabled || interceptsTLS {
            // Before listening: a certificate or key that cannot serve stops the start.
            do {
                let prepared = try HTTPSSetup.prepare(
                    options.https,
                    listeningOn: options.host,
                    stubFolder: options.directory
                )
                if options.https.enabled { configuration.tls = prepared.tls }
                if interceptsTLS {
                    // Interception mints a certificate per host from the local CA, even when the
                    // port itself serves the user's own (--cert).
                    let local =
                        options.https.certificateFile == nil
                        ? prepared
                        : try HTTPSSetup.prepare(
                            HTTPSOptions(),
                            listeningOn: options.host,
                            stubFolder: options.directory
                        )
                    configuration.interceptTLS = local.tls
                }
                for note in prepared.notes { console.err("stubserver: \(note)") }
            } catch {
                console.err("stubserver: \(error.message)")
                return nil
            }
        }
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        do {
            try ProxyTransports.install(on: engine, server: server, caFile: proxy.caFile)
        } catch {
            console.err("stubserver: \(error)")
            return nil
        }
        // WireMock's POST /__admin/shutdown (only with --allow-shutdown): after its answer leaves.
        wiremock.shutdown.value = { [console] in
            console.err("stubserver: stopping (POST /__admin/shutdown)")
            server.stopAndWait()
        }
        // Before any thread starts, so every thread inherits the blocked signals.
        ProcessSignals.onTermination(
            { [console] _ in
                let again = "press Ctrl-C again to \(urgentStop.promise)"
                console.err("stubserver: stopping (finishing responses in flight; \(again))")
                server.stopAndWait()
            },
            urgently: { [console] in
                urgentStop.action(engine)
                console.flush()
            }
        )
        do {
            try server.start()
        } catch {
            console.err("stubserver: cannot listen: \(error)")
            return nil
        }
        engine.fallbackBaseURL.value = server.baseURL
        if let portFile = options.portFile {
            do {
                try "\(server.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
            } catch {
                console.err("stubserver: cannot write the port file \(portFile): \(describe(error))")
                server.stopAndWait()
                return nil
            }
        }
        if !options.isLoopback {
            console.err(
                """
                stubserver: warning: listening on \(options.host): anyone who can reach this machine can read \
                your stubs
                """
            )
            if options.adminOpen {
                console.err(
                    """
                    stubserver: warning: the admin API (/__admin/) is open to them too (--admin-open): anyone \
                    can add stubs and read the journal
                    """
                )
            }
        }
        return ServingRun(
            options: options,
            loader: loader,
            result: result,
            engine: engine,
            recorder: recorder,
            server: server,
            generatedToken: generatedToken
        )
    }

    /// Where the server listens, for the ready line: `https://127.0.0.1:PORT and
    /// http://127.0.0.1:PORT` when the port speaks both.
    var listeningURLs: String {
        guard let secure = server.secureBaseURL else { return server.baseURL }
        return "\(secure) and \(server.baseURL)"
    }

    /// The ready line scripts wait for, then the inspector's address (on stderr with
    /// `--log json`, so stdout stays one JSON object per line after the ready line).
    ///
    /// A generated token is printed here once, in the inspector's address (after `#`, which
    /// the browser never sends, so it reaches no log) and for scripts; it is never logged again.
    func announce(_ readyLine: String, console: Console) {
        console.out(readyLine)
        let base = server.secureBaseURL ?? server.baseURL
        var lines = ["inspector: \(base)/__admin/ui"]
        if let token = generatedToken {
            lines = [
                "inspector: \(base)/__admin/ui#token=\(token)",
                """
                admin token: \(token) (send Authorization: Bearer \(token) to /__admin/; --admin-token T sets \
                your own)
                """,
            ]
        }
        for line in lines {
            if options.log == .json { console.err(line) } else { console.out(line) }
        }
        console.startFlushing()
    }

    /// Reloads on change; a folder with errors keeps the last good stubs.
    func watch(console: Console) -> StubFolderWatcher {
        let directory = options.directory
        let loader = self.loader
        let engine = self.engine
        // Four checks a second; two for big folders, where a check costs more (still within a second).
        let interval = result.fileCount > 200 ? 0.5 : 0.25
        let watcher = StubFolderWatcher(
            loader: loader,
            interval: interval,
            onUnreadable: { why in
                let kept = plural(engine.catalog.count, "stub")
                console.err(
                    "stubserver: cannot look for changes in \(directory): \(why); "
                        + "still serving the last good \(kept)"
                )
            }
        ) {
            let reloaded = loader.load()
            for problem in reloaded.problems { console.err(problem.description) }
            if reloaded.isServable {
                engine.replace(with: reloaded.stubs)
                reportSkipped(reloaded, directory, console: console)
                let stubs = plural(reloaded.stubs.count, "stub")
                console.out("stubserver reloaded \(stubs) from \(directory)\(skippedNote(reloaded))")
            } else {
                console.err(
                    """
                    stubserver: reload failed (\(plural(reloaded.errors.count, "error"))); still serving the \
                    last good \(plural(engine.catalog.count, "stub"))
                    """
                )
            }
        }
        watcher.start()
        return watcher
    }
}

/// The mappings a served WireMock folder leaves out, one line each (file:line:column, what, why),
/// after their errors: the folder serves without them.
func reportSkipped(_ result: StubLoadResult, _ directory: String, console: Console) {
    guard !result.skipped.isEmpty else { return }
    for skip in result.skipped { console.err(skip.description) }
    let verb = result.skipped.count == 1 ? "has" : "have"
    let count = plural(result.skipped.count, "mapping")
    console.err(
        "stubserver: serving \(directory) without \(count) that \(verb) errors "
            + "(listed above; stubserver validate --wiremock \(directory))"
    )
}

/// `; 2 mappings skipped` for the ready and reload lines, or nothing.
func skippedNote(_ result: StubLoadResult) -> String {
    result.skipped.isEmpty ? "" : "; \(plural(result.skipped.count, "mapping")) skipped"
}
