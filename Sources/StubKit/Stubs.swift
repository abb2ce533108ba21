import Foundation
import HTTP1
import JSON
import NativeStubs
import StubAdmin
import StubAuthoring
import StubEngine

/// The stubs a test works with and what the client sent them: the one API over both
/// transports. `LocalStubServer` serves them over real sockets, `StubURLProtocol` to a
/// `URLSession` without sockets; both expose the `Stubs` they answer from.
///
///     let stubs = try Stubs(directory: "stubs") {
///         StubDefinition(request: .get("/v1/me"), response: .json(["id": 42]))
///     }
///     ... exercise the client ...
///     stubs.verify(.get("/v1/me"), count: 1)
///
/// Each `Stubs` has its own stubs, journal, sequences and scenarios: parallel tests each make
/// their own and share nothing.
public final class Stubs: Sendable {
    let engine: Engine

    /// Loads the stub files in `directory` (if given) and adds `stubs`. Any error in the folder or
    /// the stubs throws, with every problem's file, position and JSON path.
    /// - `journalCapacity`: requests kept for `requests`, `count` and `verify`. 0 turns the journal
    ///   off, and then asking for them is an error rather than a silent "none".
    public convenience init(
        directory: String? = nil,
        journalCapacity: Int = 1000,
        @StubListBuilder _ stubs: () -> [StubDefinition] = { [] }
    ) throws(StubError) {
        try self.init(directory: directory, journalCapacity: journalCapacity, contract: nil, stubs)
    }

    /// `contract`: the OpenAPI check and whether it refuses (`init(openAPI:)`).
    init(
        directory: String?,
        journalCapacity: Int,
        contract: (check: any RequestContract, enforcing: Bool)?,
        _ stubs: () -> [StubDefinition]
    ) throws(StubError) {
        var options = Engine.Options(journalCapacity: journalCapacity)
        options.contract = contract?.check
        options.enforcesContract = contract?.enforcing ?? false
        // The URLProtocol transport answers the app's own host names (see AdminProtection).
        options.admin.checksHost = false
        // The native admin API, without the inspector's page (its assets need a build plugin), and
        // `POST /__admin/recordings/start`: a test's server records too (docs/proxy.md).
        options.adminRoutes = NativeAdmin.routeSets()
        options.addRecorder(Recorder())
        var fileStubs: [Stub] = []
        if let directory {
            let result = StubLoader(directory: directory).load()
            guard result.isServable else { throw StubError(result.problems) }
            fileStubs = result.stubs
            options.directory = directory
        }
        engine = Engine(stubs: fileStubs, options: options)
        let definitions = stubs()
        if !definitions.isEmpty { try add(definitions) }
    }

    /// The same, with the stubs as a list.
    public convenience init(
        directory: String? = nil,
        _ stubs: [StubDefinition],
        journalCapacity: Int = 1000
    ) throws(StubError) {
        try self.init(directory: directory, journalCapacity: journalCapacity) { stubs }
    }

    /// Adds stubs; they come before folder stubs of equal priority and specificity. Returns
    /// their ids, for `remove(_:)`.
    @discardableResult
    public func add(_ stubs: [StubDefinition]) throws(StubError) -> [String] {
        let json = JSONSerializer.bytes(JSONValue.array(stubs.map(DefinitionJSON.stub)).node)
        let decoded: [Stub]
        switch engine.decodeRuntimeStubs(json, label: "StubDefinition") {
        case .success(let stubs): decoded = stubs
        case .failure(let problems): throw StubError(problems, positions: false)
        }
        // A stub whose answer Swift computes: decoded with a placeholder response, answered by its closure.
        let compiled = zip(decoded, stubs).map { stub, definition in
            definition.responder.map {
                stub.replacingResponses(with: [.computed($0.computed(by: engine, label: "\"\(stub.name)\""))])
            } ?? stub
        }
        engine.addRuntimeStubs(compiled)
        return compiled.map(\.id)
    }

    @discardableResult
    public func add(_ stub: StubDefinition) throws(StubError) -> String {
        try add([stub])[0]
    }

    @discardableResult
    public func add(@StubListBuilder _ stubs: () -> [StubDefinition]) throws(StubError) -> [String] {
        try add(stubs())
    }

    /// Removes a stub added in code.
    public func remove(_ id: String) {
        engine.removeRuntimeStub(id: id)
    }

    /// Stubs added in code removed, journal cleared, sequences and scenarios back to the start.
    public func reset() { engine.reset() }

    /// Every request received, oldest first (at most `journalCapacity`). Throws when the journal
    /// is off: no requests recorded is not the same as none received.
    public var requests: [RecordedRequest] {
        get throws(StubError) {
            guard engine.journal.isEnabled else { throw StubError(message: Self.journalOff) }
            return engine.journal.clientEntries.map(RecordedRequest.init)
        }
    }

    /// The requests a pattern matches: the same conditions a stub's `request` takes.
    public func requests(matching pattern: RequestDefinition) throws(StubError) -> [RecordedRequest] {
        guard engine.journal.isEnabled else { throw StubError(message: Self.journalOff) }
        do {
            return try engine.journalEntries(matching: Self.json(pattern), label: "RequestDefinition").map(
                RecordedRequest.init
            )
        } catch {
            throw StubError(error, positions: false)
        }
    }

    public func count(matching pattern: RequestDefinition) throws(StubError) -> Int {
        try requests(matching: pattern).count
    }

    /// Requests no stub matched, each with `nearMiss` saying what came closest.
    public var unmatched: [RecordedRequest] {
        get throws(StubError) { try requests.filter { !$0.matched } }
    }

    /// Each scenario the stubs name, with its state ("Started" until a stub moves it).
    public var scenarios: [String: String] {
        Dictionary(uniqueKeysWithValues: engine.scenarios.map { ($0.name, $0.state) })
    }

    /// Moves a scenario straight to a state.
    public func setScenario(_ name: String, to state: String) {
        engine.setScenario(name, to: state)
    }

    static let journalOff =
        """
        the journal is off (journalCapacity: 0), so no request was recorded: none can be listed, found, counted \
        or verified
        """

    static func json(_ pattern: RequestDefinition) -> [UInt8] {
        JSONSerializer.bytes(DefinitionJSON.request(pattern).node)
    }
}
