import Foundation
import HTTP1
import StubEngine
import TestSupport
import WireMock
import XCTest

/// Every mapping of WireMock's own test folders and Docker samples (../shared/corpora/wiremock)
/// loads unchanged, and answers what WireMock documents for it, checked on the wire: status,
/// headers, body bytes. Each folder's table must cover each of its mappings once.
final class WireMockCorpusTests: XCTestCase {
    /// One request and its documented answer. `body` is text, or `file` names a file under the
    /// folder whose bytes are the body.
    struct Row {
        var method = "GET"
        var target: String
        var headers: [(String, String)] = []
        var requestBody = ""
        var status = 200
        var responseHeaders: [(String, String)] = []
        var body: String?
        var file: String?
        /// The mapping (`file#index` under mappings/) that must answer.
        var mapping: String
    }

    func check(_ folderName: String, _ rows: [Row], configure: (inout WireMockOptions) -> Void = { _ in }) throws {
        let folder = try WireMockHarness.corpus(folderName)
        let harness = try WireMockHarness(self, folder: folder, configure: configure)
        let mappingsFolder = WireMockFolderLoader(directory: folder, displayName: folder.path).mappingsFolder
        let prefix = mappingsFolder == folder ? "" : "mappings/"
        let answered = Set(rows.map(\.mapping))
        let loaded = Set(
            harness.load.stubs.map { stub -> String in
                guard case .file(let path, let index) = stub.source else { return "" }
                return String(path.dropFirst(folder.path.count + 1 + prefix.count)) + "#\(index)"
            }
        )
        XCTAssertEqual(loaded, answered, "\(folderName): the table covers every mapping, and only those")
        for row in rows {
            let response = try harness.send(row.method, row.target, headers: row.headers, body: row.requestBody)
            let what = "\(folderName): \(row.method) \(row.target)"
            XCTAssertEqual(response.status, row.status, what)
            for (name, value) in row.responseHeaders {
                XCTAssertEqual(response.header(name), value, "\(what): \(name)")
            }
            if let file = row.file {
                XCTAssertEqual(
                    response.body,
                    Array(try Data(contentsOf: folder.appendingPathComponent(file))),
                    "\(what): the bytes of \(file)"
                )
            } else {
                XCTAssertEqual(response.text, row.body ?? "", what)
            }
            let entry = try XCTUnwrap(harness.engine.journal.entries.last)
            let answering =
                harness.engine.catalog.stubs.first { $0.id == entry.stubID }?.source.description ?? "nothing"
            XCTAssertTrue(
                answering.hasSuffix("/" + prefix + row.mapping),
                "\(what) answered by \(row.mapping), not \(answering)"
            )
        }
    }

