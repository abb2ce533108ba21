import Foundation
import Testing

@testable import HTTP1

/// `MultipartFormData`: what browsers and URLSession clients send, and what is refused.
@Suite struct MultipartFormDataTests {
    static let boundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"

    static func body(_ parts: [String], preamble: String = "", epilogue: String = "\r\n") -> [UInt8] {
        Array((preamble + parts.map { "--\(boundary)\r\n\($0)\r\n" }.joined() + "--\(boundary)--" + epilogue).utf8)
    }

    @Test func boundaryFromTheContentType() {
        #expect(MultipartFormData.boundary(contentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartFormData.boundary(contentType: "Multipart/Form-Data;boundary=\"a b;c\"") == "a b;c")
        #expect(MultipartFormData.boundary(contentType: "multipart/mixed; boundary=abc") == nil)
        #expect(MultipartFormData.boundary(contentType: "multipart/form-data") == nil)
        #expect(MultipartFormData.boundary(contentType: "multipart/form-data; boundary=") == nil)
    }

    @Test func fieldsAndFiles() throws {
        let body = Self.body(
            [
                "Content-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\nin two lines",
                "content-disposition: form-data; name=\"photo\"; filename=\"a \\\"b\\\".jpg\"\r\n"
                    + "Content-Type: image/jpeg\r\n\r\n\u{7f}JPEG",
                "Content-Disposition: form-data; name=\"doc\"; filename=\"x\"; "
                    + "filename*=UTF-8''r%C3%A9sum%C3%A9.pdf\r\n\r\n",
            ],
            preamble: "ignored preamble\r\n",
            epilogue: "\r\nignored epilogue"
        )
        let parts = try MultipartFormData.parts(of: body, boundary: Self.boundary)
        #expect(parts.map(\.name) == ["title", "photo", "doc"])
        #expect(parts[0].filename == nil)
        #expect(parts[0].body == Array("Holiday\r\nin two lines".utf8))
        #expect(parts[1].filename == "a \"b\".jpg")
        #expect(parts[1].contentType == "image/jpeg")
        #expect(parts[1].body == Array("\u{7f}JPEG".utf8))
        #expect(parts[2].filename == "résumé.pdf")
        #expect(parts[2].body.isEmpty)
    }

    @Test func refusals() {
        let boundary = Self.boundary
        #expect(throws: MultipartFormData.Failure.noFirstDelimiter) {
            try MultipartFormData.parts(of: Array("no delimiter".utf8), boundary: boundary)
        }
        #expect(throws: MultipartFormData.Failure.unterminatedPart(index: 0)) {
            try MultipartFormData.parts(
                of: Array("--\(boundary)\r\nContent-Disposition: form-data; name=a\r\n\r\nx".utf8),
                boundary: boundary
            )
        }
        #expect(throws: MultipartFormData.Failure.badPartHead(index: 0, reason: "no Content-Disposition field")) {
            try MultipartFormData.parts(of: Self.body(["Content-Type: text/plain\r\n\r\nx"]), boundary: boundary)
        }
        #expect(throws: MultipartFormData.Failure.badPartHead(index: 0, reason: "a Content-Disposition without a name"))
        {
            try MultipartFormData.parts(of: Self.body(["Content-Disposition: form-data\r\n\r\nx"]), boundary: boundary)
        }
        #expect(throws: MultipartFormData.Failure.noBoundary) { try MultipartFormData.parts(of: [], boundary: "") }
    }
}
