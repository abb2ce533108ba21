import HTTP1
import JSON
import NativeStubs
import XCTest

@testable import StubEngine

/// The `multipart` body matcher: fields and files of a `multipart/form-data` body by name,
/// checked at load, explained in near-miss reports, and written back by the encoder.
final class MultipartMatcherTests: XCTestCase {
    static let boundary = "----WebKitFormBoundaryX"
    static let stubs = """
        [{"name": "photo", "request": {"path": "/upload", "body": {"multipart": {
            "fields": {"caption": "Holiday", "album": {"present": true}},
            "files": {"photo": {"filename": {"matches": ".+\\\\.jpg"}, "contentType": "image/jpeg",
                                "content": {"contains": "JFIF"}}, "thumb": {"absent": true}}}}}, "response": {}},
         {"name": "any file", "request": {"path": "/any", "body": {"multipart": {"files": {"doc": {}}}}},
          "response": {}}]
        """

    func request(_ path: String, _ parts: [String], contentType: String? = nil) -> IncomingRequest {
        let body = parts.map { "--\(Self.boundary)\r\n\($0)\r\n" }.joined() + "--\(Self.boundary)--\r\n"
        return makeRequest(
            "POST",
            path,
            headers: [("Content-Type", contentType ?? "multipart/form-data; boundary=\(Self.boundary)")],
            body: body
        )
    }

    static let caption = "Content-Disposition: form-data; name=\"caption\"\r\n\r\nHoliday"
    static let album = "Content-Disposition: form-data; name=\"album\"\r\n\r\n2026"
    static func photo(_ name: String = "beach.jpg", type: String = "image/jpeg") -> String {
        "Content-Disposition: form-data; name=\"photo\"; filename=\"\(name)\"\r\n"
            + "Content-Type: \(type)\r\n\r\n\u{7f}JFIF..."
    }

    func testFieldsAndFilesByName() {
        let e = engine(Self.stubs)
        XCTAssertEqual(e.answer(request("/upload", [Self.caption, Self.album, Self.photo()])), "photo")
        XCTAssertEqual(e.answer(request("/upload", [Self.photo(), Self.album, Self.caption])), "photo", "any order")
        XCTAssertNil(e.answer(request("/upload", [Self.caption, Self.photo()])), "album is required")
        XCTAssertNil(e.answer(request("/upload", [Self.caption, Self.album, Self.photo("beach.png")])))
        XCTAssertNil(e.answer(request("/upload", [Self.caption, Self.album, Self.photo(type: "image/png")])))
        let thumb = "Content-Disposition: form-data; name=\"thumb\"; filename=\"t.jpg\"\r\n\r\nx"
        XCTAssertNil(e.answer(request("/upload", [Self.caption, Self.album, Self.photo(), thumb])), "thumb is absent")
        // A field is a part without a file name: a file named "caption" is not the field.
        let captionFile = "Content-Disposition: form-data; name=\"caption\"; filename=\"c.txt\"\r\n\r\nHoliday"
        XCTAssertNil(e.answer(request("/upload", [captionFile, Self.album, Self.photo()])))
        XCTAssertNil(e.answer(request("/upload", [Self.caption, Self.album, Self.photo()], contentType: "text/plain")))
        let doc = "Content-Disposition: form-data; name=\"doc\"; filename=\"a.pdf\"\r\n\r\n%PDF"
        XCTAssertEqual(e.answer(request("/any", [doc])), "any file")
        XCTAssertNil(e.answer(request("/any", [Self.caption])))
    }

    func testNearMissesNameTheFieldOrFile() {
        let e = engine(Self.stubs)
        let miss = e.handle(request("/upload", [Self.caption, Self.photo("beach.png")])).nearMiss?.resolved
        let lines = miss?.candidates.first { $0.name == "photo" }?.mismatches.map {
            "\($0.condition): \($0.expected) / \($0.actual)"
        }
        XCTAssertEqual(
            lines,
            [
                "multipart.fields.album: present / absent",
                #"multipart.files.photo: a file with filename matches /.+\.jpg/, type "image/jpeg", "#
                    + #"content contains "JFIF" / "beach.png" (image/jpeg), 8 bytes"#,
            ]
        )
        let notMultipart = e.handle(makeRequest("POST", "/any", body: "doc=1")).nearMiss?.resolved
        let line = notMultipart?.candidates.first { $0.name == "any file" }?.mismatches.first
        XCTAssertEqual(line?.condition, "body")
        XCTAssertEqual(line?.actual, "not multipart/form-data (Content-Type none)")
    }

    func testRefusedAtLoadWithPlaces() {
        assertLoadErrors([
            (#"{"request": {"body": {"multipart": {}}}, "response": {}}"#, "$.request.body.multipart", "at least one"),
            (
                #"{"request": {"body": {"multipart": {"field": {"a": "b"}}}}, "response": {}}"#,
                "$.request.body.multipart.field", "unknown key"
            ),
            (
                #"{"request": {"body": {"multipart": {"files": {"f": {"name": "x"}}}}}, "response": {}}"#,
                "$.request.body.multipart.files.f.name", "unknown key"
            ),
            (
                #"{"request": {"body": {"multipart": {"files": {"f": {"absent": true, "filename": "x"}}}}}, "#
                    + #""response": {}}"#,
                "$.request.body.multipart.files.f.absent", "stands alone"
            ),
            (
                #"{"request": {"body": {"multipart": {"files": ["f"]}}}, "response": {}}"#,
                "$.request.body.multipart.files", "expected an object of files"
            ),
            (
                #"{"request": {"body": {"multipart": {"fields": {"a": {"matches": "("}}}}}, "response": {}}"#,
                "$.request.body.multipart.fields.a.matches", "invalid regular expression"
            ),
            (
                #"{"request": {"body": {"multipart": {"fields": {"a": "b"}}, "caseInsensitive": true}}, "#
                    + #""response": {}}"#,
                "$.request.body.caseInsensitive", "inside \"multipart\""
            ),
        ])
    }

    func testTheEncoderWritesItBackInOrder() throws {
        let text =
            #"{"response": {}, "request": {"body": {"multipart": {"files": {"p": {"content": "x", "#
            + #""filename": "a"}}, "fields": {"a": "b"}}}}}"#
        let node = try JSONParser.parse(Array(text.utf8))
        let written = String(decoding: StubEncoder.encode(stubNodes: [node]), as: UTF8.self)
        let fields = try XCTUnwrap(written.range(of: #""fields""#))
        let files = try XCTUnwrap(written.range(of: #""files""#))
        XCTAssertLessThan(fields.lowerBound, files.lowerBound, written)
        let filename = try XCTUnwrap(written.range(of: #""filename""#))
        let content = try XCTUnwrap(written.range(of: #""content""#))
        XCTAssertLessThan(filename.lowerBound, content.lowerBound, written)
    }
}