    func testClasspathFileSource() throws {
        let started = Date()
        try check(
            "wiremock-tests/classpath-filesource",
            [
                Row(target: "/test", file: "__files/stuff.txt", mapping: "test.json#0"),
                Row(target: "/second_test", body: "testing", mapping: "subdir/test2.json#0"),
                Row(target: "/slow-response", file: "__files/stuff.txt", mapping: "slow-response.json#0"),
            ]
        )
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.49, "fixedDelayMilliseconds: 500")
    }

    func testMessageMappingsAreReportedNotLoaded() throws {
        let folder = try WireMockHarness.corpus("wiremock-tests/classpath-filesource")
        let load = StubLoader(directory: folder.path, format: WireMockFolderFormat()).load()
        XCTAssertTrue(
            load.warnings.contains { $0.file.hasSuffix("message-mappings") && $0.message.contains("not supported") },
            "\(load.warnings)"
        )
    }

    /// A folder of mapping files with no mappings/ inside: the folder is the mappings folder.
    func testMultiStub() throws {
        try check(
            "wiremock-tests/multi-stub",
            [
                Row(target: "/multi/1", mapping: "multi.json#0"),
                Row(target: "/multi/2", mapping: "multi.json#1"),
                Row(target: "/multi/3", mapping: "multi.json#2"),
                Row(target: "/single/1", mapping: "single.json#0"),
            ]
        )
    }

    func testRemoteLoader() throws {
        try check(
            "wiremock-tests/remoteloader",
            [
                Row(
                    method: "PUT",
                    target: "/remote-load/1",
                    requestBody: "any method",
                    body: "Remote load 1",
                    mapping: "one.json#0"
                ),
                Row(
                    target: "/remote-load/2",
                    headers: [("Accept", "text/html, text/plain")],
                    responseHeaders: [("Content-Type", "text/plain")],
                    body: "Remote load 2",
                    mapping: "two.json#0"
                ),
                Row(
                    target: "/binary-file-from-header",
                    responseHeaders: [("Content-Type", "image/jpg")],
                    file: "__files/body.unknown",
                    mapping: "with-binary-body-file-header.json#0"
                ),
                Row(target: "/image-file", file: "__files/favicon3.png", mapping: "with-png-body-file.json#0"),
                Row(
                    target: "/text-file-from-header",
                    responseHeaders: [("Content-Type", "application/json")],
                    file: "__files/body.unknown",
                    mapping: "with-text-body-file-header.json#0"
                ),
                Row(target: "/text-file", file: "__files/body.txt", mapping: "with-text-body-file.json#0"),
                // The to-do scenario: Started, then the POST moves it on.
                Row(
                    target: "/todo/items",
                    body: "<items><item>Buy milk</item></items>",
                    mapping: "with-several-mappings-in-one-file.json#0"
                ),
                Row(
                    method: "POST",
                    target: "/todo/items",
                    requestBody: "Cancel newspaper subscription",
                    status: 201,
                    mapping: "with-several-mappings-in-one-file.json#1"
                ),
                Row(
                    target: "/todo/items",
                    file: "__files/body.xml",
                    mapping: "with-several-mappings-in-one-file.json#2"
                ),
            ]
        )
    }

    func testTestFileRoot() throws {
        try check(
            "wiremock-tests/test-file-root",
            [
                // Numbers are sent as written (WireMock keeps 2.0 and 1234567890.12 as they are).
                Row(
                    target: "/testjsonmapping",
                    responseHeaders: [("Content-Type", "application/json")],
                    body:
                        #"{"bignumber":1234567890.12,"integer_as_float":2.0,"#
                        + #""array":[1,2,3],"integer":2,"key":"value"}"#,
                    mapping: "testjsonmapping.json#0"
                ),
                Row(
                    target: "/testmapping",
                    responseHeaders: [("Content-Type", "text/plain")],
                    body: "default test mapping",
                    mapping: "testmapping.json#0"
                ),
            ]
        )
    }

    func testDockerHello() throws {
        try check(
            "wiremock-docker/samples/hello/stubs",
            [Row(target: "/hello", file: "__files/hello.json", mapping: "hello.json#0")]
        )
    }

    /// Without templating (WireMock's default: no `response-template` transformer), the Faker
    /// tags are sent as written.
    func testDockerRandomWithoutTemplating() throws {
        try check(
            "wiremock-docker/samples/random/stubs",
            [
                Row(
                    target: "/user",
                    responseHeaders: [("Content-Type", "application/json")],
                    body:
                        #"""
                        {"name":"{{ random 'Name.first_name' }}","surname":"{{ random 'Name.last_name' \#
                        }}","country":"{{ random 'Address.country' }}","city":"{{ random 'Address.city' \#
                        }}","favorite_tool":"WireMock"}
                        """#,
                    mapping: "user.json#0"
                ),
                Row(
                    target: "/user?pretty=true",
                    responseHeaders: [("Content-Type", "application/json")],
                    file: "__files/user.json",
                    mapping: "user.json#1"
                ),
                Row(
                    target: "/users",
                    responseHeaders: [("Content-Type", "text/csv")],
                    file: "__files/users.csv.template",
                    mapping: "users.json#0"
                ),
            ]
        )
    }

    /// With global templating, the built-in helpers run (range, randomInt) and the Faker
    /// extension's `random` (not built in) is sent as written, after a load warning naming it.
    func testDockerRandomWithGlobalTemplating() throws {
        let folder = try WireMockHarness.corpus("wiremock-docker/samples/random/stubs")
        let harness = try WireMockHarness(self, folder: folder) { $0.globalTemplating = true }
        XCTAssertTrue(harness.load.warnings.contains { $0.message.contains("unknown helper \"random\"") })
        let csv = try harness.send("GET", "/users")
        XCTAssertEqual(csv.status, 200)
        let lines = csv.text.split(separator: "{{/each}}", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 1, "the each block ran")
        XCTAssertTrue(
            csv.text.hasPrefix(
                "ID, First Name, Last Name, Country, City, Favorite Tool,\n0, {{ random 'Name.first_name' }}"
            ),
            csv.text
        )
        let rows = csv.text.components(separatedBy: "WireMock,").count - 1
        XCTAssertTrue((1...20).contains(rows), "randomInt lower=1 upper=20 rows, then range 0..n: \(rows)")
        let user = try harness.send("GET", "/user")
        XCTAssertTrue(user.text.contains(#""name":"{{ random 'Name.first_name' }}""#), user.text)
    }
}
