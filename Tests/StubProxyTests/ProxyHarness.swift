import Foundation
import HTTP1
import HTTPSockets
import NativeStubs
import StubAdmin
import StubAuthoring
import StubEngine
import StubProxy
import TestSupport
import XCTest

/// A stub server in process with `--proxy` set to a test's upstream, on an ephemeral port.
struct ProxyHarness {
    let server: HTTP1Server
    let engine: Engine
    /// The stub folder (holding `stubs.json`).
    let folder: URL

    /// `stubs`: a stub file's JSON (default none). `configure` adjusts the fallback rule.
    init(
        _ test: XCTestCase,
        upstream: String?,
        stubs: String = "[]",
        caFile: String? = nil,
        configure: (inout ProxyRule) -> Void = { _ in },
        server configureServer: (inout ServerConfiguration) -> Void = { _ in }
    ) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(stubs.utf8).write(to: folder.appendingPathComponent("stubs.json"))
        test.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let result = StubLoader(directory: folder.path).load()
        XCTAssertEqual(result.errors, [])
        var options = Engine.Options()
        options.adminRoutes = NativeAdmin.routeSets()
        options.directory = folder.path
        options.addRecorder(Recorder())
        if let upstream {
            var rule = ProxyRule(upstream: try XCTUnwrap(UpstreamURL(upstream)), timeoutMilliseconds: 5_000)
            configure(&rule)
            options.proxy = rule
        }
        let engine = Engine(stubs: result.stubs, options: options)
        var configuration = ServerConfiguration()
        configuration.port = 0
        configureServer(&configuration)
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try ProxyTransports.install(on: engine, server: server, caFile: caFile)
        try server.start()
        engine.fallbackBaseURL.value = server.baseURL
        test.addTeardownBlock { server.stopAndWait() }
        self.server = server
        self.engine = engine
        self.folder = folder
    }

    func connect() throws -> WireConnection { try WireConnection(port: server.port) }

    /// An admin call with a JSON body; the parsed answer.
    func admin(_ method: String, _ path: String, _ body: String = "") throws -> (status: Int, json: [String: Any]) {
        let type = body.isEmpty ? "" : "Content-Type: application/json\r\n"
        let response = try exchange(
            "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\n\(type)Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        )
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status, json)
    }

    /// One request on a new connection, its response read (chunked or by length).
    func exchange(_ request: String, isHead: Bool = false, timeoutMilliseconds: Int = 10_000) throws -> WireResponse {
        let c = try connect()
        c.send(request)
        return try c.readResponse(timeoutMilliseconds: timeoutMilliseconds, isHead: isHead)
    }
}

func upstreamURL(_ upstream: ScriptedUpstream) -> String { "http://127.0.0.1:\(upstream.port)" }

/// The fields of a response that are the message's own (what a proxy must pass unchanged):
/// everything but framing, which each hop sets for itself.
func endToEnd(_ headers: [(String, String)]) -> [String] {
    let framing: Set<String> = ["content-length", "transfer-encoding", "connection", "keep-alive"]
    return headers.filter { !framing.contains($0.0.lowercased()) }.map { "\($0.0): \($0.1)" }
}

/// "hello gzip" compressed (Python's gzip.compress, mtime 0): a real gzip member, CRC and all.
let helloGzip: [UInt8] = [
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57,
    0x48, 0xaf, 0xca, 0x2c, 0x00, 0x00, 0x19, 0x6a, 0xd2, 0xdf, 0x0a, 0x00, 0x00, 0x00,
]
