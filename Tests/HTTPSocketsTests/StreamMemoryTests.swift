import Foundation
import TestSupport
import XCTest

/// A 100 MiB streamed body to a client reading 64 KiB a second: the server's memory stays flat,
/// because the producer is held back by the socket (issue 12). Measured on the `benchserver`
/// process itself (its resident set from /proc), so nothing else in the test process counts.
final class StreamMemoryTests: XCTestCase {
    func testAHundredMebibyteStreamToASlowReaderKeepsServerMemoryFlat() throws {
        #if !os(Linux)
        throw XCTSkip("the server's resident set is read from /proc")
        #else
        let server = try BenchServerProcess()
        defer { server.stop() }
        let total = 100 << 20
        let c = try WireConnection(port: server.port, receiveBuffer: 64 * 1024)
        c.send("GET /stream?bytes=\(total) HTTP/1.1\r\nHost: h\r\n\r\n")
        var head = c.readUntil(suffix: "\r\n\r\n")
        XCTAssertTrue(String(decoding: head, as: UTF8.self).contains("Content-Length: \(total)\r\n"))
        head = []
        let baseline = server.residentKiB()
        var peak = baseline
        var received = 0
        // Four seconds at 64 KiB/s: 16 KiB every quarter second.
        for _ in 0..<16 {
            received += c.readSome(max: 16 * 1024, timeoutMilliseconds: 1_000).count
            Thread.sleep(forTimeInterval: 0.25)  // the client's pace, not a wait for readiness
            peak = max(peak, server.residentKiB())
        }
        XCTAssertLessThan(
            peak - baseline,
            8 * 1024,
            "server RSS grew \(peak - baseline) KiB while the client read slowly"
        )
        // Then the rest, as fast as it comes: every byte, in order.
        var position = received
        while position < total {
            let piece = c.readSome(max: 64 * 1024, timeoutMilliseconds: 5_000)
            guard !piece.isEmpty else { break }
            if position / (1 << 20) != (position + piece.count) / (1 << 20) {
                // Spot-check the pattern once a mebibyte.
                XCTAssertEqual(piece[0], UInt8(position % 251))
                peak = max(peak, server.residentKiB())
            }
            position += piece.count
        }
        XCTAssertEqual(position, total)
        print(
            """
            stream memory: server RSS \(baseline) KiB at the start, \(peak) KiB at most (growth \
            \(peak - baseline) KiB)
            """
        )
        XCTAssertLessThan(peak - baseline, 8 * 1024, "server RSS grew \(peak - baseline) KiB over the whole body")
        #endif
    }
}

/// The `benchserver` binary as a child process on a free port.
final class BenchServerProcess {
    let process = Process()
    let port: Int

    init() throws {
        var directory = Bundle(for: BenchServerProcess.self).bundleURL.deletingLastPathComponent()
        var executable: URL?
        for _ in 0..<3 where executable == nil {
            let candidate = directory.appendingPathComponent("benchserver")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { executable = candidate }
            directory = directory.deletingLastPathComponent()
        }
        process.executableURL =
            executable
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "benchserver"
            )
        process.arguments = ["0"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // The ready line, read until it is complete (never a sleep).
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let colon = text.split(separator: "\n").first?.split(separator: ":").last, let port = Int(colon) else {
            throw XCTSkip("benchserver did not start: \(text)")
        }
        self.port = port
    }

    func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
