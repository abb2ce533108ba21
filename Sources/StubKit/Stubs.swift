import Foundation
import HTTP1
import StubEngine

/// The stubs a test works with and what the app sent them: the one API over both transports.
/// `LocalStubServer` serves them over real sockets, `StubURLProtocol` to a `URLSession` without
/// sockets; both expose the `Stubs` they answer from.
///
///     let stubs = try Stubs(directory: "stubs")
///     try stubs.add(StubDefinition(request: RequestDefinition(method: "GET", path: "/v1/me"),
///                                  response: try .json(["id": 42])))
///     ... exercise the client ...
///     XCTAssertEqual(try stubs.count(matching: RequestDefinition(path: "/v1/me")), 1)
///
/// Each `Stubs` has its own stubs, journal, sequences and scenarios: parallel tests each make
/// their own and share nothing.
public final class Stubs: Sendable {
    let engine: Engine

    /// Loads the stub files in `directory` (if given) and adds `stubs`. Any error in the folder or
    /// the stubs throws, with every problem's file, position and message.
    /// - `journalCapacity`: requests kept for `requests` and `count` (0 turns the journal off,
    ///   and then asking for them is an error rather than a silent zero).
    public init(directory: String? = nil, _ stubs: [StubDefinition] = [], journalCapacity: Int = 1000) throws(StubError) {
        var options = Engine.Options(journalCapacity: journalCapacity)
        var fileStubs: [Stub] = []
        if let directory {
            let result = StubLoader(directory: directory).load()
            guard result.isServable else { throw StubError(result.problems) }
            fileStubs = result.stubs
            options.directory = directory
        }
        engine = Engine(stubs: fileStubs, options: options)
        if !stubs.isEmpty { try add(stubs) }
    }

    /// Adds stubs; they come before folder stubs of equal priority and specificity. Returns
    /// their ids, for `remove(_:)`.
    @discardableResult
    public func add(_ stubs: [StubDefinition]) throws(StubError) -> [String] {
        let json: [UInt8]
        do {
            json = Array(try JSONEncoder().encode(stubs))
        } catch {
            throw StubError(message: "StubDefinition: cannot be encoded: \(error)")
        }
        do {
            return try engine.addRuntimeStubs(json: json, label: "StubDefinition")
        } catch {
            throw StubError(error)
        }
    }

    @discardableResult
    public func add(_ stub: StubDefinition) throws(StubError) -> String {
        try add([stub])[0]
    }

    /// Removes a stub added in code.
    public func remove(_ id: String) {
        engine.removeRuntimeStub(id: id)
    }

    /// Stubs added in code removed, journal cleared, sequences and scenarios back to the start.
    public func reset() { engine.reset() }

    /// Every request received, oldest first (at most `journalCapacity`).
    public var requests: [RecordedRequest] { engine.journal.entries.map(RecordedRequest.init) }

    /// The requests a pattern matches: the same conditions a stub's `request` takes.
    public func requests(matching pattern: RequestDefinition) throws(StubError) -> [RecordedRequest] {
        guard engine.journal.isEnabled else {
            throw StubError(message: "the journal is off (journalCapacity: 0), so no request was recorded to match")
        }
        let json: [UInt8]
        do {
            json = Array(try JSONEncoder().encode(pattern))
        } catch {
            throw StubError(message: "RequestDefinition: cannot be encoded: \(error)")
        }
        do {
            return try engine.journalEntries(matching: json, label: "RequestDefinition").map(RecordedRequest.init)
        } catch {
            throw StubError(error)
        }
    }

    public func count(matching pattern: RequestDefinition) throws(StubError) -> Int {
        try requests(matching: pattern).count
    }

    /// Requests no stub matched, each with `nearMiss` saying what came closest.
    public var unmatched: [RecordedRequest] { requests.filter { !$0.matched } }

    /// Each scenario the stubs name, with its state ("Started" until a stub moves it).
    public var scenarios: [String: String] {
        Dictionary(uniqueKeysWithValues: engine.scenarios.map { ($0.name, $0.state) })
    }

    /// Moves a scenario straight to a state.
    public func setScenario(_ name: String, to state: String) {
        engine.setScenario(name, to: state)
    }
}
