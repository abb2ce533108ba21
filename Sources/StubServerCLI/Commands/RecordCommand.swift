#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import StubAuthoring
import StubEngine
import SystemSupport

/// Recording: serve DIR's stubs, forward what they do not answer to the upstream, and on stop
/// (Ctrl-C, SIGTERM, SIGHUP, or `POST /__admin/recordings/stop`) write what came back as stub files
/// into DIR. Requests DIR already answers are served from it and not recorded again, so a
/// second session over the same folder adds only what is new.
struct RecordCommand: Command {
    static let name = "record"
    static let synopsis = [
        "record (--proxy URL | --forward-proxy [--intercept HOST,...]) --out DIR [--dir DIR] "
            + "[--include GLOB] [--exclude GLOB] [--keep-secrets] [--keep-header NAME] [options]"
    ]
    static let summary = "forward to URL (or proxy clients' hosts) and write what it answers as stub files in DIR"
    static let options: [Option] =
        [
            .value("--out", "DIR", "folder to write the recorded stubs into (created if missing)"),
            .value(
                "--dir",
                "DIR",
                "folder of stubs that answer first and are not recorded (default: --out; --out must be inside it)"
            ),
            .value(
                "--include",
                "GLOB",
                "record only paths matching GLOB, such as /api/** (repeatable)",
                repeatable: true
            ),
            .value("--exclude", "GLOB", "do not record paths matching GLOB (repeatable)", repeatable: true),
            .flag(
                "--keep-secrets",
                "write Authorization, Cookie, Set-Cookie and other secret values (left out by default)"
            ),
            .value(
                "--keep-header",
                "NAME",
                "write this header although it looks secret (repeatable)",
                repeatable: true
            ),
            .value(
                "--match-header",
                "NAME",
                "recorded stubs also match on request header NAME (repeatable)",
                repeatable: true
            ),
        ] + ProxyOptions.options + ServingOptions.options.filter { !["--dir", "--no-watch"].contains($0.name) }
    static let details = """
        The recorded stubs are written when recording stops: Ctrl-C, SIGTERM, SIGHUP, or POST /__admin/recordings/stop.
        A second Ctrl-C writes what is complete at once and abandons the requests still in flight.
        While recording, forwarded requests ask for Accept-Encoding: identity, so bodies are written readable.
        Walk-through and the rules for what is written: docs/proxy.md.
        """

    let serving: ServingOptions
    let proxy: ProxyOptions
    let settings: RecordingSettings

    init(_ arguments: ParsedArguments) throws(UsageError) {
        var serving = try ServingOptions(arguments)
        proxy = try ProxyOptions(arguments)
        guard proxy.upstream != nil || serving.forwardProxy.enabled else {
            throw UsageError(
                "record needs --proxy URL (the server to record from) or --forward-proxy (record what proxy clients' "
                    + "hosts answer)"
            )
        }
        guard let out = try arguments.nonEmpty("--out", "a folder") else {
            throw UsageError("record needs --out DIR: where to write the stubs")
        }
        // Stubs already written answer first, and what they answer is not recorded again: the
        // folder that holds them is served, with the new recording inside it.
        if let dir = try arguments.nonEmpty("--dir", "a folder") {
            guard Self.isInside(out, dir) else {
                throw UsageError(
                    "--out must be inside --dir, so what it records is served with the rest next time: "
                        + "\(out) is not inside \(dir)"
                )
            }
            serving.directory = dir
        } else {
            serving.directory = out
        }
        // What the session writes must not be served during it: a repeated request has to reach
        // the upstream again to become a sequence.
        serving.watch = false
        self.serving = serving
        var recording = RecordingSettings(
            output: out,
            include: try Self.globs("--include", arguments),
            exclude: try Self.globs("--exclude", arguments),
            keepSecrets: arguments.has("--keep-secrets"),
            requestHeaders: arguments.all("--match-header")
        )
        for name in arguments.all("--keep-header") {
            guard HTTPToken.isToken(name) else {
                throw UsageError("--keep-header must be a header name, not \"\(name)\"")
            }
        }
        recording.keptHeaders = Set(arguments.all("--keep-header").map { $0.lowercased() })
        recording.forwardProxy = serving.forwardProxy.enabled
        settings = recording
    }

