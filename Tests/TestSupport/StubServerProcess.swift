import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

/// The built `stubserver` binary run as a child process, its output collected as it arrives.
/// Readiness is the ready line on stdout, never a sleep.
///
/// `STUBSERVER_BINARY` names the binary to run instead of the one built beside the tests:
/// `.ci/run` points it at the release build, so the binary suites test what users install
/// (which links FoundationEssentials only, unlike this test process).
public final class StubServerProcess: @unchecked Sendable {
    public let process = Process()
    private let lock = NSLock()
    private var stdoutText = ""
    private var stderrText = ""

    public static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["STUBSERVER_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        // The test bundle sits beside the products in .build/<triple>/debug (or inside it, on macOS).
        var directory = Bundle(for: StubServerProcess.self).bundleURL.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("stubserver")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "stubserver"
        )
    }

    /// `environment` is added to this process's (a test's own `TZDIR`, say). `openFileLimit`
    /// runs the binary under `ulimit -n` (soft and hard, so it cannot raise it): for tests of
    /// what happens when descriptors run out.
    public init(
        _ arguments: [String],
        workingDirectory: URL? = nil,
        environment extra: [String: String] = [:],
        openFileLimit: Int? = nil
    ) throws {
        if let openFileLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments =
                ["-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", Self.executable.path] + arguments
        } else {
            process.executableURL = Self.executable
            process.arguments = arguments
        }
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // One reader thread per pipe, blocking reads until end of file. (FileHandle's
        // readabilityHandler, a dispatch source, now and then stopped delivering under the
        // thread sanitizer, leaving a test waiting for output that had been written.)
        Self.startReader(out.fileHandleForReading) { [weak self] text in
            guard let self else { return }
            self.lock.lock()
            if let text { self.stdoutText += text } else { self.readersAtEnd += 1 }
            self.lock.unlock()
        }
        Self.startReader(err.fileHandleForReading) { [weak self] text in
            guard let self else { return }
            self.lock.lock()
            if let text { self.stderrText += text } else { self.readersAtEnd += 1 }
            self.lock.unlock()
        }
    }

    /// Pipes read to their end (the process has exited and everything it wrote is in).
    private var readersAtEnd = 0

    /// `append(nil)` at end of file.
    private static func startReader(_ handle: FileHandle, _ append: @escaping @Sendable (String?) -> Void) {
        let thread = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty {
                    append(nil)
                    return
                }
                append(String(decoding: data, as: UTF8.self))
            }
        }
        thread.start()
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    public var stdout: String {
        lock.lock()
        defer { lock.unlock() }
        return stdoutText
    }
    public var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return stderrText
    }

    /// Polls until `condition` holds or the deadline passes.
    @discardableResult
    public func waitFor(
        _ what: String,
        timeout: TimeInterval = 20,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ condition: () -> Bool
    ) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        XCTFail("timed out waiting for \(what)\nstdout:\n\(stdout)\nstderr:\n\(stderr)", file: file, line: line)
        return false
    }

    /// The ready line, once printed.
    public func readyLine(file: StaticString = #filePath, line: UInt = #line) -> String? {
        waitFor("the ready line", file: file, line: line) { stdout.contains("\n") || !process.isRunning }
        return stdout.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
    }

    /// The base URL from the ready line.
    public func baseURL(file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard let ready = readyLine(file: file, line: line),
            let start = ready.range(of: "http://"), let end = ready.range(of: " (")
        else { return nil }
        return String(ready[start.lowerBound..<end.lowerBound])
    }

    /// Waits for exit and returns the status.
    public func exitStatus(timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line) -> Int32? {
        guard waitFor("the process to exit", timeout: timeout, file: file, line: line, { !process.isRunning }) else {
            return nil
        }
        // Until both pipes reach their end: what the process wrote last has then been read (a
        // quiet spell of a few milliseconds was not enough on a loaded machine).
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            lock.lock()
            let done = readersAtEnd == 2
            lock.unlock()
            if done { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return process.terminationStatus
    }

    public func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// The CPU time (user and system) the server has used so far, in milliseconds: what work
    /// cost it, which a loaded machine does not stretch as it stretches the wall clock. nil
    /// where there is no `/proc` (macOS).
    public var cpuMilliseconds: Int? {
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let command = stat.lastIndex(of: ")")
        else { return nil }
        // proc(5): after the command (field 2) come the state (3), ..., utime (14), stime (15).
        let fields = stat[stat.index(after: command)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return (user + system) * 1_000 / sysconf(Int32(_SC_CLK_TCK))
        #else
        return nil
        #endif
    }
}

/// Runs the binary to completion (validate, --help, usage errors).
public func runStubServer(
    _ arguments: [String],
    file: StaticString = #filePath,
    line: UInt = #line
) throws -> (status: Int32?, stdout: String, stderr: String) {
    let p = try StubServerProcess(arguments)
    let status = p.exitStatus(file: file, line: line)
    return (status, p.stdout, p.stderr)
}

/// A plain HTTP exchange with URLSession (what an app would use).
public func fetch(
    _ url: String,
    method: String = "GET",
    headers: [String: String] = [:],
    body: String? = nil,
    timeoutSeconds: Double = 20
) throws -> (status: Int, headers: [String: String], body: String) {
    var request = URLRequest(url: URL(string: url)!, timeoutInterval: max(60, timeoutSeconds))
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    if let body { request.httpBody = Data(body.utf8) }
    // URLSession would call a body form data; the admin API takes JSON only (AdminProtection).
    if body != nil, url.contains("/__admin/"), !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: (Int, [String: String], String)?
    nonisolated(unsafe) var failure: (any Error)?
    session.dataTask(with: request) { data, response, error in
        if let http = response as? HTTPURLResponse {
            var headers: [String: String] = [:]
            for (k, v) in http.allHeaderFields { headers[String(describing: k).lowercased()] = String(describing: v) }
            result = (http.statusCode, headers, String(decoding: data ?? Data(), as: UTF8.self))
        } else {
            failure = error
        }
        done.signal()
    }.resume()
    guard done.wait(timeout: .now() + timeoutSeconds) == .success else { throw URLError(.timedOut) }
    if let result { return result }
    throw failure ?? URLError(.badServerResponse)
}

extension XCTestCase {
    /// A fresh folder of stub files for one test, removed when it ends: tests run in parallel
    /// and share no directories.
    public func folder(_ files: [String: String]) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stubserver-cli-\(UUID().uuidString)")
        for (name, contents) in files {
            let file = url.appendingPathComponent(name)
            try! FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try! Data(contents.utf8).write(to: file)
        }
        if files.isEmpty { try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }
}
