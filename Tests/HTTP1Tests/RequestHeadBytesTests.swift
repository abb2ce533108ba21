import Testing

@testable import HTTP1

/// The head's bytes a request keeps (`IncomingRequest.head`), read again with the parser that
/// accepted them.
@Suite struct RequestHeadBytesTests {
    @Test func aParsedRequestKeepsItsHeadAsItCame() throws {
        let head = "GET /a%20b?x=1&x=2 HTTP/1.1\r\nHost: api.test\r\nx-A:  spaced \t\r\nX-a: 2\r\nAccept: */*\r\n\r\n"
        let d = ParserDriver.parse("\r\n" + head + "GET /next HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(d.failure == nil)
        #expect(d.requests.count == 2)
        // The empty line before the request line is not the request's; the next request is not.
        #expect(d.requests[0].head == Array(head.utf8))
        #expect(d.requests[1].head == Array("GET /next HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
    }

    @Test func aHeadWithABodyKeepsOnlyTheHead() throws {
        let head = "POST /orders HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"
        var d = ParserDriver()
        // Split inside the head and inside the body: the head is whole all the same.
        for chunk in Array((head + "hello").utf8).chunked(7) { d.feed(chunk) }
        let request = try #require(d.requests.first)
        #expect(request.head == Array(head.utf8))
        #expect(request.body == Array("hello".utf8))
    }

    @Test func readingTheHeadAgainGivesWhatTheParserGave() throws {
        let heads = [
            "GET /v1/users/42?lang=en&x=a%20b HTTP/1.1\r\nHost: api.test:8080\r\nX-A: 1\r\nx-a: 2\r\n\r\n",
            "GET http://example.com:8080/p/./q/../r?z HTTP/1.1\r\nHost: other\r\nProxy-Authorization: x\r\n\r\n",
            "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
            "GET /old HTTP/1.0\r\n\r\n",
            "POST /%7Efile HTTP/1.1\r\nHost: \r\nContent-Type:  text/plain  \r\nContent-Length: 3\r\n\r\n",
            "GET /caf%C3%A9 HTTP/1.1\r\nHost: h\r\nX-Obs: caf\u{E9}\r\n\r\n",
        ]
        for head in heads {
            let d = ParserDriver.parse(head + (head.hasPrefix("POST") ? "abc" : ""))
            let parsed = try #require(d.requests.first, "\(head)")
            let read = try IncomingRequest(readingHead: parsed.head)
            #expect(read.method == parsed.method)
            #expect(read.target == parsed.target)
            #expect(read.path == parsed.path)
            #expect(read.rawQuery == parsed.rawQuery)
            #expect(read.queryItems == parsed.queryItems)
            #expect(read.version == parsed.version)
            #expect(read.headers == parsed.headers)
            #expect(read.authority == parsed.authority)
            #expect(read.head == parsed.head)
            let line = try IncomingRequest(readingRequestLineOf: parsed.head)
            #expect(line.method == parsed.method && line.path == parsed.path && line.target == parsed.target)
            #expect(line.headers.isEmpty)
        }
    }

    @Test func aConnectHeadIsReadAgainWhateverTheServerAccepted() throws {
        var limits = HTTPParserLimits()
        limits.acceptsConnect = true
        let d = ParserDriver.parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", limits: limits)
        let parsed = try #require(d.requests.first)
        let read = try IncomingRequest(readingHead: parsed.head)
        #expect(read.method == "CONNECT")
        #expect(read.authority == parsed.authority)
    }

    @Test func bytesTheParserNeverAcceptedAreRefused() {
        #expect(throws: HTTPParseError.self) { try IncomingRequest(readingHead: Array("GET /\r\n\r\n".utf8)) }
        #expect(throws: HTTPParseError.self) { try IncomingRequest(readingHead: []) }
        #expect(throws: HTTPParseError.self) {
            try IncomingRequest(readingHead: Array("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n".utf8))
        }
    }
}
