import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubEngine
import StubKit
import XCTest

/// The code in docs/testing.md, compiled and run. Each block between `// snippet:` and
/// `// end snippet` must appear in the document verbatim (indentation aside); the last test
/// checks that, so the document cannot drift from code that works.
final class DocSnippetTests: XCTestCase {
    static let stubsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("stubs").path

    func testInProcessServer() async throws {
        let stubsFolder = Self.stubsFolder
        // snippet: in-process
        let server = try LocalStubServer(directory: stubsFolder)   // or LocalStubServer(stubs: [...])
        defer { server.stop() }

        // Add what this test needs, in code: the same shape as a stub file.
        try server.stubs.add(StubDefinition(
            request: RequestDefinition(method: "GET", path: "/v1/flags"),
            response: try .json(["newCheckout": true])))

        // Point the code under test at server.baseURL (http://127.0.0.1:PORT).
        let url = server.baseURL.appendingPathComponent("v1/flags")
        let (data, _) = try await URLSession(configuration: .ephemeral).data(from: url)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"newCheckout":true}"#)

        // Verify what was sent, with the same conditions a stub's "request" takes.
        XCTAssertEqual(try server.stubs.count(matching: RequestDefinition(method: "GET", path: "/v1/flags")), 1)
        XCTAssertTrue(server.stubs.unmatched.isEmpty)
        // end snippet
    }

    func testURLProtocolTransport() async throws {
        // snippet: url-protocol
        let stubs = try Stubs()
        let transport = StubURLProtocol.register(stubs)
        defer { StubURLProtocol.unregister(transport) }
        try stubs.add(StubDefinition(
            request: RequestDefinition(method: "POST", path: "/v1/register", body: try .json(["username": "taken"])),
            response: try .json(["error_code": "E001"], status: 409)))

        // No sockets: the session's requests to transport.baseURL are answered by the stubs.
        let session = URLSession(configuration: transport.configuration)
        var request = URLRequest(url: transport.baseURL.appendingPathComponent("v1/register"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"username": "taken"}"#.utf8)
        let (_, response) = try await session.data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 409)
        XCTAssertEqual(stubs.requests.count, 1)
        // end snippet
    }

    func testSnippetsAreInTheDocument() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let document = try String(contentsOf: root.appendingPathComponent("docs/testing.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let normalise = { (text: Substring) in text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n") }
        let documentText = normalise(Substring(document))
        var found = 0
        var rest = Substring(source)
        // Built by concatenation so this test's own text is not taken for a marker.
        let open = "// snip" + "pet: ", close = "// end snip" + "pet"
        while let start = rest.range(of: open), let end = rest.range(of: close, range: start.upperBound..<rest.endIndex) {
            let body = rest[start.upperBound..<end.lowerBound].drop { $0 != "\n" }.dropFirst()
            XCTAssertTrue(documentText.contains(normalise(body)), "docs/testing.md is missing:\n\(body)")
            found += 1
            rest = rest[end.upperBound...]
        }
        XCTAssertEqual(found, 2)
    }
}