    /// Whether `folder` is `container` or below it.
    static func isInside(_ folder: String, _ container: String) -> Bool {
        let inner = URL(fileURLWithPath: folder).standardizedFileURL.path
        let outer = URL(fileURLWithPath: container).standardizedFileURL.path
        return inner == outer || inner.hasPrefix(outer.hasSuffix("/") ? outer : outer + "/")
    }

    private static func globs(_ flag: String, _ arguments: ParsedArguments) throws(UsageError) -> [PathGlob] {
        try arguments.all(flag).map { text throws(UsageError) in
            guard let glob = PathGlob(text) else {
                throw UsageError("\(flag) must be a path glob starting with /, such as /api/**, not \"\(text)\"")
            }
            return glob
        }
    }

    func run(_ console: Console) -> Int32 {
        do {
            try FileManager.default.createDirectory(atPath: settings.output, withIntermediateDirectories: true)
        } catch {
            console.err("stubserver: cannot create \(settings.output): \(describe(error))")
            return 1
        }
        let recorder = Recorder()
        let finish = RecordingFinish(recorder: recorder)
        // A second Ctrl-C while responses are still in flight writes what is complete.
        let promise = "write what is recorded now and abandon the requests still in flight"
        let urgentStop = ServingRun.UrgentStop(promise: promise) {
            _ = finish.write($0, console: console)
        }
        guard
            let run = ServingRun.start(serving, proxy, console: console, recorder: recorder, urgentStop: urgentStop)
        else { return 1 }
        do {
            try recorder.start(settings, on: run.engine)
        } catch {
            console.err("stubserver: \(error)")
            run.server.stopAndWait()
            return 1
        }
        let existing = run.engine.catalog.count
        run.announce(
            """
            stubserver recording on \(run.listeningURLs) (\(plural(existing, "stub")) from \
            \(serving.directory) answer first; recording what \(recordedSource) answers for the rest)
            """,
            console: console
        )
        run.server.waitUntilStopped()
        return finish.write(run.engine, console: console)
    }

    /// Who is recorded: the `--proxy` upstream, the hosts proxy clients call, or both.
    private var recordedSource: String {
        let hosts = "the hosts proxy clients call"
        guard let upstream = proxy.upstream else { return hosts }
        return serving.forwardProxy.enabled ? "\(upstream) (and \(hosts))" : upstream
    }

    static func summarise(_ report: RecordingReport, console: Console) {
        for reason in report.skipped { console.err("stubserver: not recorded: \(reason)") }
        if !report.droppedSecrets.isEmpty {
            let names = report.droppedSecrets.keys.sorted().joined(separator: ", ")
            console.err("stubserver: left out secret values (\(names)); --keep-secrets writes them")
        }
        guard !report.written.isEmpty else {
            console.out(
                """
                stubserver recorded \(plural(report.exchangeCount, "new exchange")): nothing new to write in \
                \(report.output)
                """
            )
            return
        }
        console.out(
            """
            stubserver recorded \(plural(report.exchangeCount, "exchange")) as \
            \(plural(report.stubCount, "stub")) in \(report.output):
            """
        )
        for file in report.written { console.out("  \(file)") }
    }
}

/// Writes the recording once, whoever asks first: the main thread when the server has stopped,
/// or a second Ctrl-C while responses are still in flight. The other waits for that write to
/// end, so the process never exits halfway through it.
private final class RecordingFinish: Sendable {
    let recorder: Recorder
    /// The exit status, once written.
    private let status = Locked<Int32?>(nil)

    init(recorder: Recorder) {
        self.recorder = recorder
    }

    func write(_ engine: Engine, console: Console) -> Int32 {
        status.withLock { status in
            if let status { return status }
            let result = stop(engine, console: console)
            console.flush()
            status = result
            return result
        }
    }

    private func stop(_ engine: Engine, console: Console) -> Int32 {
        // Stopped through the admin API, which wrote and reported already.
        guard recorder.isRecording else { return 0 }
        do {
            RecordCommand.summarise(try recorder.stop(on: engine), console: console)
            return 0
        } catch {
            console.err("stubserver: the recording was not written: \(error)")
            return 1
        }
    }
}
