import Foundation
import JSON
import JSONPath
import StubEngine
import TestSupport
import XCTest

/// `JaywayTable`'s rows, in process (the value each path gives) and through the `stubserver`
/// binary (`--wiremock` over a folder this writes): per row, a `matchesJsonPath` mapping that
/// must match exactly when Jayway's result is something non-empty, and one with
/// `{"expression": ..., "equalToJson": <Jayway's result>}` that must match where Jayway gives
/// a result; the first answers with `{{{jsonPath request.body ...}}}`, checked where the
/// result is a scalar.
final class JaywayJSONPathTableTests: XCTestCase {
    func testTheTableHasAtLeastFortyRows() {
        XCTAssertGreaterThanOrEqual(JaywayTable.rows.count, 40)
    }

    func testEachRowInProcess() throws {
        for row in JaywayTable.rows {
            let path: JSONPath
            do {
                path = try JSONPath(row.path)
            } catch {
                XCTFail("\(row.path) (\(row.note)): \(error)")
                continue
            }
            let document = try JSONParser.parse(Array(row.document.utf8))
            let result = path.evaluate(document)
            switch (row.expected, result) {
            case (.json(let expected), .value(let node)):
                XCTAssertEqual(JSONSerializer.string(node), expected, "\(row.path) (\(row.note))")
            case (.json(let expected), .list(let nodes)):
                XCTAssertEqual(JSONSerializer.string(.array(nodes)), expected, "\(row.path) (\(row.note))")
            case (.noMatch, .missing):
                break
            case (.noMatch, .list(let nodes)) where nodes.isEmpty:
                break
            default:
                XCTFail("\(row.path) (\(row.note)): expected \(row.expected), got \(result)")
            }
            XCTAssertEqual(
                result.isPresentAndNotEmpty,
                Self.presentAndNotEmpty(row.expected),
                "\(row.path) (\(row.note))"
            )
        }
    }

    func testEachRowThroughTheBinary() throws {
        var files: [String: String] = [:]
        for (i, row) in JaywayTable.rows.enumerated() {
            var present: [String: Any] = [
                "request": [
                    "method": "POST", "url": "/row/\(i)/present", "bodyPatterns": [["matchesJsonPath": row.path]],
                ],
                "response": ["status": 200, "body": "present"],
            ]
            if let template = Self.template(row.path) {
                present["response"] = ["status": 200, "body": template, "transformers": ["response-template"]]
            }
            files["mappings/row-\(i)-present.json"] = try Self.json(present)
            if case .json(let expected) = row.expected {
                let value: [String: Any] = [
                    "request": [
                        "method": "POST", "url": "/row/\(i)/value",
                        "bodyPatterns": [["matchesJsonPath": ["expression": row.path, "equalToJson": expected]]],
                    ],
                    "response": ["status": 200, "body": "value"],
                ]
                files["mappings/row-\(i)-value.json"] = try Self.json(value)
            }
        }
        let root = folder(files)
        let server = try StubServerProcess(["--wiremock", root.path, "--port", "0"])
        let base = try XCTUnwrap(server.baseURL(), server.stderr)
        let headers = ["Content-Type": "application/json"]
        for (i, row) in JaywayTable.rows.enumerated() {
            let label = "row \(i): \(row.path) (\(row.note))"
            let present = try fetch(base + "/row/\(i)/present", method: "POST", headers: headers, body: row.document)
            XCTAssertEqual(present.status, Self.presentAndNotEmpty(row.expected) ? 200 : 404, label)
            if present.status == 200, Self.template(row.path) != nil, case .json(let expected) = row.expected,
                let text = Self.scalarText(expected)
            {
                XCTAssertEqual(present.body, text, "\(label): the jsonPath helper")
            }
            if case .json = row.expected {
                let value = try fetch(base + "/row/\(i)/value", method: "POST", headers: headers, body: row.document)
                XCTAssertEqual(value.status, 200, "\(label): equalToJson with Jayway's result")
            }
        }
        server.signal(SIGTERM)
        XCTAssertEqual(server.exitStatus(), 0)
    }

    /// What a bare `matchesJsonPath` accepts: something that is not null, [] or {}.
    static func presentAndNotEmpty(_ expected: JaywayRow.Expected) -> Bool {
        guard case .json(let text) = expected else { return false }
        return !["null", "[]", "{}"].contains(text)
    }

    /// `{{{jsonPath request.body '...'}}}` with a quote the path does not use (none: no template).
    static func template(_ path: String) -> String? {
        if !path.contains("'") { return "{{{jsonPath request.body '\(path)'}}}" }
        if !path.contains("\"") { return "{{{jsonPath request.body \"\(path)\"}}}" }
        return nil
    }

    /// A scalar result as the helper writes it (a string without quotes), or nil for a list or
    /// an object.
    static func scalarText(_ json: String) -> String? {
        guard let first = json.first, first != "[", first != "{", json != "null" else { return nil }
        if first == "\"" { return String(json.dropFirst().dropLast()) }
        return json
    }

    static func json(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
