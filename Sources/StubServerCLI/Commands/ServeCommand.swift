import Foundation
import HTTP1
import HTTPServer
import StubEngine
import StubProxy
import SystemSupport

/// Serving: load the stubs (refusing a folder with errors), listen, print the ready line, log
/// each request, reload on change, and stop cleanly on SIGINT or SIGTERM.
struct ServeCommand: Command {
    static let name = "serve"
    static let synopsis = ["[serve] [--dir DIR] [--port N] [--host ADDR] [options]"]
    static let summary = "serve the stubs in DIR"
    static let options = ServingOptions.options + ProxyOptions.options
    static let details = """
    The inspector, a page that shows every request live, why it did not match, the stubs and
    the scenarios: http://HOST:PORT/__admin/ui (printed after the ready line; docs/inspector.md).
    Flags take their value as --flag value or --flag=value.
    Exit status: 0 normal stop, 1 runtime failure or invalid stubs, 2 bad usage.
    Stub format: docs/stub-format.md. Command line: docs/cli.md.
    """

    let options: ServingOptions
    let proxy: ProxyOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ServingOptions(arguments)
        proxy = try ProxyOptions(arguments)
    }

    func run(_ console: Console) -> Int32 {
        let loader = StubLoader(directory: options.directory)
        let result = loader.load()
        for problem in result.problems { console.err(problem.description) }
        guard result.isServable else {
            console.err("stubserver: not serving: \(plural(result.errors.count, "error")) in \(options.directory); fix them (stubserver validate --dir \(options.directory) lists them)")
            return 1
        }
        var engineOptions = Engine.Options(
            cors: options.cors ? CORSPolicy() : nil, journalCapacity: options.journal, adminToken: options.adminToken,
            directory: options.directory, version: StubServerVersion.current, globalDelayMilliseconds: options.globalDelayMilliseconds)
        engineOptions.wrappers = [RequestLog(format: options.log, verbose: options.verbose, console: console)]
        engineOptions.proxy = proxy.rule
        let engine = Engine(stubs: result.stubs, options: engineOptions)
        let server = HTTP1Server(configuration: options.serverConfiguration) { engine.handle($0).reply }
        do {
            try ProxyTransports.install(on: engine, server: server, caFile: proxy.caFile)
        } catch {
            console.err("stubserver: \(error)")
            return 1
        }
        // Before any thread starts, so every thread inherits the blocked signals.
        ProcessSignals.onTermination { [console] _ in
            console.err("stubserver: stopping (finishing responses in flight; press Ctrl-C again to quit now)")
            server.stopAndWait()
        }
        do {
            try server.start()
        } catch {
            console.err("stubserver: cannot listen: \(error)")
            return 1
        }
        engine.fallbackBaseURL.value = server.baseURL
        if let portFile = options.portFile {
            do {
                try "\(server.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
            } catch {
                console.err("stubserver: cannot write the port file \(portFile): \(error.localizedDescription)")
                server.stopAndWait()
                return 1
            }
        }
        if !options.isLoopback {
            console.err("stubserver: warning: listening on \(options.host): anyone who can reach this machine can read your stubs")
            if options.adminToken == nil {
                console.err("stubserver: warning: the admin API (/__admin/) is open to them too: anyone can add stubs and read the journal; use --admin-token")
            }
        }
        let forwarding = proxy.upstream.map { "; forwarding the rest to \($0)" } ?? ""
        console.out("stubserver listening on \(server.baseURL) (\(plural(engine.catalog.count, "stub")) from \(options.directory)\(forwarding))")
        // The line after the ready line (which scripts wait for, unchanged). With --log json,
        // stdout stays one JSON object per line after the ready line, so it goes to stderr.
        let inspector = "inspector: \(server.baseURL)/__admin/ui"
        if options.log == .json { console.err(inspector) } else { console.out(inspector) }
        console.startFlushing()

        var watcher: StubFolderWatcher?
        if options.watch {
            let directory = options.directory
            // Four checks a second; two for big folders, where a check costs more (still within a second).
            let interval = result.fileCount > 200 ? 0.5 : 0.25
            watcher = StubFolderWatcher(loader: loader, interval: interval) {
                let reloaded = loader.load()
                for problem in reloaded.problems { console.err(problem.description) }
                if reloaded.isServable {
                    engine.replace(with: reloaded.stubs)
                    console.out("stubserver reloaded \(plural(reloaded.stubs.count, "stub")) from \(directory)")
                } else {
                    console.err("stubserver: reload failed (\(plural(reloaded.errors.count, "error"))); still serving the last good \(plural(engine.catalog.count, "stub"))")
                }
            }
            watcher?.start()
        }

        server.waitUntilStopped()
        watcher?.stop()
        console.flush()
        return 0
    }


}
