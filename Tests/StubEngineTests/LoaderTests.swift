import Foundation
import JSON
@testable import NativeStubs
@testable import StubEngine
import SystemSupport
import WireMock
import XCTest

final class LoaderTests: XCTestCase {
    func testThreeFileShapesRecursiveSortedAndFilesSkipped() {
        let folder = TemporaryFolder()
        folder.write("b.json", #"{"name": "single", "response": {}}"#)
        folder.write("a.json", #"[{"name": "array-0", "response": {}}, {"name": "array-1", "response": {}}]"#)
        folder.write(
            "nested/c.json",
            #"{"$schema": "x", "_note": "hi", "stubs": [{"name": "wrapped", "_why": 1, "response": {}}]}"#
        )
        folder.write("__files/not-a-stub.json", "{ this is a body, not a stub")
        folder.write("nested/__files/deep.json", "[")
        folder.write(".hidden.json", "[")
        folder.write("readme.txt", "not json")
        let result = folder.load()
        XCTAssertEqual(result.errors, [])
        XCTAssertEqual(result.fileCount, 3)
        XCTAssertEqual(result.stubs.map(\.name), ["array-0", "array-1", "single", "wrapped"])
        XCTAssertEqual(result.stubs.map(\.order), [0, 1, 2, 3])
    }

    func testDefaultNameIsFileAndIndex() {
        let folder = TemporaryFolder()
        folder.write("x.json", #"[{"response": {}}, {"response": {}}]"#)
        XCTAssertEqual(folder.load().stubs.map(\.name), ["\(folder.path)/x.json#0", "\(folder.path)/x.json#1"])
    }

    func testSyntaxErrorNamesFileLineAndColumn() {
        let folder = TemporaryFolder()
        folder.write("broken.json", "{\n  \"response\": {\n    \"status\": 200,\n  }\n}")
        let problems = folder.load().problems
        XCTAssertEqual(problems.count, 1)
        XCTAssertEqual(problems.first?.position, SourcePosition(line: 4, column: 3))
        XCTAssertEqual(problems.first?.description, "\(folder.path)/broken.json:4:3: error: trailing comma before '}'")
    }

    func testEveryErrorInEveryFileIsReported() {
        let folder = TemporaryFolder()
        folder.write(
            "one.json",
            """
            [
              {"reqeust": {"method": "GET"}, "response": {}},
              {"request": {"path": "no-slash"}, "response": {"status": 999}}
            ]
            """
        )
        folder.write("two.json", "[1,")
        folder.write("three.json", #"{"response": {"staus": 200}}"#)
        let result = folder.load()
        XCTAssertFalse(result.isServable)
        let messages = result.errors.map(\.description)
        XCTAssertEqual(result.errors.count, 5, messages.joined(separator: "\n"))
        XCTAssertTrue(
            messages.contains {
                $0.contains(
                    "one.json:2:4: error: $[0].reqeust: unknown key \"reqeust\" in a stub; did you mean \"request\"?"
                )
            },
            messages.joined(separator: "\n")
        )
        XCTAssertTrue(messages.contains { $0.contains("$[1].request.path: a path starts with \"/\"") })
        XCTAssertTrue(
            messages.contains {
                $0.contains("$[1].response.status: expected an HTTP status from 100 to 599, found the number 999")
            }
        )
        XCTAssertTrue(messages.contains { $0.contains("two.json:1:4: error:") })
        XCTAssertTrue(
            messages.contains {
                $0.contains(
                    """
                    three.json:1:15: error: $.response.staus: unknown key \"staus\" in the response; did you \
                    mean \"status\"?
                    """
                )
            }
        )
    }

    func testValueErrorsCarryJSONPathAndPosition() {
        let cases: [(String, String, String)] = [
            (#"{"request": {"method": 5}, "response": {}}"#, "$.request.method", "expected a method"),
            (#"{"request": {"method": "GE T"}, "response": {}}"#, "$.request.method", "not an HTTP method"),
            (#"{"request": {"method": []}, "response": {}}"#, "$.request.method", "expected a method"),
            (#"{"request": {"path": "/a", "pathPattern": "/a"}, "response": {}}"#, "$.request.pathPattern", "not both"),
            (
                #"{"request": {"pathPattern": "(unclosed"}, "response": {}}"#, "$.request.pathPattern",
                "invalid regular expression \"(unclosed\": missing ')' for the group opened here (at character 0)"
            ),
            (#"{"request": {"path": "/a/**/b"}, "response": {}}"#, "$.request.path", "last segment"),
            (#"{"request": {"path": "/a/{id}/{id}"}, "response": {}}"#, "$.request.path", "appears twice"),
            (#"{"request": {"path": "/a/x{id}"}, "response": {}}"#, "$.request.path", "whole segment"),
            (#"{"request": {"path": "/a/b*"}, "response": {}}"#, "$.request.path", "pathPattern"),
            (#"{"request": {"path": "/a?b=1"}, "response": {}}"#, "$.request.path", "query"),
            (#"{"request": {"path": "/a%zz"}, "response": {}}"#, "$.request.path", "two hex digits"),
            (
                #"{"request": {"query": {"a": {"contains": "x", "equals": "y"}}}, "response": {}}"#,
                "$.request.query.a", "exactly one"
            ),
            (#"{"request": {"query": {"a": {}}}, "response": {}}"#, "$.request.query.a", "needs one of"),
            (
                #"{"request": {"query": {"a": {"present": false}}}, "response": {}}"#, "$.request.query.a.present",
                "expected true"
            ),
            (
                #"{"request": {"query": {"a": {"contians": "x"}}}, "response": {}}"#, "$.request.query.a.contians",
                "did you mean \"contains\""
            ),
            (
                #"{"request": {"headers": {"X": {"matches": "["}}}, "response": {}}"#, "$.request.headers.X.matches",
                "invalid regular expression \"[\": missing ']' for the class opened here (at character 0)"
            ),
            (
                #"{"request": {"headers": {"X": 1}}, "response": {}}"#, "$.request.headers.X",
                "expected a string or a matcher"
            ),
            (
                #"{"request": {"headers": {"X": {"equals": "a", "caseInsensitive": "yes"}}}, "response": {}}"#,
                "$.request.headers.X.caseInsensitive", "true or false"
            ),
            (#"{"request": {"body": "text"}, "response": {}}"#, "$.request.body", "body matcher"),
            (#"{"request": {"body": {"json": {}, "contains": "x"}}, "response": {}}"#, "$.request.body", "exactly one"),
            (
                #"{"request": {"body": {"jsonEquals": 1, "caseInsensitive": true}}, "response": {}}"#,
                "$.request.body.caseInsensitive", "not to jsonEquals"
            ),
            (#"{"request": {"host": 1}, "response": {}}"#, "$.request.host", "expected a string or a matcher"),
            (#"{"request": {}}"#, "$", "needs a \"response\""),
            (#"{"priority": 0, "response": {}}"#, "$.priority", "1 or more"),
            (#"{"name": "", "response": {}}"#, "$.name", "non-empty string"),
            (#"{"response": {"status": "200"}}"#, "$.response.status", "from 100 to 599"),
            (#"{"response": {"status": 200.5}}"#, "$.response.status", "from 100 to 599"),
            (#"{"response": {"body": "a", "bodyBase64": "YQ=="}}"#, "$.response.bodyBase64", "one body"),
            (#"{"response": {"bodyBase64": 5}}"#, "$.response.bodyBase64", "base64"),
            (#"{"response": {"headers": {"X-A": {"a": 1}}}}"#, "$.response.headers.X-A", "header value as a string"),
            (
                #"{"response": {"headers": {"Bad Name": "v"}}}"#, "$.response.headers[\"Bad Name\"]",
                "not a valid header name"
            ),
            (#"{"response": {"headers": {"X": "a\r\nb"}}}"#, "$.response.headers.X", "line breaks"),
            (#"{"response": {"delay": -1}}"#, "$.response.delay", "milliseconds"),
            (#"{"response": {"delay": {"min": 5, "max": 1}}}"#, "$.response.delay", "min <= max"),
            (#"{"response": {"fault": "explode"}}"#, "$.response.fault", "\"reset\""),
            (#"{"response": {"dribble": {"chunks": 0, "durationMs": 10}}}"#, "$.response.dribble", "chunks"),
            (
                #"{"response": {"fault": "reset", "dribble": {"chunks": 2, "durationMs": 10}}}"#, "$.response.dribble",
                "cannot dribble"
            ),
            (#"{"response": {"bodyFile": "../outside.json"}}"#, "$.response.bodyFile", "outside the stub folder"),
            (#"{"response": {"bodyFile": "/etc/passwd"}}"#, "$.response.bodyFile", "not absolute"),
            (#"{"response": {"bodyFile": "missing.json"}}"#, "$.response.bodyFile", "does not exist"),
            (#"{"response": {"bodyFile": "__files"}}"#, "$.response.bodyFile", "is a folder"),
            (#"{"stubs": {}}"#, "$.stubs", "array of stubs"),
            (#"{"stubs": [], "request": {}}"#, "$.request", "unknown key"),
            (#""just a string""#, "$", "expected a stub object"),
            (#"[{"response": {}}, 7]"#, "$[1]", "expected a stub"),
        ]
        assertLoadErrors(cases)
    }

    func testWebhookErrorsCarryJSONPathPositionAndSuggestions() {
        assertLoadErrors([
            (#"{"response": {}, "webhooks": {"url": "http://h/"}}"#, "$.webhooks", "expected an array of webhooks"),
            (
                #"{"response": {}, "webhooks": [{"metod": "GET", "url": "http://h/"}]}"#, "$.webhooks[0].metod",
                "did you mean \"method\""
            ),
            (#"{"response": {}, "webhooks": [{"method": "GET"}]}"#, "$.webhooks[0]", "needs a \"url\""),
            (#"{"response": {}, "webhooks": [{"url": "h/hook"}]}"#, "$.webhooks[0].url", "absolute http or https URL"),
            (
                #"{"response": {}, "webhooks": [{"url": "http://h/", "method": "GE T"}]}"#, "$.webhooks[0].method",
                "not an HTTP method"
            ),
            (
                #"{"response": {}, "webhooks": [{"url": "http://h/", "headers": {"Bad Name": "v"}}]}"#,
                "$.webhooks[0].headers[\"Bad Name\"]", "not a valid header name"
            ),
            (
                #"{"response": {}, "webhooks": [{"url": "http://h/", "body": "a", "bodyBase64": "YQ=="}]}"#,
                "$.webhooks[0].bodyBase64", "one body"
            ),
            (
                #"{"response": {}, "webhooks": [{"url": "http://h/", "delay": {"min": 5, "max": 1}}]}"#,
                "$.webhooks[0].delay", "min <= max"
            ),
            (
                #"{"response": {}, "webhooks": [{"url": "http://h/{{request.pth}}", "template": true}]}"#,
                "$.webhooks[0].url", "unknown variable"
            ),
            (
                #"""
                {"request": {"path": "/a/{id}"}, "response": {}, "webhooks": [{"url": "http://h/", "template": \#
                true, "body": {"x": "{{request.path.di}}"}}]}
                """#,
                "$.webhooks[0].body.x", "no {di} in the request path"
            ),
        ])
        let folder = TemporaryFolder()
        folder.write("s.json", #"{"response": {}, "webhooks": [{"url": "http://h/{{request.path}}"}]}"#)
        let warnings = folder.load().warnings.map(\.description)
        XCTAssertTrue(
            warnings.contains { $0.contains("s.json:1:31: warning: $.webhooks[0]: {{...}} is sent as written") },
            "\(warnings)"
        )
    }

    func testBodyFileSymlinkOutsideTheFolderIsRefused() throws {
        let outside = TemporaryFolder()
        outside.write("secret.txt", "secret")
        let folder = TemporaryFolder()
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/link.txt",
            withDestinationPath: outside.path + "/secret.txt"
        )
        folder.write("s.json", #"{"response": {"bodyFile": "link.txt"}}"#)
        let errors = folder.load().errors
        XCTAssertEqual(errors.count, 1)
        XCTAssertTrue(errors.first?.message.contains("symbolic link") ?? false, "\(errors)")
    }

    func testBodyFileInsideTheFolderIsReadOnceWithTypeFromExtension() throws {
        let folder = TemporaryFolder()
        folder.write("api/__files/pic.png", "PNGDATA")
        folder.write(
            "api/s.json",
            #"""
            [{"response": {"bodyFile": "__files/pic.png"}}, {"response": {"bodyFile": "__files/pic.png", \#
            "headers": {"Content-Type": "image/x-custom"}}}]
            """#
        )
        let stubs = folder.load().stubs
        XCTAssertEqual(stubs.count, 2)
        XCTAssertEqual(stubs[0].response.prepared.body, Array("PNGDATA".utf8))
        XCTAssertEqual(stubs[0].response.prepared.headers["Content-Type"], "image/png")
        XCTAssertEqual(stubs[1].response.prepared.headers.values("Content-Type"), ["image/x-custom"])
    }

    func testFramingHeadersAreDroppedWithAWarning() {
        let folder = TemporaryFolder()
        folder.write(
            "s.json",
            #"""
            {"response": {"headers": {"Content-Length": "5", "transfer-encoding": "chunked", "Connection": \#
            "close", "X-Kept": "1"}, "body": "hello"}}
            """#
        )
        let result = folder.load()
        XCTAssertTrue(result.isServable)
        XCTAssertEqual(result.warnings.count, 3, "\(result.warnings)")
        XCTAssertTrue(result.warnings.allSatisfy { $0.message.contains("dropped") })
        XCTAssertEqual(result.stubs.first?.response.prepared.headers.map(\.name), ["X-Kept", "Content-Type"])
    }

    func testResponseBodiesAndDefaultContentTypes() {
        let stubs = loadStubs(
            """
            [
              {"response": {"body": "plain"}},
              {"response": {"body": {"b": [1, 2.50], "a": null}}},
              {"response": {"body": [1]}},
              {"response": {"bodyBase64": "AAEC/w=="}},
              {"response": {"status": 204}},
              {"response": {"headers": {"Content-Type": "application/problem+json", "Set-Cookie": ["a=1", "b=2"]}, \
            "body": {"x": 1}}}
            ]
            """
        )
        XCTAssertEqual(stubs[0].response.prepared.headers["Content-Type"], "text/plain; charset=utf-8")
        XCTAssertEqual(String(decoding: stubs[1].response.prepared.body, as: UTF8.self), #"{"b":[1,2.50],"a":null}"#)
        XCTAssertEqual(stubs[1].response.prepared.headers["Content-Type"], "application/json")
        XCTAssertEqual(stubs[2].response.prepared.headers["Content-Type"], "application/json")
        XCTAssertEqual(stubs[3].response.prepared.body, [0, 1, 2, 255])
        XCTAssertEqual(stubs[3].response.prepared.headers["Content-Type"], "application/octet-stream")
        XCTAssertEqual(stubs[4].response.status, 204)
        XCTAssertNil(stubs[4].response.prepared.headers["Content-Type"])
        XCTAssertEqual(stubs[5].response.prepared.headers.values("Set-Cookie"), ["a=1", "b=2"])
        XCTAssertEqual(stubs[5].response.prepared.headers.values("Content-Type"), ["application/problem+json"])
    }

    func testMissingFolderIsAnErrorThatSaysWhatToDo() {
        let result = StubLoader(directory: "/nonexistent/stubs-\(UUID().uuidString)").load()
        XCTAssertFalse(result.isServable)
        XCTAssertTrue(result.errors.first?.message.contains("does not exist") ?? false)
    }

    func testFingerprintChangesOnEditAddAndDelete() throws {
        let folder = TemporaryFolder()
        let file = folder.write("a.json", "[]")
        let loader = StubLoader(directory: folder.path)
        let first = try loader.fingerprint()
        folder.write("b.json", "[]")
        let second = try loader.fingerprint()
        XCTAssertNotEqual(first, second)
        folder.write("a.json", "[ ]")
        XCTAssertNotEqual(second, try loader.fingerprint())
        try FileManager.default.removeItem(at: file)
        XCTAssertEqual(try loader.fingerprint().keys.sorted(), ["b.json"])
    }

    func testSuggestionsForNearKeys() {
        XCTAssertEqual(Suggestion.closest(to: "reqeust", among: StubFileDecoder.stubKeys), "request")
        XCTAssertEqual(Suggestion.closest(to: "Method", among: RequestDecoder.requestKeys), "method")
        XCTAssertEqual(Suggestion.closest(to: "header", among: RequestDecoder.requestKeys), "headers")
        XCTAssertEqual(Suggestion.closest(to: "bodyfile", among: ResponseDecoder.responseKeys), "bodyFile")
        XCTAssertNil(Suggestion.closest(to: "banana", among: ResponseDecoder.responseKeys))
    }
}

final class FolderWatcherTests: XCTestCase {
    // Review finding (issue 10): starting the watcher twice started two polling threads.
    func testStartingTwiceWatchesOnce() throws {
        let folder = TemporaryFolder()
        folder.write("a.json", "[]")
        let changes = Locked(0)
        let watcher = StubFolderWatcher(loader: StubLoader(directory: folder.path), interval: 0.02) {
            changes.withLock { $0 += 1 }
        }
        watcher.start()
        watcher.start()
        defer { watcher.stop() }
        folder.write("b.json", "[]")
        let deadline = Date().addingTimeInterval(5)
        while changes.value == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(changes.value, 1)
        // A second thread would report the same change within a few polls.
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(changes.value, 1)
    }

    // Issue 10, row 8: links back into the folder load each file once.
    func testLinkLoopsAreWalkedOnce() throws {
        let folder = TemporaryFolder()
        folder.write("sub/a.json", #"{"response": {}}"#)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/x", withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/sub/up", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/linked",
            withDestinationPath: folder.path + "/sub"
        )
        XCTAssertEqual(StubLoader(directory: folder.path).stubFiles(), ["sub/a.json"])
        XCTAssertEqual(folder.load().stubs.count, 1)
    }
}

/// Issue 38, item 2: a folder that cannot be listed is a failed load, never an empty folder.
final class UnlistableFolderTests: XCTestCase {
    /// Runs `body` with the soft limit on open files at the number now open, so every `open` and
    /// `opendir` fails with EMFILE, as in a server whose clients took every descriptor. A few
    /// milliseconds; XCTest runs one test at a time in a process.
    private func withoutSpareDescriptors<T>(_ body: () -> T) -> T {
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Self.resource, &saved), 0)
        var lowered = saved
        lowered.rlim_cur = rlim_t(openDescriptors())
        XCTAssertEqual(setrlimit(Self.resource, &lowered), 0)
        // Descriptors are numbered lowest free first: fill the gaps below the limit too.
        var fillers: [Int32] = []
        while true {
            let fd = open("/dev/null", O_RDONLY)
            guard fd >= 0 else { break }
            fillers.append(fd)
        }
        defer {
            for fd in fillers { close(fd) }
            _ = setrlimit(Self.resource, &saved)
        }
        return body()
    }

    private func openDescriptors() -> Int {
        // The highest open descriptor + 1, so none below the limit is free.
        var highest: Int32 = 2
        for fd in 3..<Int32(4096) where fcntl(fd, F_GETFD) != -1 { highest = fd }
        return Int(highest) + 1
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    func testAFolderThatCannotBeListedIsAnErrorNotAnEmptyFolder() throws {
        let folder = TemporaryFolder()
        folder.write("one.json", #"{"request": {"path": "/one"}, "response": {}}"#)
        let loader = StubLoader(directory: folder.path)
        let result = withoutSpareDescriptors { loader.load() }
        XCTAssertFalse(result.isServable, "\(result.stubs.count) stubs, problems \(result.problems)")
        XCTAssertTrue(
            result.errors.first?.message.contains("cannot be listed: Too many open files") ?? false,
            "\(result.errors)"
        )
        let fingerprint = withoutSpareDescriptors { Result { try loader.fingerprint() } }
        XCTAssertThrowsError(try fingerprint.get())
        XCTAssertEqual(loader.load().stubs.count, 1)
    }

    func testAWireMockFolderThatCannotBeListedIsAnError() throws {
        let folder = TemporaryFolder()
        folder.write("mappings/one.json", #"{"request": {"url": "/one"}, "response": {"status": 200}}"#)
        let loader = StubLoader(directory: folder.path, format: WireMockFolderFormat())
        let result = withoutSpareDescriptors { loader.load() }
        XCTAssertFalse(result.isServable, "\(result.stubs.count) stubs, problems \(result.problems)")
        XCTAssertTrue(result.errors.first?.message.contains("cannot be listed") ?? false, "\(result.errors)")
        XCTAssertEqual(loader.load().stubs.count, 1)
    }

    func testTheWatcherSkipsALookThatCannotListTheFolderAndSaysSoOnce() throws {
        let folder = TemporaryFolder()
        folder.write("a.json", "[]")
        let failing = Locked(true)
        let changes = Locked(0)
        let reports = Locked<[String]>([])
        let loader = StubLoader(directory: folder.path)
        let watcher = StubFolderWatcher(
            loader: loader,
            interval: 0.02,
            fingerprint: {
                if failing.value { throw FolderWalk.ReadFailure(path: "", code: EMFILE) }
                return try loader.fingerprint()
            },
            onUnreadable: { why in reports.withLock { $0.append(why) } }
        ) {
            changes.withLock { $0 += 1 }
        }
        watcher.start()
        defer { watcher.stop() }
        let deadline = Date().addingTimeInterval(5)
        while reports.value.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(reports.value, ["the folder cannot be listed: Too many open files"])
        XCTAssertEqual(changes.value, 0, "an unreadable folder is no change")
        failing.value = false
        // It could not look at start: the first good look reloads.
        while changes.value == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(changes.value, 1)
    }
}
