import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The built binary, run the way users and scripts run it.
final class CommandLineEndToEndTests: XCTestCase {
    func testReadyLineServesAndStopsWithZeroOnSIGTERM() throws {
        let dir = folder([
            "a.json":
                #"""
            [{"name": "Hello", "request": {"path": "/hello"}, "response": {"body": {"hi": 1}}}, {"response": \#
            {"status": 204}}]
            """#
        ])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch"])
        let ready = try XCTUnwrap(server.readyLine())
        XCTAssertNotNil(
            ready.range(
                of: #"^stubserver listening on http://127\.0\.0\.1:[1-9][0-9]* \(2 stubs from .+\)$"#,
                options: .regularExpression
            ),
            ready
        )
        XCTAssertTrue(ready.hasSuffix("from \(dir.path))"), ready)
        let base = try XCTUnwrap(server.baseURL())
        let hello = try fetch(base + "/hello")
        XCTAssertEqual(hello.status, 200)
        XCTAssertEqual(hello.body, #"{"hi":1}"#)
        XCTAssertEqual(hello.headers["content-type"], "application/json")
        XCTAssertTrue(hello.headers["server"]?.hasPrefix("stubserver/") ?? false)
        XCTAssertNotNil(hello.headers["date"])
        server.waitFor("the request log line") { server.stdout.contains("GET /hello 200 \"Hello\"") }
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    /// Issue 36: a delayed answer imitates a slow network, so stopping does not wait it out
    /// (it waited the 5 s grace period); a client that gave up first is journaled as having
    /// abandoned its answer, not as answered after the whole delay.
    func testAnAbandonedDelayIsJournaledSoAndSIGINTDoesNotWaitForADelay() throws {
        let dir = folder(["slow.json": #"{"request": {"path": "/slow"}, "response": {"delay": 8000, "body": "done"}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--admin-token", "t0k"])
        let base = try XCTUnwrap(server.baseURL())
        // A client that gives up after 1 s.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1
        let gaveUp = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: (any Error)?
        URLSession(configuration: configuration).dataTask(with: URL(string: base + "/slow")!) { _, _, error in
            failure = error
            gaveUp.signal()
        }.resume()
        XCTAssertEqual(gaveUp.wait(timeout: .now() + 10), .success)
        XCTAssertEqual((failure as? URLError)?.code, .timedOut)
        let auth = ["Authorization": "Bearer t0k"]
        var journal = ""
        server.waitFor("the journal to say abandoned") {
            journal = (try? fetch(base + "/__admin/requests", headers: auth).body) ?? ""
            return journal.contains(#""abandoned":true"#)
        }
        XCTAssertTrue(journal.contains(#""status":null"#), journal)
        // A second client still waiting when the server is told to stop.
        nonisolated(unsafe) var body: String?
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body = try? fetch(base + "/slow").body
            finished.signal()
        }
        server.waitFor("the second request to be in flight") {
            server.stdout.components(separatedBy: "GET /slow 200").count == 3
        }
        let stopping = Date()
        server.signal(SIGINT)
        XCTAssertEqual(server.exitStatus(), 0)
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 3, "the stop waited for the delay or the grace period")
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertNotEqual(body, "done", "the delayed answer is cut, not sent")
        XCTAssertTrue(server.stderr.contains("stopping"), server.stderr)
    }

    func testPortFileAndJSONLog() throws {
        let dir = folder(["a.json": #"{"name": "A", "request": {"path": "/a"}, "response": {}}"#])
        let portFile = dir.appendingPathComponent("port").path
        let server = try StubServerProcess([
            "--dir=\(dir.path)", "--port=0", "--port-file=\(portFile)", "--log=json", "--no-watch",
        ])
        let base = try XCTUnwrap(server.baseURL())
        let port = try String(contentsOfFile: portFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(base.hasSuffix(":\(port)"))
        _ = try fetch(base + "/a?x=1")
        _ = try fetch(base + "/b")
        server.waitFor("two JSON log lines") { server.stdout.split(separator: "\n").count >= 3 }
        let lines = server.stdout.split(separator: "\n").dropFirst().map(String.init)
        let first = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        XCTAssertEqual(first["method"] as? String, "GET")
        XCTAssertEqual(first["target"] as? String, "/a?x=1")
        XCTAssertEqual(first["status"] as? Int, 200)
        XCTAssertEqual(first["stub"] as? String, "A")
        let second = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        XCTAssertEqual(second["status"] as? Int, 404)
        XCTAssertTrue(second["stub"] is NSNull)
        XCTAssertNotNil(second["nearMiss"])
    }

    /// A fault sends no status line: the log says which fault went out, never the stub's 200.
    func testFaultsAreLoggedAsFaults() throws {
        let dir = folder([
            "a.json": #"{"name": "Broken", "request": {"path": "/reset"}, "response": {"fault": "reset"}}"#
        ])
        for format in ["text", "json"] {
            let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--log", format])
            let base = try XCTUnwrap(server.baseURL())
            XCTAssertThrowsError(try fetch(base + "/reset"))
            server.waitFor("the fault's log line") { server.stdout.contains("/reset") }
            let line = try XCTUnwrap(
                server.stdout.split(separator: "\n").first { $0.contains("/reset") }.map(String.init)
            )
            if format == "text" {
                XCTAssertTrue(line.contains("GET /reset FAULT reset \"Broken\""), line)
            } else {
                let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                XCTAssertTrue(json["status"] is NSNull, line)
                XCTAssertEqual(json["fault"] as? String, "reset")
                XCTAssertEqual(json["stub"] as? String, "Broken")
            }
        }
    }

    func testValidateReportsEveryErrorWithPositionsAndExitsOne() throws {
        let dir = folder([
            "good.json": #"{"response": {}}"#,
            "bad-syntax.json": "{\n  \"response\": {\"status\": 200,}\n}",
            "bad-keys.json": #"{"reqest": {}, "response": {"status": 700}}"#,
        ])
        let result = try runStubServer(["validate", "--dir", dir.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("bad-syntax.json:2:30: error: trailing comma before '}'"), result.stdout)
        XCTAssertTrue(
            result.stdout.contains(
                "bad-keys.json:1:2: error: $.reqest: unknown key \"reqest\" in a stub; did you mean \"request\"?"
            ),
            result.stdout
        )
        XCTAssertTrue(
            result.stdout.contains(
                "bad-keys.json:1:39: error: $.response.status: expected an HTTP status from 100 to 599"
            ),
            result.stdout
        )
        XCTAssertTrue(result.stdout.contains("3 errors in 2 files"), result.stdout)
    }

    func testValidateGoodFolderExitsZero() throws {
        // The second stub answers POST only: two stubs without conditions would be a shadowed pair.
        let dir = folder([
            "a.json": #"[{"response": {}}, {"request": {"method": "POST"}, "#
                + #""response": {"headers": {"Content-Length": "1"}}}]"#
        ])
        let result = try runStubServer(["validate", "--dir=\(dir.path)"])
        XCTAssertEqual(result.status, 0, result.stdout)
        XCTAssertTrue(result.stdout.contains("2 stubs in 1 file, no errors, 1 warning"), result.stdout)
    }

    func testServingABrokenFolderExitsOneWithTheErrors() throws {
        let dir = folder(["a.json": "[{]"])
        let result = try runStubServer(["--dir", dir.path, "--port", "0"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("a.json:1:3: error:"), result.stderr)
        XCTAssertTrue(result.stderr.contains("not serving"), result.stderr)
        XCTAssertFalse(result.stdout.contains("listening"))
    }

    func testMissingFolderSaysWhatToDo() throws {
        let result = try runStubServer(["--dir", "/nonexistent-\(UUID().uuidString)", "--port", "0"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("does not exist"), result.stderr)
    }

    func testUsageErrorsExitTwoWithOneLineAndAHint() throws {
        let result = try runStubServer(["--prot", "0"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(
            result.stderr,
            "stubserver: unknown option --prot (did you mean --port?)\nRun 'stubserver serve --help' for the usage.\n"
        )
        let validate = try runStubServer(["validate", "--port", "1"])
        XCTAssertEqual(validate.status, 2)
        XCTAssertTrue(
            validate.stderr.hasPrefix(
                "stubserver: --port applies to serve, not to validate\nRun 'stubserver validate --help'"
            ),
            validate.stderr
        )
    }

    // Issue 11: the error message named `serve` but the command line rejected it.
    func testServeCanBeNamed() throws {
        let dir = folder(["a.json": #"{"request": {"path": "/a"}, "response": {"body": "a"}}"#])
        let server = try StubServerProcess(["serve", "--dir", dir.path, "--port", "0", "--no-watch"])
        let base = try XCTUnwrap(server.baseURL())
        XCTAssertEqual(try fetch(base + "/a").body, "a")
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
        let help = try runStubServer(["validate", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.hasPrefix("Usage:\n  stubserver validate [--dir DIR]"), help.stdout)
        XCTAssertFalse(help.stdout.contains("--port"), "validate's help lists validate's options")
    }

    func testHelpAndVersion() throws {
        let help = try runStubServer(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("stubserver validate [--dir DIR]"))
        let version = try runStubServer(["--version"])
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.hasPrefix("stubserver 0."), version.stdout)
    }

    func testPortInUseNamesThePortAndSuggestsPortZero() throws {
        let dir = folder(["a.json": #"{"response": {}}"#])
        let first = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch"])
        let base = try XCTUnwrap(first.baseURL())
        let port = String(base.split(separator: ":").last!)
        let second = try runStubServer(["--dir", dir.path, "--port", port, "--no-watch"])
        XCTAssertEqual(second.status, 1)
        XCTAssertTrue(second.stderr.contains(port), second.stderr)
        XCTAssertTrue(second.stderr.contains("--port 0"), second.stderr)
    }

    func testNonLoopbackHostWarns() throws {
        let dir = folder(["a.json": #"{"response": {}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--host", "0.0.0.0", "--no-watch"])
        XCTAssertNotNil(server.baseURL())
        server.waitFor("the warning") { server.stderr.contains("warning: listening on 0.0.0.0") }
    }

    func testHotReloadServesEditsKeepsLastGoodOnErrorsAndSeesNewAndDeletedFiles() throws {
        let dir = folder(["a.json": #"{"request": {"path": "/a"}, "response": {"body": "one"}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0"])
        let base = try XCTUnwrap(server.baseURL())
        XCTAssertEqual(try fetch(base + "/a").body, "one")

        try Data(#"{"request": {"path": "/a"}, "response": {"body": "two"}}"#.utf8).write(
            to: dir.appendingPathComponent("a.json")
        )
        server.waitFor("the edit to be served", timeout: 5) { (try? fetch(base + "/a").body) == "two" }

        try Data(#"{"request": {"path": "/a"}, "response": {"body": "three"}"#.utf8).write(
            to: dir.appendingPathComponent("a.json")
        )
        server.waitFor("the reload error", timeout: 5) { server.stderr.contains("reload failed") }
        XCTAssertTrue(server.stderr.contains("a.json:1:"), server.stderr)
        XCTAssertEqual(try fetch(base + "/a").body, "two", "a broken edit keeps the last good stubs")

        try Data(#"{"request": {"path": "/b"}, "response": {"body": "bee"}}"#.utf8).write(
            to: dir.appendingPathComponent("b.json")
        )
        try Data(#"{"request": {"path": "/a"}, "response": {"body": "four"}}"#.utf8).write(
            to: dir.appendingPathComponent("a.json")
        )
        server.waitFor("the new file", timeout: 5) { (try? fetch(base + "/b").body) == "bee" }
        XCTAssertEqual(try fetch(base + "/a").body, "four")

        try FileManager.default.removeItem(at: dir.appendingPathComponent("b.json"))
        server.waitFor("the deleted file to stop answering", timeout: 5) { (try? fetch(base + "/b").status) == 404 }
    }

    func testNoWatchKeepsTheStubsLoadedAtStart() throws {
        let dir = folder(["a.json": #"{"request": {"path": "/a"}, "response": {"body": "one"}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--log", "quiet"])
        let base = try XCTUnwrap(server.baseURL())
        try Data(#"{"request": {"path": "/a"}, "response": {"body": "two"}}"#.utf8).write(
            to: dir.appendingPathComponent("a.json")
        )
        // A control: a second server with watching on sees the same edit, so by the time it
        // does, the first one would have too if it were watching.
        let watching = try StubServerProcess(["--dir", dir.path, "--port", "0", "--log", "quiet"])
        let watchingBase = try XCTUnwrap(watching.baseURL())
        try Data(#"{"request": {"path": "/a"}, "response": {"body": "three"}}"#.utf8).write(
            to: dir.appendingPathComponent("a.json")
        )
        watching.waitFor("the watching server to reload", timeout: 5) {
            (try? fetch(watchingBase + "/a").body) == "three"
        }
        XCTAssertEqual(try fetch(base + "/a").body, "one")
    }
}

final class CORSEndToEndTests: XCTestCase {
    func testCORSFlagAnswersPreflightsOverTheWire() throws {
        let dir = folder([
            "a.json": #"{"request": {"path": "/api"}, "response": {"headers": {"X-Id": "1"}, "body": {}}}"#
        ])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--cors"])
        let base = try XCTUnwrap(server.baseURL())
        let preflight = try fetch(
            base + "/api",
            method: "OPTIONS",
            headers: [
                "Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            ]
        )
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.headers["access-control-allow-origin"], "http://localhost:5173")
        XCTAssertEqual(preflight.headers["access-control-allow-headers"], "content-type")
        let get = try fetch(base + "/api", headers: ["Origin": "http://localhost:5173"])
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(get.headers["access-control-expose-headers"], "X-Id, Content-Type")
        server.waitFor("the preflight log line") { server.stdout.contains("OPTIONS /api 204 CORS preflight") }
    }
}

final class GlobalDelayEndToEndTests: XCTestCase {
    func testGlobalDelayAddsToTheStubsOwn() throws {
        let dir = folder(["a.json": #"{"request": {"path": "/d"}, "response": {"delay": 100, "body": "ok"}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--delay", "200"])
        let base = try XCTUnwrap(server.baseURL())
        let started = Date()
        XCTAssertEqual(try fetch(base + "/d").body, "ok")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3)
        server.waitFor("the log line with the total delay") { server.stdout.contains("(+300ms delay)") }
    }

    // Issue 11: with --delay, admin and preflight requests were delayed and logged as NO MATCH.
    func testGlobalDelayLeavesAdminAndPreflightAloneAndLogsThemAsWhatTheyAre() throws {
        let dir = folder(["a.json": #"{"request": {"path": "/d"}, "response": {"body": "ok"}}"#])
        let server = try StubServerProcess([
            "--dir", dir.path, "--port", "0", "--no-watch", "--delay", "1500", "--cors",
        ])
        let base = try XCTUnwrap(server.baseURL())
        let started = Date()
        XCTAssertEqual(try fetch(base + "/__admin/health").status, 200)
        let preflight = try fetch(
            base + "/d",
            method: "OPTIONS",
            headers: ["Origin": "http://app.test", "Access-Control-Request-Method": "GET"]
        )
        XCTAssertEqual(preflight.status, 204)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "neither waited for the global delay")
        server.waitFor("the admin and preflight log lines") {
            server.stdout.contains("GET /__admin/health 200 admin")
                && server.stdout.contains("OPTIONS /d 204 CORS preflight")
        }
        XCTAssertFalse(server.stdout.contains("NO MATCH"), server.stdout)
        XCTAssertFalse(server.stdout.contains("(+1500ms delay)"), server.stdout)
        // A stub and a near miss still wait.
        let delayed = Date()
        XCTAssertEqual(try fetch(base + "/d").body, "ok")
        XCTAssertEqual(try fetch(base + "/missing").status, 404)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(delayed), 3.0)
    }
}

final class AdminEndToEndTests: XCTestCase {
    func testAScriptedTestFromTheOutside() throws {
        let dir = folder(["a.json": #"{"request": {"path": "/file"}, "response": {}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--admin-token", "t0k"])
        let base = try XCTUnwrap(server.baseURL())
        let auth = ["Authorization": "Bearer t0k"]
        XCTAssertEqual(try fetch(base + "/__admin/requests").status, 401)
        XCTAssertEqual(try fetch(base + "/__admin/health").status, 200, "health probes need no token")
        let added = try fetch(
            base + "/__admin/stubs",
            method: "POST",
            headers: auth,
            body: #"{"request": {"method": "GET", "path": "/v1/flags"}, "response": {"body": {"newCheckout": true}}}"#
        )
        XCTAssertEqual(added.status, 201, added.body)
        XCTAssertEqual(try fetch(base + "/v1/flags").body, #"{"newCheckout":true}"#)
        _ = try fetch(base + "/v1/unknown")
        let count = try fetch(
            base + "/__admin/requests/count",
            method: "POST",
            headers: auth,
            body: #"{"path": "/v1/flags"}"#
        )
        XCTAssertEqual(count.body, #"{"count":1}"#)
        let unmatched = try fetch(base + "/__admin/requests/unmatched", headers: auth)
        XCTAssertTrue(unmatched.body.contains(#""path":"/v1/unknown""#), unmatched.body)
        XCTAssertEqual(try fetch(base + "/__admin/reset", method: "POST", headers: auth).status, 200)
        XCTAssertEqual(try fetch(base + "/v1/flags").status, 404)
        server.waitFor("the admin log line") { server.stdout.contains("POST /__admin/reset 200 admin") }
    }

    /// Beyond loopback the admin API needs a token from every client, loopback ones included:
    /// one is made up, printed once (in the inspector's address, after `#`), and required.
    func testNonLoopbackWithoutATokenGeneratesOneAndRequiresIt() throws {
        let dir = folder(["a.json": #"{"response": {}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--host", "0.0.0.0", "--no-watch"])
        let base = try XCTUnwrap(server.baseURL()).replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1")
        server.waitFor("the token line") { server.stdout.contains("admin token: ") }
        let tokenLine = try XCTUnwrap(server.stdout.split(separator: "\n").first { $0.hasPrefix("admin token: ") })
        let token = String(tokenLine.dropFirst("admin token: ".count).prefix { $0 != " " })
        XCTAssertEqual(token.count, 48, String(tokenLine))
        XCTAssertTrue(server.stdout.contains("/__admin/ui#token=\(token)"), server.stdout)
        XCTAssertEqual(try fetch(base + "/__admin/requests").status, 401, "no token, though the client is on loopback")
        XCTAssertEqual(try fetch(base + "/__admin/reset", method: "POST", body: "").status, 401)
        XCTAssertEqual(try fetch(base + "/__admin/requests", headers: ["Authorization": "Bearer wrong"]).status, 401)
        XCTAssertEqual(try fetch(base + "/__admin/requests", headers: ["Authorization": "Bearer \(token)"]).status, 200)
        XCTAssertEqual(try fetch(base + "/anything").status, 200, "the stubs answer everyone")
        XCTAssertEqual(try fetch(base + "/__admin/ui").status, 200, "the page that asks for the token loads")
        // Never logged: the request log and stderr do not carry it.
        _ = try fetch(base + "/__admin/requests", headers: ["Authorization": "Bearer \(token)"])
        XCTAssertFalse(server.stderr.contains(token), server.stderr)
        XCTAssertEqual(
            server.stdout.components(separatedBy: token).count - 1,
            3,
            "printed once, in two lines: \(server.stdout)"
        )
    }

    func testAdminOpenRestoresTheOpenAdminAPIWithAWarning() throws {
        let dir = folder(["a.json": #"{"response": {}}"#])
        let server = try StubServerProcess([
            "--dir", dir.path, "--port", "0", "--host", "0.0.0.0", "--no-watch", "--admin-open",
        ])
        let base = try XCTUnwrap(server.baseURL()).replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1")
        XCTAssertEqual(try fetch(base + "/__admin/requests").status, 200)
        XCTAssertFalse(server.stdout.contains("admin token:"))
        server.waitFor("the admin warning") { server.stderr.contains("open to them too (--admin-open)") }
    }

    func testAGivenTokenIsUsedAndNotPrinted() throws {
        let dir = folder(["a.json": #"{"response": {}}"#])
        let server = try StubServerProcess([
            "--dir", dir.path, "--port", "0", "--host", "0.0.0.0", "--no-watch", "--admin-token", "mine-123",
        ])
        let base = try XCTUnwrap(server.baseURL()).replacingOccurrences(of: "0.0.0.0", with: "127.0.0.1")
        XCTAssertEqual(try fetch(base + "/__admin/requests").status, 401)
        XCTAssertEqual(try fetch(base + "/__admin/requests", headers: ["Authorization": "Bearer mine-123"]).status, 200)
        XCTAssertFalse(server.stdout.contains("mine-123") || server.stderr.contains("mine-123"))
    }
}

final class JournalMemoryTests: XCTestCase {
    /// The journal is a ring buffer with bodies truncated at 64 KiB: after it fills, resident
    /// memory stays flat however many large requests arrive.
    func testResidentSizeStaysFlatUnderManyLargeRequests() throws {
        let dir = folder(["a.json": #"{"request": {"method": "POST"}, "response": {"status": 204}}"#])
        let server = try StubServerProcess([
            "--dir", dir.path, "--port", "0", "--no-watch", "--log", "quiet", "--journal", "50",
        ])
        let base = try XCTUnwrap(server.baseURL())
        let body = String(repeating: "x", count: 512 * 1024)
        func residentKiB() -> Int {
            guard
                let status = try? String(
                    contentsOfFile: "/proc/\(server.process.processIdentifier)/status",
                    encoding: .utf8
                ),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
            else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        for _ in 0..<100 { XCTAssertEqual(try fetch(base + "/upload", method: "POST", body: body).status, 204) }
        let afterFilling = residentKiB()
        for _ in 0..<300 { XCTAssertEqual(try fetch(base + "/upload", method: "POST", body: body).status, 204) }
        let afterMore = residentKiB()
        guard afterFilling > 0 else { throw XCTSkip("no /proc on this system") }
        XCTAssertLessThan(
            afterMore,
            afterFilling + 8 * 1024,
            "resident size grew from \(afterFilling) KiB to \(afterMore) KiB"
        )
    }
}
