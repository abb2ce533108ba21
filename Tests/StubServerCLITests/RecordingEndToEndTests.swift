import Foundation
import TestSupport
import XCTest

/// `stubserver record` end to end: a scripted 40-request session against a loopback upstream,
/// recorded twice into two folders that must be identical, replayed from the folder with no
/// upstream, validated, free of secrets, and recorded over again without writing anything.
final class RecordingEndToEndTests: XCTestCase {
    struct Step {
        let method: String
        let target: String
        var headers: [(String, String)] = []
        var body: String = ""
    }

    /// The session: reads, a list that changes between two reads (a sequence), a login with a
    /// JSON body, an authorised call, a form post, an image, a large and a pretty-printed JSON
    /// body (files), HTML, a redirect, 204, 404 and 500 answers.
    static let session: [Step] = {
        var steps: [Step] = []
        let auth = [("Authorization", "Bearer s3cr3t-token")]
        steps.append(Step(method: "GET", target: "/v1/health"))
        steps.append(
            Step(
                method: "POST",
                target: "/v1/login",
                headers: [("Content-Type", "application/json")],
                body: #"{"user":"ana","password":"pw-123"}"#
            )
        )
        steps.append(Step(method: "GET", target: "/v1/me", headers: auth + [("Cookie", "session=cookie-value-1")]))
        for page in 1...5 { steps.append(Step(method: "GET", target: "/v1/items?page=\(page)&size=20", headers: auth)) }
        steps.append(Step(method: "GET", target: "/v1/cart", headers: auth))
        steps.append(
            Step(
                method: "POST",
                target: "/v1/cart",
                headers: auth + [("Content-Type", "application/json")],
                body: #"{"item":7,"qty":1}"#
            )
        )
        steps.append(Step(method: "GET", target: "/v1/cart", headers: auth))
        steps.append(
            Step(
                method: "POST",
                target: "/v1/cart",
                headers: auth + [("Content-Type", "application/json")],
                body: #"{"item":9,"qty":2}"#
            )
        )
        steps.append(Step(method: "GET", target: "/v1/cart", headers: auth))
        for id in [1, 2, 3, 2, 1] { steps.append(Step(method: "GET", target: "/v1/items/\(id)")) }
        steps.append(Step(method: "GET", target: "/v1/search?q=caf%C3%A9&sort=new"))
        steps.append(Step(method: "GET", target: "/v1/search?sort=new&q=caf%C3%A9"))
        steps.append(
            Step(
                method: "POST",
                target: "/v1/feedback",
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: "text=great+app&stars=5"
            )
        )
        steps.append(Step(method: "GET", target: "/static/logo.png"))
        steps.append(Step(method: "GET", target: "/v1/catalog"))
        steps.append(Step(method: "GET", target: "/v1/pretty"))
        steps.append(Step(method: "GET", target: "/help"))
        steps.append(Step(method: "GET", target: "/old-home"))
        steps.append(Step(method: "DELETE", target: "/v1/items/3", headers: auth))
        steps.append(Step(method: "GET", target: "/v1/missing"))
        steps.append(Step(method: "GET", target: "/v1/flaky"))
        steps.append(Step(method: "GET", target: "/v1/flaky"))
        steps.append(
            Step(
                method: "PUT",
                target: "/v1/profile",
                headers: auth + [("Content-Type", "application/json")],
                body: #"{"name":"Ana"}"#
            )
        )
        steps.append(Step(method: "GET", target: "/v1/profile", headers: auth))
        steps.append(Step(method: "HEAD", target: "/v1/items/1"))
        steps.append(Step(method: "GET", target: "/v1/health"))
        for n in 1...4 { steps.append(Step(method: "GET", target: "/v1/notifications?since=\(n)", headers: auth)) }
        steps.append(Step(method: "GET", target: "/v1/items?page=1&size=20", headers: auth))
        steps.append(Step(method: "POST", target: "/v1/logout", headers: auth))
        return steps
    }()

