import Testing

@testable import HTTP1

/// `MultipartBody`: the framing of any `multipart/*` body, each part with every header field.
@Suite struct MultipartBodyTests {
    @Test func boundaryOfEveryMultipartType() {
        #expect(MultipartBody.boundary(contentType: "multipart/mixed; boundary=abc") == "abc")
        #expect(MultipartBody.boundary(contentType: "Multipart/Related; type=\"application/json\"; boundary=x") == "x")
        #expect(MultipartBody.boundary(contentType: "multipart/form-data; boundary=\"q q\"") == "q q")
        #expect(MultipartBody.boundary(contentType: "application/json; boundary=abc") == nil)
        #expect(MultipartBody.boundary(contentType: "multipart/mixed") == nil)
        // The form reader keeps to form-data.
        #expect(MultipartFormData.boundary(contentType: "multipart/mixed; boundary=abc") == nil)
    }

    @Test func mixedPartsKeepEveryHeaderInOrder() throws {
        let body = Array(
            ("--b\r\nContent-Type: application/json\r\nContent-ID: <meta>\r\nX-Note:  padded \r\n\r\n{\"a\":1}\r\n"
                + "--b\r\n\r\nno headers at all\r\n--b--\r\n").utf8
        )
        let parts = try MultipartBody.parts(of: body, boundary: "b")
        #expect(parts.count == 2)
        #expect(parts[0].headers.map(\.name) == ["Content-Type", "Content-ID", "X-Note"])
        #expect(parts[0].values("content-id") == ["<meta>"])
        #expect(parts[0].values("X-NOTE") == ["padded"])
        #expect(parts[0].body == Array("{\"a\":1}".utf8))
        #expect(parts[1].headers.isEmpty)
        #expect(parts[1].body == Array("no headers at all".utf8))
        // Not form-data: the form reader refuses what the general one reads.
        #expect(throws: MultipartBody.Failure.badPartHead(index: 0, reason: "no Content-Disposition field")) {
            try MultipartFormData.formParts(parts)
        }
    }

    @Test func refusalsSayWhere() {
        #expect(throws: MultipartBody.Failure.noFirstDelimiter) {
            try MultipartBody.parts(of: Array("nothing".utf8), boundary: "b")
        }
        #expect(throws: MultipartBody.Failure.unterminatedPart(index: 1)) {
            try MultipartBody.parts(of: Array("--b\r\n\r\none\r\n--b\r\n\r\ntwo".utf8), boundary: "b")
        }
        #expect(throws: MultipartBody.Failure.badPartHead(index: 0, reason: "a header line without a colon")) {
            try MultipartBody.parts(of: Array("--b\r\nno colon\r\n\r\nx\r\n--b--".utf8), boundary: "b")
        }
    }
}
