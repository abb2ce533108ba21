import Foundation
import HTTP1
import NativeStubs
import StubAdmin
@testable import StubEngine
import SystemSupport
import TestSupport
import XCTest

/// Parses a raw request with the real parser, so tests see exactly what the server would hand
/// the engine (decoded path, query items, headers).
func makeRequest(
    _ method: String,
    _ target: String,
    headers: [(String, String)] = [],
    body: String = "",
    file: StaticString = #filePath,
    line: UInt = #line
) -> IncomingRequest {
    // Admin requests come from this machine, as the admin API's Host check wants, with the
    // JSON type its state-changing routes need (AdminProtectionTests covers both rules).
    let isAdmin = target.hasPrefix("/__admin")
    var text = "\(method) \(target) HTTP/1.1\r\nHost: \(isAdmin ? "localhost:8080" : "api.example.com:8080")\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    if isAdmin, !body.isEmpty, !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
        text += "Content-Type: application/json\r\n"
    }
    if !body.isEmpty { text += "Content-Length: \(body.utf8.count)\r\n" }
    text += "\r\n" + body
    var parser = RequestParser()
    var bytes = Array(text.utf8)[...]
    while true {
        let (event, consumed) = bytes.withUnsafeBufferPointer { parser.parse($0) }
        bytes = bytes.dropFirst(consumed)
        switch event {
        case .request: return parser.takeRequest()
        case .needMore where consumed > 0, .sendContinue: continue
        default:
            XCTFail("the test request did not parse: \(event)", file: file, line: line)
            return IncomingRequest(method: method, target: target, path: target)
        }
    }
}

/// TestSupport's, named here so this module's tests need no import of their own.
typealias TemporaryFolder = TestSupport.TemporaryFolder

extension TemporaryFolder {
    func load() -> StubLoadResult { StubLoader(directory: path).load() }
}

/// Loads stub JSON (one file) and fails the test on any error.
func loadStubs(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> [Stub] {
    let folder = TemporaryFolder()
    folder.write("stubs.json", json)
    let result = folder.load()
    XCTAssertEqual(result.errors, [], file: file, line: line)
    return result.stubs
}

func engine(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> Engine {
    Engine(stubs: loadStubs(json, file: file, line: line))
}

/// An engine with the native admin API registered, as the command line and StubKit build one:
/// the engine itself has no admin routes of its own.
func adminEngine(_ stubs: [Stub] = [], options: Engine.Options = .init()) -> Engine {
    var options = options
    options.adminRoutes += NativeAdmin.routeSets()
    return Engine(stubs: stubs, options: options)
}

func adminEngine(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> Engine {
    adminEngine(loadStubs(json, file: file, line: line))
}

/// Loads each stub file text alone and expects an error at `path` whose message contains
/// `fragment`, with a position (line and column) for the user to jump to.
func assertLoadErrors(
    _ cases: [(json: String, path: String, fragment: String)],
    file: StaticString = #filePath,
    line: UInt = #line
) {
    for (json, path, fragment) in cases {
        let folder = TemporaryFolder()
        folder.write("__files/body.txt", "x")
        folder.write("s.json", json)
        let errors = folder.load().errors
        XCTAssertTrue(
            errors.contains { $0.jsonPath == path && $0.message.contains(fragment) && $0.position != nil },
            "\(json)\n  wanted \(path): …\(fragment)…\n  got \(errors.map(\.description))",
            file: file,
            line: line
        )
    }
}

extension Engine {
    /// The name of the stub that answers, or nil.
    func answer(_ request: IncomingRequest) -> String? { handle(request).stub?.name }
}

extension OutgoingResponse {
    var bodyText: String { String(decoding: prepared.body, as: UTF8.self) }
}

extension Outcome {
    /// The response of an outcome answered at once (every engine answer but a promised one).
    /// A promised answer (admin routes that read the disk) is waited for, and a streamed body
    /// (admin listings) is collected into the prepared body.
    var answered: OutgoingResponse {
        switch reply {
        case .now(let response):
            return collected(response)
        case .later(let pending):
            let done = DispatchSemaphore(value: 0)
            let box = Locked<OutgoingResponse?>(nil)
            pending.whenComplete { response in
                box.value = response
                done.signal()
            }
            guard done.wait(timeout: .now() + 10) == .success, let response = box.value else {
                preconditionFailure("a promised answer never came")
            }
            return collected(response)
        }
    }

    private func collected(_ response: OutgoingResponse) -> OutgoingResponse {
        guard case .stream(let stream) = response.delivery else { return response }
        let done = DispatchSemaphore(value: 0)
        let body = Locked<[UInt8]>([])
        stream.attach {
            let batch = stream.take(unsent: 0)
            body.withLock { b in batch.pieces.forEach { b += $0 } }
            stream.drained(unsent: 0)
            if batch.finished || batch.aborted { done.signal() }
        }
        guard done.wait(timeout: .now() + 10) == .success else { preconditionFailure("a streamed body never ended") }
        return OutgoingResponse(status: response.prepared.status, headers: response.prepared.headers, body: body.value)
    }
}
