import Foundation
import XCTest

/// Real TLS clients for the HTTPS tests: curl, Python's ssl module and `openssl s_client`, run
/// as child processes. Each waits for its tool to end (bounded by the tool's own timeout).
enum TLSTools {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        var all: String { stdout + stderr }
    }

    static func available(_ tool: String) -> Bool {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + tool) }
            || run("/usr/bin/env", ["which", tool]).status == 0
    }

    /// Runs `executable` (a path, or a name found through env) with `arguments`, `input` on stdin.
    static func run(
        _ executable: String,
        _ arguments: [String],
        input: String = "",
        environment: [String: String] = [:]
    ) -> Run {
        let process = Process()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        process.environment = merged
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            return Run(status: -1, stdout: "", stderr: "cannot run \(executable): \(error)")
        }
        // Both pipes drained on threads of their own, so a chatty tool never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var out = Data()
        nonisolated(unsafe) var err = Data()
        group.enter()
        Thread {
            out = stdout.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }.start()
        group.enter()
        Thread {
            err = stderr.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }.start()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return Run(
            status: process.terminationStatus,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self)
        )
    }

    static func curl(_ url: String, ca: String, extra: [String] = []) -> Run {
        run("curl", ["-sS", "--max-time", "20", "--cacert", ca] + extra + [url])
    }

    /// `openssl s_client` to 127.0.0.1:port, verifying against `ca`; the exchange sent on stdin.
    static func sClient(port: Int, ca: String, _ extra: [String], input: String = "") -> Run {
        run(
            "openssl",
            ["s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", ca, "-verify_return_error"] + extra,
            input: input
        )
    }

    /// Python's ssl module: a script given the port and CA path as argv[1] and argv[2].
    static func python(_ script: String, port: Int, ca: String) -> Run {
        run("python3", ["-c", script, String(port), ca])
    }
}
