#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import HTTPSockets
import NativeStubs
import StubEngine
import StubImport
import StubProxy
import SystemSupport

/// Serving: load the stubs (refusing a folder with errors), listen, print the ready line, log
/// each request, reload on change, and stop cleanly on SIGINT or SIGTERM.
struct ServeCommand: Command {
    static let name = "serve"
    static let synopsis = ["[serve] [--dir DIR] [--port N] [--host ADDR] [options]"]
    static let summary = "serve the stubs in DIR"
    static let options = ServingOptions.options + ProxyOptions.options + ContractOptions.options
    static let details = """
        The inspector, a page that shows every request live, why it did not match, the stubs and
        the scenarios: http://HOST:PORT/__admin/ui (printed after the ready line; docs/inspector.md).
        Flags take their value as --flag value or --flag=value.
        Exit status: 0 normal stop, 1 runtime failure or invalid stubs, 2 bad usage.
        Stub format: docs/stub-format.md. WireMock folders and admin clients: docs/wiremock.md.
        Command line: docs/cli.md.
        """

    let options: ServingOptions
    let proxy: ProxyOptions
    let contract: ContractOptions

    init(_ arguments: ParsedArguments) throws(UsageError) {
        options = try ServingOptions(arguments)
        proxy = try ProxyOptions(arguments)
        contract = try ContractOptions(arguments)
    }

    func run(_ console: Console) -> Int32 {
        guard case .success(let checker) = contract.load(console) else { return 1 }
        guard
            let run = ServingRun.start(
                options,
                proxy,
                console: console,
                contract: checker,
                enforcing: contract.enforces
            )
        else { return 1 }
        let forwarding = proxy.upstream.map { "; forwarding the rest to \($0)" } ?? ""
        let checking =
            checker.map {
                let mode = contract.enforces ? "enforcing" : "checking requests against"
                return "; \(mode) \($0.name) (\(plural($0.operationCount, "operation")))"
            } ?? ""
        let kind = run.loader.format.isNative ? "" : ", \(run.loader.format.folderDescription)"
        let stubs = plural(run.engine.catalog.count, "stub")
        let what =
            "\(stubs) from \(options.directory)\(kind)\(skippedNote(run.result))\(forwarding)\(checking)"
            + options.forwardProxy.readyNote
        run.announce("stubserver listening on \(run.listeningURLs) (\(what))", console: console)
        let watcher = options.watch ? run.watch(console: console) : nil
        run.server.waitUntilStopped()
        watcher?.stop()
        console.flush()
        return 0
    }
}
