import Foundation
import TestSupport
import XCTest

/// Issue 38, item 2: running out of descriptors unloaded every stub (the watcher's `opendir`
/// failed, the walk found no files, the reload "succeeded" with none), and the server could not
/// be reached until connections timed out.
final class DescriptorExhaustionTests: XCTestCase {
    func testTheServerStaysReachableAndKeepsItsStubsWhenDescriptorsRunOut() throws {
        let dir = folder(["one.json": #"{"request": {"path": "/one"}, "response": {"body": "one"}}"#])
        // A long idle timeout: without eviction, nothing new would be accepted for two minutes.
        let limit = 64
        let server = try StubServerProcess(
            ["--dir", dir.path, "--port", "0", "--idle-timeout", "120"],
            openFileLimit: limit
        )
        let base = try XCTUnwrap(server.baseURL())
        let port = try XCTUnwrap(Int(base.split(separator: ":").last ?? ""))

        // Twice as many idle clients as the server has descriptors: the first ones fill its
        // table, the rest wait in the listen queue.
        var idle: [WireConnection] = []
        for _ in 0..<(2 * limit) { idle.append(try WireConnection(port: port)) }
        defer { for connection in idle { connection.close() } }
        #if os(Linux)
        let descriptors = "/proc/\(server.process.processIdentifier)/fd"
        server.waitFor("the server to run out of descriptors") {
            ((try? FileManager.default.contentsOfDirectory(atPath: descriptors))?.count ?? 0) >= limit
        }
        #endif

        // A new client is answered: an idle connection gives up its descriptor.
        let first = try WireConnection(port: port)
        first.send("GET /one HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        let answer = try first.readResponse(timeoutMilliseconds: 20_000)
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.text, "one")

        // Whether the watcher looks while the table is full depends on timing (each accept
        // frees a descriptor by eviction); LoaderTests checks its refusal in process
        // (testTheWatcherSkipsALookThatCannotListTheFolderAndSaysSoOnce). Here: if it could not
        // look it said why, and it never reloaded the folder as empty.
        if server.stderr.contains("cannot look for changes in") {
            XCTAssertTrue(server.stderr.contains("Too many open files"), server.stderr)
        }
        XCTAssertFalse(server.stdout.contains("reloaded 0 stubs"), server.stdout)

        // A reload fails and keeps the stubs when it cannot list the folder (it served none
        // before); whether a descriptor is free at that moment depends on closes still under way.
        let reload = try WireConnection(port: port)
        reload.send("POST /__admin/reload HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\n\r\n")
        let reloaded = try reload.readResponse(timeoutMilliseconds: 20_000)
        if reloaded.status == 400 {
            XCTAssertTrue(reloaded.text.contains("cannot be listed: Too many open files"), reloaded.text)
            XCTAssertTrue(reloaded.text.contains("still serving the last good stubs"), reloaded.text)
        } else {
            XCTAssertEqual(reloaded.status, 200)
            XCTAssertTrue(reloaded.text.contains(#""stubs":1"#), reloaded.text)
        }

        let second = try WireConnection(port: port)
        second.send("GET /one HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        let again = try second.readResponse(timeoutMilliseconds: 20_000)
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(again.text, "one")

        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }
}