    /// A fresh upstream that answers the session the same way every time it is started.
    static func makeUpstream() throws -> ScriptedUpstream {
        let counts = Counter()
        return try ScriptedUpstream { request in
            let seen = counts.next(request.method + " " + request.target.split(separator: "?").first.map(String.init)!)
            let json = [("Content-Type", "application/json")]
            let path = String(request.target.split(separator: "?").first ?? "")
            switch (request.method, path) {
            case ("POST", "/v1/login"):
                return [
                    .response(
                        200,
                        headers: json + [
                            ("Set-Cookie", "session=server-secret-1; HttpOnly"),
                            ("Date", "Mon, 23 Nov 2026 10:00:0\(seen % 10) GMT"),
                        ],
                        body: Array(#"{"token":"t-1","expires":3600}"#.utf8)
                    )
                ]
            case ("GET", "/v1/cart"):
                return [.response(200, headers: json, body: Array(#"{"items":\#(seen - 1)}"#.utf8))]
            case ("GET", "/v1/flaky"):
                return seen == 1
                    ? [
                        .response(
                            503,
                            "Service Unavailable",
                            headers: json + [("Retry-After", "1")],
                            body: Array(#"{"error":"busy"}"#.utf8)
                        )
                    ]
                    : [.response(200, headers: json, body: Array(#"{"ok":true}"#.utf8))]
            case ("GET", "/static/logo.png"):
                return [
                    .response(
                        200,
                        headers: [("Content-Type", "image/png")],
                        body: (0..<3000).map { UInt8(($0 * 7 + 3) % 256) }
                    )
                ]
            case ("GET", "/v1/catalog"):
                let items = (0..<3000).map { #"{"id":\#($0),"name":"item \#($0)"}"# }.joined(separator: ",")
                return [.response(200, headers: json, body: Array("[\(items)]".utf8))]
            case ("GET", "/v1/pretty"):
                return [.response(200, headers: json, body: Array("{\n  \"pretty\": true\n}\n".utf8))]
            case ("GET", "/help"):
                return [
                    .response(
                        200,
                        headers: [("Content-Type", "text/html; charset=utf-8")],
                        body: Array("<h1>Help</h1>".utf8)
                    )
                ]
            case ("GET", "/old-home"):
                return [.response(301, "Moved Permanently", headers: [("Location", "/help")])]
            case ("DELETE", _), ("POST", "/v1/logout"):
                return [.response(204, "No Content", contentLength: false)]
            case ("GET", "/v1/missing"):
                return [.response(404, "Not Found", headers: json, body: Array(#"{"error":"not here"}"#.utf8))]
            case ("HEAD", _):
                return [
                    .send(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n".utf8))
                ]
            default:
                let encoding = request.header("Accept-Encoding") ?? ""
                let echo =
                    #"{"method":"\#(request.method)","target":"\#(request.target)","#
                    + #""body":\#(request.body.count),"encoding":"\#(encoding)"}"#
                return [
                    .response(
                        request.method == "POST" ? 201 : 200,
                        headers: json + [("X-Served-By", "upstream"), ("Age", "\(seen)")],
                        body: Array(echo.utf8)
                    )
                ]
            }
        }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func next(_ key: String) -> Int {
            lock.withLock {
                counts[key, default: 0] += 1
                return counts[key]!
            }
        }
    }

    /// Runs the session against `base`, one request after another on one connection; returns
    /// each answer's status and body.
    func play(_ base: String) throws -> [(Int, [UInt8])] {
        let port = try XCTUnwrap(Int(base.split(separator: ":").last!))
        let c = try WireConnection(port: port)
        var answers: [(Int, [UInt8])] = []
        for step in Self.session {
            var text = "\(step.method) \(step.target) HTTP/1.1\r\nHost: app.test\r\n"
            for (name, value) in step.headers { text += "\(name): \(value)\r\n" }
            if !step.body.isEmpty || step.method == "POST" || step.method == "PUT" {
                text += "Content-Length: \(step.body.utf8.count)\r\n"
            }
            c.send(text + "\r\n" + step.body)
            let response = try c.readResponse(timeoutMilliseconds: 10_000, isHead: step.method == "HEAD")
            answers.append((response.status, response.body))
        }
        return answers
    }

    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// One recording session into `out`: its answers, what the upstream saw, and the output.
    func record(into out: URL) throws -> (answers: [(Int, [UInt8])], upstream: ScriptedUpstream, stdout: String) {
        let upstream = try Self.makeUpstream()
        let server = try StubServerProcess([
            "record", "--proxy", "http://127.0.0.1:\(upstream.port)", "--out", out.path,
            "--port", "0", "--log", "quiet",
        ])
        let base = try XCTUnwrap(server.baseURL())
        let answers = try play(base)
        server.signal(SIGINT)
        XCTAssertEqual(server.exitStatus(), 0, server.stderr)
        return (answers, upstream, server.stdout)
    }

    func testRecordTwiceReplayAndRecordAgain() throws {
        XCTAssertEqual(Self.session.count, 40)
        let first = try folder()
        let second = try folder()
        let one = try record(into: first)
        let two = try record(into: second)
        XCTAssertEqual(one.upstream.requests.count, 40)
        XCTAssertTrue(
            one.upstream.requests.allSatisfy { $0.header("Accept-Encoding") == "identity" },
            "recording asks for readable bodies"
        )

        // Identical folders.
        let diff = Process()
        diff.executableURL = URL(fileURLWithPath: "/usr/bin/diff")
        diff.arguments = ["-r", first.path, second.path]
        let output = Pipe()
        diff.standardOutput = output
        try diff.run()
        let difference = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        diff.waitUntilExit()
        XCTAssertEqual(diff.terminationStatus, 0, difference)
        XCTAssertEqual(one.answers.map(\.0), two.answers.map(\.0))

        // What the folder holds: valid stubs, no secret values, bodies in files where they must be.
        let validate = try runStubServer(["validate", "--dir", first.path])
        XCTAssertEqual(validate.status, 0, validate.stdout + validate.stderr)
        let everything = try allText(in: first)
        for secret in ["s3cr3t-token", "cookie-value-1", "server-secret-1"] {
            XCTAssertFalse(everything.contains(secret), "\(secret) written to disk")
        }
        XCTAssertFalse(everything.contains("\"Date\""))
        XCTAssertFalse(everything.contains("\"Age\""))
        let bodyFiles = try FileManager.default.contentsOfDirectory(atPath: first.path + "/__files").sorted()
        XCTAssertTrue(bodyFiles.contains { $0.hasSuffix(".png") }, "\(bodyFiles)")
        XCTAssertGreaterThanOrEqual(
            bodyFiles.filter { $0.hasSuffix(".json") }.count,
            2,
            "the large and the pretty JSON"
        )
        let cart = try String(contentsOf: first.appendingPathComponent("get-v1-cart.json"), encoding: .utf8)
        XCTAssertTrue(cart.contains("\"responses\""), "the cart changed between reads: a sequence\n\(cart)")

        // Served with no upstream, the folder answers the session as the upstream did.
        let replay = try StubServerProcess(["--dir", first.path, "--port", "0", "--no-watch", "--log", "quiet"])
        let replayed = try play(try XCTUnwrap(replay.baseURL()))
        for (index, (recorded, served)) in zip(one.answers, replayed).enumerated() {
            XCTAssertEqual(
                recorded.0,
                served.0,
                "step \(index): \(Self.session[index].method) \(Self.session[index].target)"
            )
            XCTAssertEqual(
                recorded.1,
                served.1,
                "step \(index): \(Self.session[index].method) \(Self.session[index].target)"
            )
        }
        replay.signal(SIGTERM)
        _ = replay.exitStatus()

        // A second session over the same folder: everything is answered from it; nothing new.
        let before = try snapshot(first)
        let again = try record(into: first)
        XCTAssertEqual(again.upstream.requests.count, 0, "no request reached the upstream")
        XCTAssertTrue(again.stdout.contains("nothing new to write"), again.stdout)
        XCTAssertEqual(try snapshot(first), before)
    }

    private func allText(in folder: URL) throws -> String {
        var text = ""
        for case let file as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)! {
            if let data = try? Data(contentsOf: file) { text += String(decoding: data, as: UTF8.self) }
        }
        return text
    }

    private func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for case let file as URL in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)! {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[file.path] = try Data(contentsOf: file)
            }
        }
        return files
    }
}
