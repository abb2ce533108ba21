import Foundation
import TestSupport
import XCTest

/// Issue 36's newcomer walk through the binary: a Flask-style backend (Python's standard
/// library) behind `record --proxy ... --preserve-host`, a client with a cookie jar that signs
/// in, reads its profile, pages through a list by its absolute `Link` URLs, fetches an
/// always-gzip CSV through a redirect, downloads a file and signs out; then the recording
/// served without the backend, on another port, and walked twice in a row with no reset.
final class RecordingWalkTests: XCTestCase {
    /// What the client saw of one answer, with the server's own address written as `BASE`.
    struct Answer: Equatable, CustomStringConvertible {
        var request: String
        var status: Int
        var contentType: String
        var location: String
        var link: String
        var body: [UInt8]

        var description: String {
            "\(request) → \(status) \(contentType) location=\(location) link=\(link) "
                + String(decoding: body.prefix(80), as: UTF8.self)
        }
    }

    /// A client of one server: one keep-alive connection, cookies kept as a browser or
    /// URLSession keeps them.
    final class Client {
        let port: Int
        let connection: WireConnection
        var cookies: [(name: String, value: String)] = []
        var answers: [Answer] = []

        init(port: Int) throws {
            self.port = port
            connection = try WireConnection(port: port)
        }

        var base: String { "http://127.0.0.1:\(port)" }

        @discardableResult
        func call(_ method: String, _ target: String, json: String? = nil) throws -> WireResponse {
            var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept-Encoding: gzip\r\n"
            if !cookies.isEmpty {
                head += "Cookie: " + cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ") + "\r\n"
            }
            let sent = json ?? ""
            if json != nil { head += "Content-Type: application/json\r\n" }
            if method == "POST" { head += "Content-Length: \(sent.utf8.count)\r\n" }
            connection.send(head + "\r\n" + sent)
            let response = try connection.readResponse(timeoutMilliseconds: 15_000)
            for (name, value) in response.headers where name.lowercased() == "set-cookie" { keep(value) }
            let local = { (text: String?) in (text ?? "").replacingOccurrences(of: self.base, with: "BASE") }
            var contentType = response.header("Content-Type") ?? ""
            var body = response.body
            if contentType.contains("json") {
                // A recording serves JSON compactly: a server's closing newline is not kept.
                while body.last == 0x0A { body.removeLast() }
                contentType = "application/json"
            }
            answers.append(
                Answer(
                    request: "\(method) \(target)",
                    status: response.status,
                    contentType: contentType,
                    location: local(response.header("Location")),
                    link: local(response.header("Link")),
                    body: response.encodedAs("gzip") ? [] : body
                )
            )
            return response
        }

        private func keep(_ setCookie: String) {
            let pair = setCookie.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { return }
            cookies.removeAll { $0.name == parts[0] }
            let deleted = parts[1].isEmpty || setCookie.lowercased().contains("max-age=0")
            if !deleted { cookies.append((parts[0], parts[1])) }
        }

        /// The target of an absolute URL that must lead back to this server.
        func ownTarget(_ url: String) -> String? {
            url.hasPrefix(base + "/") ? String(url.dropFirst(base.count)) : nil
        }
    }

