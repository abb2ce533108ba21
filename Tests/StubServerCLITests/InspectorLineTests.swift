import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import XCTest

/// The inspector's address: on the line after the ready line (which stays exactly as it was,
/// since scripts wait for it), and in the help.
final class InspectorLineTests: XCTestCase {
    func testTheLineAfterTheReadyLineIsTheInspectorsAddress() throws {
        let dir = folder(["a.json": #"{"request": {"path": "/a"}, "response": {}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch"])
        let base = try XCTUnwrap(server.baseURL())
        XCTAssertTrue(try XCTUnwrap(server.readyLine()).hasPrefix("stubserver listening on \(base) (1 stub from "))
        server.waitFor("the inspector line") { server.stdout.split(separator: "\n").count >= 2 }
        XCTAssertEqual(server.stdout.split(separator: "\n")[1], "inspector: \(base)/__admin/ui")
        let page = try fetch(base + "/__admin/ui")
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains("stubserver inspector"))
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    func testWithAJSONLogTheAddressGoesToStandardError() throws {
        let dir = folder(["a.json": #"{"request": {"path": "/a"}, "response": {}}"#])
        let server = try StubServerProcess(["--dir", dir.path, "--port", "0", "--no-watch", "--log", "json"])
        let base = try XCTUnwrap(server.baseURL())
        server.waitFor("the inspector line") { server.stderr.contains("inspector: \(base)/__admin/ui") }
        XCTAssertFalse(server.stdout.contains("inspector:"), "stdout stays the ready line and JSON objects")
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    func testTheHelpNamesTheInspector() throws {
        let help = try runStubServer(["--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("/__admin/ui"), help.stdout)
    }
}
