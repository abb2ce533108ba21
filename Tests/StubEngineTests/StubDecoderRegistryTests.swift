import Foundation
import HTTP1
import JSON
import NativeStubs
@testable import StubEngine
import SystemSupport
import XCTest

/// The engine knows no stub format: stub JSON given at run time goes to the `StubDecoder` the
/// engine was made with, and a folder no dialect recognises to the format it is told.
final class StubDecoderRegistryTests: XCTestCase {
    /// A decoder that answers every stub list with one fixed stub, refuses the rest, and notes
    /// what it was asked.
    private struct ScriptedDecoder: StubDecoder {
        let stubs: [Stub]
        let asked = Locked<[String]>([])

        func decodeStubs(
            _ json: [UInt8],
            label: String,
            bodyFolder: URL,
            source: @escaping (Int) -> StubSource
        ) -> Result<[Stub], StubProblems> {
            asked.withLock { $0.append("stubs from \(label) in \(bodyFolder.path)") }
            return .success(stubs)
        }

        func decodeRequest(_ json: [UInt8], label: String) -> Result<RequestPattern, StubProblems> {
            asked.withLock { $0.append("request from \(label)") }
            return .failure(StubProblems(problems: [StubProblem(.error, file: label, message: "no requests here")]))
        }

        func decodeComputedResponse(
            _ json: [UInt8],
            label: String,
            bodyFolder: URL,
            pathParameters: Set<String>
        ) -> Result<StubResponse, StubProblems> {
            asked.withLock { $0.append("response from \(label) with \(pathParameters.sorted())") }
            return .failure(StubProblems(problems: [StubProblem(.error, file: label, message: "no responses here")]))
        }
    }

    private func scriptedEngine() -> (Engine, ScriptedDecoder) {
        let decoder = ScriptedDecoder(stubs: loadStubs(#"{"request": {"path": "/given"}, "response": {"body": "g"}}"#))
        let options = Engine.Options(
            stubDecoder: decoder,
            folderFormat: NativeStubFolder(),
            directory: "/nonexistent/stubs"
        )
        return (adminEngine(options: options), decoder)
    }

    func testStubsAddedThroughTheAdminAPIAreReadByTheEnginesDecoder() {
        let (e, decoder) = scriptedEngine()
        let added = e.handle(makeRequest("POST", "/__admin/stubs", body: "not stub JSON at all"))
        XCTAssertEqual(added.answered.prepared.status, 201, added.answered.bodyText)
        XCTAssertEqual(e.handle(makeRequest("GET", "/given")).answered.bodyText, "g")
        XCTAssertEqual(decoder.asked.value, ["stubs from request body in /nonexistent/stubs"])
    }

    func testVerificationsAndComputedResponsesAreReadByTheEnginesDecoder() {
        let (e, decoder) = scriptedEngine()
        XCTAssertThrowsError(try e.journalEntries(matching: Array("{}".utf8), label: "pattern")) { error in
            XCTAssertEqual((error as? StubProblems)?.description, "pattern: error: no requests here")
        }
        let rendered = e.renderResponse(
            json: Array("{}".utf8),
            for: makeRequest("GET", "/x"),
            captures: ["id": "7"],
            label: "closure"
        )
        guard case .failure(let problems) = rendered else { return XCTFail("a refused response rendered") }
        XCTAssertEqual(problems.description, "closure: error: no responses here")
        XCTAssertEqual(decoder.asked.value, ["request from pattern", "response from closure with [\"id\"]"])
    }

    func testAFolderNoDialectRecognisesHasTheFormatItIsTold() {
        struct Nothing: StubFolderFormat {
            var name: String { "nothing" }
            var folderDescription: String { "no folder" }
            var recognisedNote: String { "is no folder" }
            func recognises(_ directory: String) -> Bool { false }
            func load(_ directory: URL, displayName: String) -> StubLoadResult {
                StubLoadResult(stubs: [], problems: [], fileCount: 0)
            }
        }
        let formats = StubFolderFormats([Nothing()], otherwise: NativeStubFolder())
        XCTAssertTrue(formats.format(of: "/any/folder").isNative)
        XCTAssertEqual(StubFolderFormats([], otherwise: Nothing()).format(of: "/any/folder").name, "nothing")
    }
}