    /// The walk. Returns what the client saw.
    func walk(port: Int, file: StaticString = #filePath, line: UInt = #line) throws -> [Answer] {
        let client = try Client(port: port)
        XCTAssertEqual(try client.call("GET", "/api/me").status, 401, file: file, line: line)
        XCTAssertEqual(
            try client.call("POST", "/api/login", json: #"{"user":"ana","password":"pw"}"#).status,
            200,
            file: file,
            line: line
        )
        XCTAssertEqual(try client.call("GET", "/api/me").status, 200, "signed in", file: file, line: line)
        var next: String? = "/api/items"
        var pages = 0
        while let target = next {
            let page = try client.call("GET", target)
            XCTAssertEqual(page.status, 200, target, file: file, line: line)
            pages += 1
            next = nil
            let link = page.header("Link") ?? ""
            if let nextLink = link.split(separator: ",").first(where: { $0.contains("rel=\"next\"") }),
                let open = nextLink.firstIndex(of: "<"), let close = nextLink.firstIndex(of: ">")
            {
                let url = String(nextLink[nextLink.index(after: open)..<close])
                next = client.ownTarget(url)
                XCTAssertNotNil(next, "the next page's link leaves the server: \(url)", file: file, line: line)
            }
            if pages > 5 { break }
        }
        XCTAssertEqual(pages, 3, "every page, by its links", file: file, line: line)
        let redirect = try client.call("GET", "/old-report")
        XCTAssertEqual(redirect.status, 302, file: file, line: line)
        let location = try XCTUnwrap(
            client.ownTarget(redirect.header("Location") ?? ""),
            "the redirect leaves the server: \(redirect.header("Location") ?? "none")",
            file: file,
            line: line
        )
        let report = try client.call("GET", location)
        XCTAssertEqual(report.status, 200, file: file, line: line)
        let download = try client.call("GET", "/download")
        XCTAssertEqual(download.body, (0..<3000).map { UInt8(($0 * 7 + 3) % 256) }, file: file, line: line)
        XCTAssertEqual(try client.call("POST", "/api/logout").status, 200, file: file, line: line)
        XCTAssertEqual(try client.call("GET", "/api/me").status, 401, "signed out", file: file, line: line)
        XCTAssertTrue(client.cookies.isEmpty, "logout cleared the cookie: \(client.cookies)", file: file, line: line)
        client.connection.close()
        return client.answers
    }

    func testTheNewcomersWalkRecordedThenReplayedTwiceGivesTheSameAnswers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let backend = try PythonBackend(script: RecordingWalkBackend.script, arguments: [RecordingWalkBackend.csv])
        defer { backend.stop() }

        let recorder = try StubServerProcess([
            "record", "--proxy", "http://127.0.0.1:\(backend.port)", "--preserve-host",
            "--out", folder.path, "--port", "0", "--log", "quiet",
        ])
        let recordingPort = try XCTUnwrap(recorder.baseURL().flatMap { Int($0.split(separator: ":").last!) })
        let recorded = try walk(port: recordingPort)
        recorder.signal(SIGINT)
        XCTAssertEqual(recorder.exitStatus(), 0, recorder.stderr)
        backend.stop()

        let validate = try runStubServer(["validate", "--dir", folder.path])
        XCTAssertEqual(validate.status, 0, validate.stdout + validate.stderr)
        XCTAssertFalse(validate.stdout.contains("warning"), validate.stdout)

        let replay = try StubServerProcess(["--dir", folder.path, "--port", "0", "--no-watch", "--log", "quiet"])
        let replayPort = try XCTUnwrap(replay.baseURL().flatMap { Int($0.split(separator: ":").last!) })
        XCTAssertNotEqual(replayPort, recordingPort)
        let first = try walk(port: replayPort)
        let second = try walk(port: replayPort)
        XCTAssertEqual(first, second, "the second walk, with no reset, answers as the first")
        XCTAssertEqual(first.count, recorded.count)
        for (index, (was, is_)) in zip(recorded, first).enumerated() {
            if was.request.hasPrefix("GET /api/report.csv") {
                // Recorded decoded: the replay sends the CSV itself, without Content-Encoding.
                XCTAssertEqual(is_.body, Array(RecordingWalkBackend.csv.utf8), "step \(index): the CSV, decoded")
                XCTAssertEqual(is_.status, was.status)
                continue
            }
            XCTAssertEqual(was, is_, "step \(index)")
        }
        replay.signal(SIGTERM)
        XCTAssertEqual(replay.exitStatus(), 0)

        // What is on disk: no session token, the CSV decoded, no body file shared across endpoints.
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/__files").sorted()
        XCTAssertTrue(files.contains { $0.hasSuffix(".csv") }, "\(files)")
        XCTAssertTrue(files.contains { $0.hasSuffix(".bin") }, "\(files)")
    }
}

extension WireResponse {
    func encodedAs(_ coding: String) -> Bool {
        header("Content-Encoding")?.lowercased() == coding
    }
}

/// A Python program run as a child process; ready once it prints `PORT n` (never a sleep).
final class PythonBackend: @unchecked Sendable {
    let process = Process()
    let port: Int

    init(script: String, arguments: [String]) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("backend-\(UUID().uuidString).py")
        try script.write(to: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", file.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line: [UInt8] = []
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        try? FileManager.default.removeItem(at: file)
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw XCTSkip("python3 did not start the backend (\(text)); the walk needs python3")
        }
        self.port = port
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
