import Foundation
import HTTP1
import JSON
import StubEngine
@testable import StubImport
import XCTest

/// `import openapi` writes an `events` stub for a `text/event-stream` response: the example's
/// events when it is written as a stream, else the sample as one event's data.
final class OpenAPIEventStreamTests: XCTestCase {
    static let document = #"""
        {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
          "/track": {"get": {"operationId": "track", "responses": {"200": {"description": "events",
            "content": {"text/event-stream": {"schema": {"type": "string"},
              "example": "event: s\nid: 1\ndata: {\"a\":1}\n\n: keep-alive\n\nid: 2\ndata: two\ndata: lines\n\n"}}}}}},
          "/plain": {"get": {"operationId": "plain", "responses": {"200": {"description": "events",
            "content": {"text/event-stream": {"schema": {"type": "object",
              "properties": {"n": {"type": "integer"}}}}}}}}}
        }}
        """#

    private func response(_ outcome: OpenAPIImporter.Outcome, _ file: String) throws -> JSONNode? {
        let planned = try XCTUnwrap(outcome.plan.files.first { $0.relativePath == file })
        let node = try JSONParser.parse(planned.bytes)
        return (node.elements?.first ?? node)["response"]
    }

    func testEventStreamResponsesBecomeEvents() throws {
        let document: OpenAPIDocument
        switch OpenAPIDocument.parse(Array(Self.document.utf8), name: "spec.json", path: nil) {
        case .success(let parsed): document = parsed
        case .failure(let problem): return XCTFail("\(problem)")
        }
        let outcome = OpenAPIImporter.plan(document)
        let track = try XCTUnwrap(try response(outcome, "get-track.json"))
        XCTAssertNil(track["body"])
        XCTAssertEqual(
            JSONSerializer.string(track["events"]!),
            #"[{"event":"s","id":"1","data":"{\"a\":1}"},{"comment":"keep-alive"},{"id":"2","data":"two\nlines"}]"#
        )
        let plain = try XCTUnwrap(try response(outcome, "get-plain.json"))
        XCTAssertEqual(JSONSerializer.string(plain["events"]!), #"[{"data":{"n":0}}]"#)
    }
}
