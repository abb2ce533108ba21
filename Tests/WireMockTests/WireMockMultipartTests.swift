import Foundation
import TestSupport
import XCTest

/// WireMock's `multipartPatterns` over real sockets: `ANY` and `ALL`, a part's headers
/// (`Content-Disposition` name, `Content-Type`) and `bodyPatterns`, on `form-data`, `mixed` and
/// `related` bodies. Each mapping answers its own name, so each row says who answered (or 404).
final class WireMockMultipartTests: XCTestCase {
    static let mappings: [String: String] = [
        "any.json": #"""
        {"request": {"method": "POST", "urlPath": "/any", "multipartPatterns": [{"matchingType": "ANY",
          "headers": {"Content-Disposition": {"contains": "name=\"info\""},
                      "Content-Type": {"contains": "json"}},
          "bodyPatterns": [{"equalToJson": {"kind": "photo"}}]}]},
         "response": {"body": "any"}}
        """#,
        "all.json": #"""
        {"request": {"method": "POST", "urlPath": "/all", "multipartPatterns": [{"matchingType": "ALL",
          "headers": {"Content-Disposition": {"contains": "form-data"}},
          "bodyPatterns": [{"matches": "[a-z]+"}]}]},
         "response": {"body": "all"}}
        """#,
        "default.json": #"""
        {"request": {"method": "POST", "urlPath": "/default", "multipartPatterns": [
          {"headers": {"Content-Disposition": {"contains": "filename=\"a.bin\""}},
           "bodyPatterns": [{"binaryEqualTo": "AAEC/w=="}]},
          {"headers": {"Content-Disposition": {"contains": "name=\"note\""}},
           "bodyPatterns": [{"contains": "hello"}]}]},
         "response": {"body": "default"}}
        """#,
        "mixed.json": #"""
        {"request": {"method": "POST", "urlPath": "/mixed", "multipartPatterns": [{"matchingType": "ANY",
          "headers": {"Content-ID": {"equalTo": "<meta>"}},
          "bodyPatterns": [{"matchesJsonPath": "$.items[?(@.id == 7)]"}]}]},
         "response": {"body": "mixed"}}
        """#,
    ]

    static let boundary = "----b0undary"

    /// A multipart body: each part its header lines and its bytes.
    static func body(_ parts: [(headers: [String], body: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            out += Array("--\(boundary)\r\n".utf8)
            for header in part.headers { out += Array("\(header)\r\n".utf8) }
            out += Array("\r\n".utf8) + part.body + Array("\r\n".utf8)
        }
        return out + Array("--\(boundary)--\r\n".utf8)
    }

    static func field(_ name: String, _ value: String, type: String? = nil) -> (headers: [String], body: [UInt8]) {
        (
            ["Content-Disposition: form-data; name=\"\(name)\""] + (type.map { ["Content-Type: \($0)"] } ?? []),
            Array(value.utf8)
        )
    }

    private func post(
        _ harness: WireMockHarness,
        _ path: String,
        _ body: [UInt8],
        type: String = "multipart/form-data"
    ) throws -> String {
        let connection = try WireConnection(port: harness.server.port)
        defer { connection.close() }
        var head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        head += "Content-Type: \(type); boundary=\(Self.boundary)\r\nContent-Length: \(body.count)\r\n\r\n"
        connection.send(Array(head.utf8) + body)
        let response = try connection.readResponse()
        return response.status == 200 ? response.text : String(response.status)
    }

    func testAnyAllAndEachPartsHeadersAndBody() throws {
        let harness = try WireMockHarness(self, mappings: Self.mappings)
        let info = Self.field("info", #"{"kind": "photo"}"#, type: "application/json; charset=utf-8")
        // ANY: one part meets every condition; the others may be anything.
        XCTAssertEqual(try post(harness, "/any", Self.body([Self.field("title", "x"), info])), "any")
        XCTAssertEqual(
            try post(harness, "/any", Self.body([Self.field("info", #"{"kind": "video"}"#, type: "application/json")])),
            "404",
            "the body pattern fails"
        )
        XCTAssertEqual(
            try post(harness, "/any", Self.body([Self.field("info", #"{"kind": "photo"}"#)])),
            "404",
            "the part has no Content-Type"
        )
        XCTAssertEqual(
            try post(
                harness,
                "/any",
                Self.body([Self.field("other", #"{"kind": "photo"}"#, type: "application/json")])
            ),
            "404",
            "no part is named info"
        )
        // ALL: every part.
        XCTAssertEqual(try post(harness, "/all", Self.body([Self.field("a", "abc"), Self.field("b", "xyz")])), "all")
        XCTAssertEqual(
            try post(harness, "/all", Self.body([Self.field("a", "abc"), Self.field("b", "XYZ")])),
            "404",
            "one part's body fails"
        )
        // No matchingType: ANY. Two patterns: both must hold, each on a part of its own.
        let file: (headers: [String], body: [UInt8]) = (
            [
                "Content-Disposition: form-data; name=\"upload\"; filename=\"a.bin\"",
                "Content-Type: application/octet-stream",
            ],
            [0, 1, 2, 255]
        )
        XCTAssertEqual(try post(harness, "/default", Self.body([file, Self.field("note", "say hello")])), "default")
        XCTAssertEqual(try post(harness, "/default", Self.body([file])), "404", "the note is missing")
        // multipart/mixed and related: parts without Content-Disposition, matched by their headers.
        let meta: (headers: [String], body: [UInt8]) = (
            ["Content-Type: application/json", "Content-ID: <meta>"], Array(#"{"items": [{"id": 7}]}"#.utf8)
        )
        let binary: (headers: [String], body: [UInt8]) = (["Content-Type: image/png"], [137, 80, 78, 71])
        XCTAssertEqual(try post(harness, "/mixed", Self.body([binary, meta]), type: "multipart/mixed"), "mixed")
        XCTAssertEqual(try post(harness, "/mixed", Self.body([meta]), type: "multipart/related"), "mixed")
        XCTAssertEqual(try post(harness, "/mixed", Self.body([binary]), type: "multipart/mixed"), "404")
    }

    func testARequestThatIsNotMultipartMatchesNoneAndTheNearMissSaysWhy() throws {
        let harness = try WireMockHarness(self, mappings: Self.mappings)
        let response = try harness.send(
            "POST",
            "/all",
            headers: [("Content-Type", "application/json")],
            body: #"{"a": "abc"}"#
        )
        XCTAssertEqual(response.status, 404)
        XCTAssertTrue(response.text.contains("multipartPatterns[0]"), response.text)
        XCTAssertTrue(response.text.contains("not multipart"), response.text)
        // A multipart body that does not read (no closing delimiter) matches nothing either.
        let broken = Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nabc".utf8)
        XCTAssertEqual(try post(harness, "/all", broken), "404")
    }

    func testBadPatternsAreReportedWithTheirPlace() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-mp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(
            [
                "bad.json": #"""
                {"request": {"urlPath": "/x", "multipartPatterns": [{"matchingType": "SOME",
                  "bodyPatterns": [{"equalTo": "a"}]}]}, "response": {}}
                """#,
                "notarray.json":
                    #"{"request": {"urlPath": "/y", "multipartPatterns": {"headers": {}}}, "response": {}}"#,
            ],
            [:],
            into: folder
        )
        let result = try runStubServer(["validate", "--wiremock", folder.path])
        XCTAssertTrue(
            result.stdout.contains(
                #"bad.json:1:70: error: $.request.multipartPatterns[0].matchingType: expected "ALL" or "ANY""#
            ),
            result.stdout
        )
        XCTAssertTrue(
            result.stdout.contains("error: $.request.multipartPatterns: expected an array of multipart patterns"),
            result.stdout
        )
    }
}
