import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTP1
import HTTPSockets
import NativeStubs
import StubAdmin
import StubEngine
import StubProxy
import TestSupport
import WireMock
import XCTest

/// A stub server in process serving a WireMock folder (or mappings written for the test), on
/// port 0, talked to over real sockets.
struct WireMockHarness {
    let server: HTTP1Server
    let engine: Engine
    /// The dialect plugged into the engine (its admin API, its shutdown hook).
    let dialect: WireMockDialect
    let folder: URL
    let load: StubLoadResult

    /// The shared corpora (`../shared/corpora/wiremock`), or a skip with a message.
    static func corpus(_ relative: String) throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = root.appendingPathComponent("../shared/corpora/wiremock/\(relative)").standardizedFileURL
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw XCTSkip("the WireMock corpus is not here (\(folder.path)); see ../shared/corpora/README.md")
        }
        return folder
    }

    /// Serves `folder` as a WireMock folder.
    init(_ test: XCTestCase, folder: URL, configure: (inout WireMockOptions) -> Void = { _ in }) throws {
        var settings = WireMockOptions()
        settings.adminDialect = .wiremock
        configure(&settings)
        let dialect = WireMockDialect(settings)
        var options = Engine.Options(directory: folder.path)
        options.folderFormat = dialect.folderFormat
        options.adminRoutes = [dialect.adminRoutes] + NativeAdmin.routeSets()
        let load = StubLoader(directory: folder.path, format: dialect.folderFormat).load()
        XCTAssertEqual(load.errors, [], "\(folder.path) loads")
        let engine = Engine(stubs: load.stubs, options: options)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try ProxyTransports.install(on: engine, server: server, caFile: nil)
        try server.start()
        engine.fallbackBaseURL.value = server.baseURL
        test.addTeardownBlock { server.stopAndWait() }
        (self.server, self.engine, self.dialect, self.folder, self.load) = (server, engine, dialect, folder, load)
    }

    /// Serves mapping files written for the test (`name` to JSON), with `__files` if given.
    init(
        _ test: XCTestCase,
        mappings: [String: String],
        files: [String: [UInt8]] = [:],
        configure: (inout WireMockOptions) -> Void = { _ in }
    ) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-\(UUID().uuidString)")
        try Self.write(mappings, files, into: folder)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try self.init(test, folder: folder, configure: configure)
    }

    static func write(_ mappings: [String: String], _ files: [String: [UInt8]], into folder: URL) throws {
        for (name, json) in mappings {
            let url = folder.appendingPathComponent("mappings/\(name)")
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(json.utf8).write(to: url)
        }
        for (name, bytes) in files {
            let url = folder.appendingPathComponent("__files/\(name)")
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(bytes).write(to: url)
        }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("mappings"),
            withIntermediateDirectories: true
        )
    }

    var baseURL: String { server.baseURL }

    /// One request on a fresh connection; the whole response.
    func send(
        _ method: String = "GET",
        _ target: String,
        headers: [(String, String)] = [],
        body: String = ""
    ) throws -> WireResponse {
        let connection = try WireConnection(port: server.port)
        defer { connection.close() }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.utf8.count)\r\n" }
        connection.send(head + "\r\n" + body)
        return try connection.readResponse(isHead: method == "HEAD")
    }

    /// The admin API (or anything) as JSON over URLSession, as a WireMock client calls it.
    func json(
        _ method: String,
        _ path: String,
        _ body: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> (status: Int, json: Any?) {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (
            status, data.isEmpty ? nil : try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        )
    }
}
