import Testing
@testable import HTTP1

@Suite struct RequestHeadEncoderTests {
    @Test func headInOrderWithRepeatsAndCasing() throws {
        let headers = HeaderFields([
            ("Host", "api.test:8080"), ("x-trace", "a"), ("Accept", "*/*"), ("X-Trace", "b"), ("Content-Length", "2"),
        ])
        let head = try RequestHeadEncoder().encode(method: "POST", target: "/v1/items?q=a%20b", headers: headers)
        #expect(
            String(decoding: head, as: UTF8.self)
                == """
                POST /v1/items?q=a%20b HTTP/1.1\r\nHost: api.test:8080\r\nx-trace: a\r\nAccept: */*\r\nX-Trace: \
                b\r\nContent-Length: 2\r\n\r\n
                """
        )
    }

    @Test func roundTripsThroughTheRequestParser() throws {
        let headers = HeaderFields([
            ("Host", "h"), ("Set-Thing", "1"), ("set-thing", "2"), ("X-Latin", "caf\u{E9}"),
            ("Transfer-Encoding", "chunked"),
        ])
        var bytes = try RequestHeadEncoder().encode(method: "PUT", target: "http://h/p", headers: headers)
        bytes += ChunkedEncoder.chunk(Array("hello".utf8)) + ChunkedEncoder.chunk([]) + ChunkedEncoder.lastChunk
        var d = ParserDriver()
        d.feed(bytes)
        let request = try #require(d.requests.first)
        #expect(request.method == "PUT" && request.target == "http://h/p")
        #expect(request.headers == headers)
        #expect(request.body == Array("hello".utf8))
    }

    static let maliciousValues = [
        "a\r\nX-Injected: 1", "a\nX-Injected: 1", "a\rb", "a\u{0}b", "a\u{1}b", "a\u{7F}",
        "1\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: h",
    ]

    @Test(arguments: maliciousValues)
    func controlBytesInValuesAreRefused(_ value: String) {
        #expect(throws: RequestEncodingError.self) {
            try RequestHeadEncoder().encode(
                method: "GET",
                target: "/",
                headers: HeaderFields([("Host", "h"), ("X-Evil", value)])
            )
        }
    }

    @Test(arguments: maliciousValues)
    func controlBytesInValuesCanBecomeSpaces(_ value: String) throws {
        let encoder = RequestHeadEncoder(unsafeValues: .replaceWithSpace)
        let head = try encoder.encode(
            method: "GET",
            target: "/",
            headers: HeaderFields([("Host", "h"), ("X-Evil", value)])
        )
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
            .map(String.init)
        #expect(lines.count == 5 && lines[3] == "" && lines[4] == "", "\(lines)")
        #expect(lines[2].hasPrefix("X-Evil: a") || lines[2].hasPrefix("X-Evil: 1"))
        #expect(!head.contains(0) && head.filter { $0 == 10 }.count == 4 && head.filter { $0 == 13 }.count == 4)
        var d = ParserDriver()
        d.feed(head)
        #expect(d.requests.count == 1 && d.requests.first?.headers.count == 2)
    }

    @Test(arguments: [("Bad Name", "v"), ("X:Y", "v"), ("", "v"), ("X\r\nInjected", "v"), ("X-\u{E9}", "v")])
    func nonTokenNamesAreRefused(_ name: String, _ value: String) {
        #expect(throws: RequestEncodingError.self) {
            try RequestHeadEncoder(unsafeValues: .replaceWithSpace).encode(
                method: "GET",
                target: "/",
                headers: HeaderFields([(name, value)])
            )
        }
    }

    @Test(arguments: [
        ("GET /x HTTP/1.1\r\nHost: h\r\n\r\nGET", "/"), ("", "/"), ("G T", "/"), ("GET", ""), ("GET", "/a b"),
        ("GET", "/a\r\nX: 1"), ("GET", "/a#frag"), ("GET", "/\u{0}"), ("GET", "/caf\u{E9}"),
    ])
    func invalidRequestLinesAreRefused(_ method: String, _ target: String) {
        #expect(throws: RequestEncodingError.self) {
            try RequestHeadEncoder().encode(method: method, target: target, headers: HeaderFields([("Host", "h")]))
        }
    }

    @Test(arguments: [
        [("Content-Length", "3"), ("Transfer-Encoding", "chunked")],
        [("Content-Length", "3"), ("Content-Length", "3")],
        [("Content-Length", "3, 3")],
        [("Content-Length", "-1")],
        [("Transfer-Encoding", "gzip")],
        [("Transfer-Encoding", "chunked, gzip")],
    ])
    func ambiguousFramingIsRefused(_ fields: [(String, String)]) {
        #expect(throws: RequestEncodingError.self) {
            try RequestHeadEncoder().encode(
                method: "POST",
                target: "/",
                headers: HeaderFields([("Host", "h")] + fields)
            )
        }
    }

    @Test func refusalLeavesTheBufferUnchanged() {
        var out = Array("prefix".utf8)
        #expect(throws: RequestEncodingError.self) {
            try RequestHeadEncoder().append(
                method: "GET",
                target: "/",
                headers: HeaderFields([("Host", "h"), ("X", "a\nb")]),
                to: &out
            )
        }
        #expect(out == Array("prefix".utf8))
        // A bad name after fields already written is taken back too (the head is written
        // straight into the buffer).
        #expect(throws: RequestEncodingError.self) {
            try RequestHeadEncoder().append(
                method: "GET",
                target: "/",
                headers: HeaderFields([("Host", "h"), ("A", "1"), ("B C", "2")]),
                to: &out
            )
        }
        #expect(out == Array("prefix".utf8))
    }
}

@Suite struct ChunkedEncoderTests {
    @Test func chunksAndTheLastChunk() {
        #expect(String(decoding: ChunkedEncoder.chunk(Array("hello".utf8)), as: UTF8.self) == "5\r\nhello\r\n")
        #expect(ChunkedEncoder.chunk([UInt8](repeating: 0, count: 300)).prefix(5) == ArraySlice(Array("12c\r\n".utf8)))
        #expect(ChunkedEncoder.chunk([]).isEmpty)
        #expect(ChunkedEncoder.sizeLine(0).isEmpty)
        #expect(ChunkedEncoder.sizeLine(255) == Array("ff\r\n".utf8))
        #expect(ChunkedEncoder.lastChunk == Array("0\r\n\r\n".utf8))
    }

    @Test func encodedBodyParsesBackToTheSameBytes() {
        let pieces: [[UInt8]] = [
            Array("a".utf8), [], [UInt8](repeating: 0x0D, count: 17), Array("0\r\n\r\n".utf8), [UInt8](0...255),
        ]
        var wire = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for piece in pieces { piece.withUnsafeBufferPointer { ChunkedEncoder.appendChunk($0, to: &wire) } }
        wire += ChunkedEncoder.lastChunk
        var d = ResponseDriver()
        d.feed(wire)
        #expect(d.body == pieces.flatMap { $0 })
        #expect(d.ends == 1 && d.pending.isEmpty)
    }
}
