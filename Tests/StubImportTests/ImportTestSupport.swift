import Foundation
import HTTP1
import HTTPSockets
import JSON
import NativeStubs
@testable import StubImport
import StubEngine
import TestSupport
import XCTest

/// The shared corpora next to the package (`../shared/corpora/NAME`), read in place; nil in a
/// fresh clone, where the tests that need them skip with a message.
func sharedCorpus(_ name: String) -> URL? {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }  // file, StubImportTests, Tests, package
    url.appendPathComponent("shared/corpora/\(name)", isDirectory: true)
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
}

/// The package root, for the bundled stubs and docs.
let packageRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url
}()

extension XCTestCase {
    /// A fresh folder for one test, removed when it ends: tests run in parallel and share none.
    func temporaryFolder(_ files: [String: String] = [:]) -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stubimport-\(UUID().uuidString)",
            isDirectory: true
        )
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (name, text) in files {
            let file = url.appendingPathComponent(name)
            try! FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try! Data(text.utf8).write(to: file)
        }
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Serves a stub folder with the real server on a free port, stopped when the test ends.
    func serve(_ folder: URL, file: StaticString = #filePath, line: UInt = #line) throws -> HTTP1Server {
        let result = StubLoader(directory: folder.path).load()
        XCTAssertEqual(result.errors, [], "the folder must load", file: file, line: line)
        let engine = Engine(stubs: result.stubs)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        engine.fallbackBaseURL.value = server.baseURL
        addTeardownBlock { server.stopAndWait() }
        return server
    }

    /// Reads a document from a string (YAML or JSON) or fails the test.
    func openAPI(
        _ text: String,
        name: String = "spec.yaml",
        path: String? = nil,
        file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> OpenAPIDocument {
        switch OpenAPIDocument.parse(Array(text.utf8), name: name, path: path) {
        case .success(let document): return document
        case .failure(let problem):
            XCTFail("the document does not read: \(problem)", file: file, line: line)
            throw problem
        }
    }
}

/// One request on a fresh connection; the answer.
func exchange(
    _ server: HTTP1Server,
    _ method: String,
    _ target: String,
    headers: [(String, String)] = [],
    body: [UInt8] = []
) throws -> WireResponse {
    let connection = try WireConnection(port: server.port)
    defer { connection.close() }
    var head = "\(method) \(target) HTTP/1.1\r\nHost: stubs.test\r\nConnection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
    connection.send(Array((head + "\r\n").utf8) + body)
    return try connection.readResponse(isHead: method == "HEAD")
}

/// Parses JSON text in a test.
func json(_ text: String) -> JSONNode {
    try! JSONParser.parse(text)
}
