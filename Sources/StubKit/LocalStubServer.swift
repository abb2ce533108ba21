import Foundation
import HTTP1
import HTTPServer
import StubEngine

/// A stubserver in your test process: real sockets on 127.0.0.1, an ephemeral port, stubs from
/// a folder or built in code. Each test can have its own; they share nothing.
///
///     let server = try LocalStubServer(stubs: [StubDefinition(request: .init(method: "GET", path: "/v1/me"),
///                                                             response: try .json(["id": 42]))])
///     let url = server.baseURL.appendingPathComponent("v1/me")
///     ...
///     XCTAssertEqual(try server.count(matching: RequestDefinition(path: "/v1/me")), 1)
///     server.stop()
public final class LocalStubServer: Sendable {
    public let engine: Engine
    private let server: HTTP1Server

    /// Loads `directory` (if given; any error throws `StubProblems`), adds `stubs`, and starts
    /// listening on 127.0.0.1 on a free port.
    public init(directory: String? = nil, stubs: [StubDefinition] = [], options: Engine.Options = .init()) throws {
        var options = options
        var fileStubs: [Stub] = []
        if let directory {
            let result = StubLoader(directory: directory).load()
            guard result.isServable else { throw StubProblems(problems: result.problems) }
            fileStubs = result.stubs
            options.directory = directory
        }
        let engine = Engine(stubs: fileStubs, options: options)
        self.engine = engine
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.loopCount = 1
        server = HTTP1Server(configuration: configuration) { engine.handle($0).response }
        if !stubs.isEmpty { try add(stubs) }
        try server.start()
        engine.fallbackBaseURL.value = server.baseURL
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: server.baseURL)! }
    public var port: Int { server.port }

    /// Adds stubs (runtime stubs: they come before folder stubs of equal rank); returns their ids.
    @discardableResult
    public func add(_ stubs: [StubDefinition]) throws -> [String] {
        try engine.addRuntimeStubs(json: Array(JSONEncoder().encode(stubs)), label: "StubDefinition")
    }

    @discardableResult
    public func add(_ stub: StubDefinition) throws -> String {
        try add([stub])[0]
    }

    public func remove(_ id: String) {
        engine.removeRuntimeStub(id: id)
    }

    /// Every request the server received, oldest first (the journal; see `Engine.Options.journalCapacity`).
    public var requests: [JournalEntry] { engine.journal.entries }

    /// The requests a matcher matches: the same conditions a stub's `request` takes.
    public func requests(matching matcher: RequestDefinition) throws -> [JournalEntry] {
        try engine.journalEntries(matching: Array(JSONEncoder().encode(matcher)), label: "RequestDefinition")
    }

    public func count(matching matcher: RequestDefinition) throws -> Int {
        try requests(matching: matcher).count
    }

    /// Requests no stub matched, each with `nearMiss` saying what came closest.
    public var unmatchedRequests: [JournalEntry] { requests.filter { $0.stubID == nil } }

    /// Runtime stubs removed, journal cleared, sequences and scenarios back to the start.
    public func reset() { engine.reset() }

    /// Stops listening and closes every connection; waits until done.
    public func stop() { server.stopAndWait() }

    /// A server the test forgot to stop is stopped, without blocking whichever thread released it.
    deinit { server.stopInBackground() }
}

extension JournalEntry {
    /// The first value of a header (case-insensitive name).
    public func header(_ name: String) -> String? { headers[name] }

    /// The first value of a query parameter.
    public func query(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded as JSON into `type`.
    public func json<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(body))
    }
}
