import Foundation
import TestSupport
import XCTest

/// A `stubserver` child process serving a fresh folder on a free port, stopped when the test
/// ends: the release-binary suites' way in (`STUBSERVER_BINARY` picks the binary).
struct BinaryServing {
    let process: StubServerProcess
    let baseURL: String
    let port: Int

    /// Serves `files` (path to contents) with `arguments` after `--dir DIR --port 0` (and
    /// `--log quiet` unless they set `--log`).
    init(
        _ test: XCTestCase,
        files: [String: String] = [:],
        _ arguments: [String] = [],
        file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let dir = test.folder(files)
        let log = arguments.contains("--log") ? [] : ["--log", "quiet"]
        process = try StubServerProcess(["--dir", dir.path, "--port", "0"] + log + arguments)
        let process = self.process
        test.addTeardownBlock {
            process.signal(SIGTERM)
            _ = process.exitStatus()
        }
        baseURL = try XCTUnwrap(process.baseURL(file: file, line: line), process.stderr, file: file, line: line)
        port = try XCTUnwrap(baseURL.split(separator: ":").last.flatMap { Int($0) }, baseURL, file: file, line: line)
    }

    /// One request on a new connection, exactly as written, and its response.
    func exchange(_ request: String) throws -> WireResponse {
        let connection = try WireConnection(port: port)
        defer { connection.close() }
        connection.send(request)
        return try connection.readResponse()
    }

    /// A GET with the usual head.
    func get(_ target: String, headers: [String] = []) throws -> WireResponse {
        let lines = ["GET \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)"] + headers
        return try exchange(lines.joined(separator: "\r\n") + "\r\n\r\n")
    }

    /// A request with a JSON body (`Content-Type: application/json`).
    func send(_ method: String, _ target: String, json: String, headers: [String] = []) throws -> WireResponse {
        let lines =
            [
                "\(method) \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Content-Type: application/json",
                "Content-Length: \(json.utf8.count)",
            ] + headers
        return try exchange(lines.joined(separator: "\r\n") + "\r\n\r\n" + json)
    }
}
