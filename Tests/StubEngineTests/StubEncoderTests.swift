import Foundation
import NativeStubs
@testable import StubEngine
import XCTest

/// The encoder writes back every stub so that the loader gives the same stub again, and writing
/// that one gives the same bytes (issue 11: recording and the importers write through it).
final class StubEncoderTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Stubs that use every part of the format, beside the bundled examples.
    static let variety = #"""
        [
          {"_comment": "kept", "response": {"body": "plain"}, "request": {"path": "/a", "method": ["GET", "HEAD"]}, \#
        "name": "order shuffled"},
          {"priority": 2, "request": {"pathPattern": "/v[0-9]+/.*", "host": {"contains": "api", "caseInsensitive": \#
        true},
            "query": {"q": {"matches": "sw.*"}, "page": "1"}, "headers": {"X-A": {"present": true}, "X-B": {"absent": \#
        true}},
            "body": {"caseInsensitive": true, "contains": "Hello"}},
           "response": {"status": 201, "headers": {"Set-Cookie": ["a=1", "b=2"], "X-N": "3"}, "body": {"z": 1, "a": \#
        [1.50, true, null, "é"]}}},
          {"request": {"method": "POST", "path": "/form", "body": {"form": {"name": {"equals": "ann", \#
        "caseInsensitive": true}}}},
           "response": {"bodyBase64": "AAEC/w==", "delay": {"max": 20, "min": 10}}},
          {"request": {"path": "/users/{id}/*/**", "body": {"jsonEquals": {"b": [1, 2], "a": {}}}},
           "response": {"template": true, "headers": {"Location": "/users/{{request.path.id}}"}, "body": {"id": \#
        "{{request.path.id}}", "at": "{{now +1d}}"}}},
          {"request": {"path": "/seq", "body": {"json": {"user": {"name": "x"}}}},
           "responses": [{"status": 500}, {"body": "ok", "dribble": {"durationMs": 100, "chunks": 2}}], "after": \#
        "cycle",
           "scenario": {"then": "paid", "name": "checkout"}},
          {"request": {"path": "/fault"}, "response": {"fault": "reset"}},
          {"request": {"path": "/matchers", "body": {"json": {"title": {"caseInsensitive": true, "matches": ".+"}, \#
        "n": [{"atMost": 9, "greaterThan": 0}], "e": {"equals": {"present": true}}, "x": {"absent": true}}}}, \#
        "response": {}},
          {"request": {"path": "/pointers", "body": {"jsonPointer": {"/b/0": {"contains": "x"}, "/a~1b": 1, "": \#
        {"present": true}}}}, "response": {}},
          {"request": {"path": "/file"}, "response": {"bodyFile": "__files/body.json", "headers": {"Content-Type": \#
        "application/vnd.x+json"}}}
        ]
        """#

    func testEveryBundledAndTestStubRoundTrips() throws {
        let bundled = Self.root.appendingPathComponent("stubs")
        let extra = TemporaryFolder()
        extra.write("variety.json", Self.variety)
        extra.write("__files/body.json", #"{"file": true}"#)
        var checked = 0
        for folder in [bundled, extra.url] {
            let loader = StubLoader(directory: folder.path)
            let original = loader.load()
            XCTAssertEqual(original.errors, [], folder.path)
            for relative in loader.stubFiles() {
                let stubs = original.stubs.filter {
                    if case .file(let path, _) = $0.source { path.hasSuffix("/" + relative) } else { false }
                }
                XCTAssertFalse(stubs.isEmpty, relative)
                for stub in stubs {
                    let written = StubEncoder.encode(stub)
                    let copy = try copyBodyFiles(from: folder)
                    copy.write(relative, String(decoding: written, as: UTF8.self))
                    let reloaded = copy.load()
                    XCTAssertEqual(reloaded.errors, [], "\(relative):\n\(String(decoding: written, as: UTF8.self))")
                    guard let again = reloaded.stubs.first, reloaded.stubs.count == 1 else {
                        XCTFail(relative)
                        continue
                    }
                    XCTAssertEqual(signature(again), signature(stub), "\(relative) \(stub.name)")
                    XCTAssertEqual(
                        StubEncoder.encode(again),
                        written,
                        "\(relative): writing it again gives the same bytes"
                    )
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 25)
    }

    func testOutputIsPrettyWithTheContractsKeyOrder() throws {
        let stub = try XCTUnwrap(
            loadStubs(
                #"""
                {"response": {"body": {"b": 1, "a": [1, 2]}, "status": 200}, "request": {"path": "/x", "method": \#
                "GET"}, "name": "n"}
                """#
            ).first
        )
        XCTAssertEqual(
            String(decoding: StubEncoder.encode(stub), as: UTF8.self),
            """
            {
              "name": "n",
              "request": {
                "method": "GET",
                "path": "/x"
              },
              "response": {
                "status": 200,
                "body": {
                  "b": 1,
                  "a": [1, 2]
                }
              }
            }

            """
        )
        let two = StubEncoder.encode(loadStubs(#"[{"response": {}}, {"response": {"status": 204}}]"#))
        XCTAssertEqual(
            String(decoding: two, as: UTF8.self),
            "[\n  {\n    \"response\": {}\n  },\n  {\n    \"response\": {\n      \"status\": 204\n    }\n  }\n]\n"
        )
    }

    private func copyBodyFiles(from folder: URL) throws -> TemporaryFolder {
        let copy = TemporaryFolder()
        let files = folder.appendingPathComponent("__files")
        if FileManager.default.fileExists(atPath: files.path) {
            try FileManager.default.copyItem(at: files, to: copy.url.appendingPathComponent("__files"))
        }
        return copy
    }

    /// Everything a compiled stub does, as text: equal signatures serve equal answers.
    private func signature(_ stub: Stub) -> String {
        let r = stub.request
        var parts = [
            stub.definition?["name"] == nil ? "(default name)" : stub.name, "\(stub.priority)", "\(r.methods ?? [])",
            r.path?.source ?? "-",
            r.host?.description ?? "-", "\(r.query.map { "\($0.name)=\($0.matcher.description)" })",
            "\(r.headers.map { "\($0.name)=\($0.matcher.description)" })", r.body?.description ?? "-",
            "\(stub.afterLast)", "\(String(describing: stub.scenario))",
        ]
        for response in stub.responses {
            parts.append(String(decoding: response.prepared.head + response.prepared.body, as: UTF8.self))
            parts.append(
                """
                \(String(describing: response.delay)) \(String(describing: response.fault)) \
                \(String(describing: response.dribble)) \(response.isTemplated)
                """
            )
        }
        return parts.joined(separator: " | ")
    }
}
