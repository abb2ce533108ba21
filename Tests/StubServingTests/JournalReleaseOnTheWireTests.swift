import Foundation
import HTTP1
import HTTPServer
@testable import StubEngine
import TestSupport
import XCTest

/// The server's loops call the engine back after each pass (`ServerConfiguration.afterPass`,
/// wired as the command line and `LocalStubServer` wire it): the journal's evicted entries,
/// kept so their release does not delay an answer, are released there.
final class JournalReleaseOnTheWireTests: XCTestCase {
    func testTheLoopReleasesWhatTheJournalEvictedOnceTheAnswersAreOut() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-release-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"request": {"path": "/a"}, "response": {"body": "a"}}"#.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        let engine = Engine(stubs: StubLoader(directory: folder.path).load().stubs, options: .init(journalCapacity: 2))
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.afterPass = engine.afterAnswersWork()
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        defer { server.stopAndWait() }

        let c = try WireConnection(port: server.port)
        for _ in 0..<6 {
            c.send("GET /a HTTP/1.1\r\nHost: stubs.test\r\n\r\n")
            XCTAssertEqual(try c.readResponse().text, "a")
        }
        // Four entries left the ring; without the loop's call-back they would wait for ever.
        let deadline = WireConnection.now() + 5_000
        while engine.journal.evictedAwaitingRelease > 0 && WireConnection.now() < deadline {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        XCTAssertEqual(engine.journal.evictedAwaitingRelease, 0)
        XCTAssertEqual(engine.journal.entries.map(\.id), [5, 6], "the ring itself is as it was")
    }
}
