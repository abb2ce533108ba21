import Testing

@testable import HTTP1

/// The strings the parser makes for a head's text (`HeadText`) and the notable fields it records
/// (`HeaderFields.has`): each shortcut gives exactly what the general route gives.
@Suite struct HeadTextTests {
    private static func decoded(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func literalsAndBuiltStringsMatchTheBytes() {
        let texts = [
            "GET", "PUT", "POST", "HEAD", "PATCH", "TRACE", "DELETE", "OPTIONS", "CONNECT", "get", "Get", "GOT",
            "PURGE", "Host", "host", "HOST", "hOsT", "Date", "Accept", "accept", "ACCEPT", "Cookie", "Origin",
            "Expect", "expect", "Server", "Referer", "User-Agent", "user-agent", "Connection", "connection",
            "CONNECTION", "Content-Type", "content-type", "Authorization", "Cache-Control", "cache-control",
            "If-None-Match", "Content-Length", "content-length", "CONTENT-LENGTH", "Accept-Encoding",
            "accept-encoding", "Accept-Language", "accept-language", "Transfer-Encoding", "transfer-encoding",
            "TRANSFER-ENCODING", "X-Request-Identifier", "", "a", "127.0.0.1:54321", "0123456789abcdef",
        ]
        for text in texts {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(HeadText.method(buffer) == text)
                #expect(HeadText.fieldName(buffer) == text)
                #expect(HeadText.string(buffer) == text)
                #expect(Array(HeadText.fieldName(buffer).utf8) == bytes, "case kept: \(text)")
            }
        }
    }

    /// obs-text in a field value is repaired as `String(decoding:as:)` repairs it, short or long.
    @Test func invalidUTF8IsRepairedAsDecodingDoes() {
        let samples: [[UInt8]] = [
            [0xE9], latin1("caf\u{E9}"), [0x61, 0xC3], [0xC3, 0xA9, 0xFF], latin1("caf\u{E9} au lait, tr\u{E8}s chaud"),
            Array(repeating: 0x80, count: 15), Array(repeating: 0x80, count: 16), Array("café".utf8),
        ]
        for bytes in samples {
            bytes.withUnsafeBufferPointer { buffer in
                #expect(HeadText.string(buffer) == Self.decoded(bytes))
                #expect(Array(HeadText.string(buffer).utf8) == Array(Self.decoded(bytes).utf8))
            }
        }
    }

    /// The word-wise scan of a field value stops exactly where the table says, and the token and
    /// target scans do too, from any start, over bytes of every class.
    @Test func byteClassScansAgreeWithTheirTables() {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0, 9, 10, 13, 0x1F, 0x20, 0x21, 0x7E, 0x7F, 0x80, 0xFF, 0x23, 0x3A, 0x41]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &generator)
            let bytes: [UInt8] = (0..<count).map { _ in
                Int.random(in: 0..<4, using: &generator) == 0
                    ? UInt8.random(in: 0...255, using: &generator)
                    : Int.random(in: 0..<3, using: &generator) == 0
                        ? alphabet.randomElement(using: &generator)! : UInt8(ascii: "a")
            }
            let start = Int.random(in: 0...count, using: &generator)
            let end = Int.random(in: start...count, using: &generator)
            func first(_ table: [Bool]) -> Int { bytes[start..<end].firstIndex { !table[Int($0)] } ?? end }
            bytes.withUnsafeBufferPointer { buffer in
                #expect(ByteClass.fieldValueEnd(buffer, from: start, to: end) == first(ByteClass.fieldValue))
                #expect(ByteClass.tokenEnd(buffer, from: start, to: end) == first(ByteClass.token))
                #expect(ByteClass.targetEnd(buffer, from: start, to: end) == first(ByteClass.target))
            }
        }
        for value in 0...255 {
            let word = UInt64(value) << 40 | 0x6161_6161_6161_6161 & ~(0xFF << 40)
            let flagged = ByteClass.controlOrDeleteMask(word) != 0
            #expect(flagged == (value < 0x20 || value == 0x7F), "\(value)")
        }
    }

    /// The word-wise pass of `isPlainOriginPath` answers as a byte-by-byte reading of its rule.
    @Test func plainOriginPathAgreesWithItsRule() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("/.?%ab".utf8)
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...30, using: &generator)
            var path = (0..<count).map { _ in
                Int.random(in: 0..<3, using: &generator) == 0
                    ? alphabet.randomElement(using: &generator)! : UInt8(ascii: "a")
            }
            if count > 0, Bool.random(using: &generator) { path[0] = UInt8(ascii: "/") }
            var expected = path.first == UInt8(ascii: "/")
            for (i, byte) in path.enumerated()
            where byte == UInt8(ascii: "?") || byte == UInt8(ascii: "%")
                || (byte == UInt8(ascii: ".") && i > 0 && path[i - 1] == UInt8(ascii: "/"))
            {
                expected = false
            }
            let found = path.withUnsafeBufferPointer { RequestTarget.isPlainOriginPath($0) }
            #expect(found == expected, "\(String(decoding: path, as: UTF8.self))")
        }
    }

    @Test func versionWordIsHTTP11() throws {
        let word = Array("HTTP/1.1".utf8).withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        #expect(word == ByteClass.http11Word)
        for (text, minor) in [("HTTP/1.1", 1), ("HTTP/1.0", 0), ("HTTP/1.9", 1)] {
            let version = try Array(text.utf8).withUnsafeBufferPointer { (buffer) throws(HTTPParseError) in
                try RequestHeadParser.parseVersion(buffer, 0..<8)
            }
            #expect(version == HTTPVersion(major: 1, minor: minor))
        }
        for text in ["HTTP/2.0", "http/1.1", "HTTP/1.1 ", "HTTP/11"] {
            #expect(throws: HTTPParseError.self) {
                try Array(text.utf8).withUnsafeBufferPointer { (buffer) throws(HTTPParseError) in
                    try RequestHeadParser.parseVersion(buffer, 0..<buffer.count)
                }
            }
        }
    }

    @Test func notableNamesInAnyCase() {
        let cases: [(String, NotableFields)] = [
            ("Host", .host), ("HOST", .host), ("host", .host), ("Hosts", []), ("Date", []), ("Expect", .expect),
            ("EXPECT", .expect), ("Server", []), ("Connection", .connection), ("connectioN", .connection),
            ("Keep-Alive", []), ("Content-Length", .contentLength), ("content-LENGTH", .contentLength),
            ("Content-Lengthy", []), ("Content-Langth", []), ("Transfer-Encoding", .transferEncoding),
            ("transfer-encoding", .transferEncoding), ("Transfer-Encodinf", []), ("", []),
        ]
        for (name, kind) in cases {
            Array(name.utf8).withUnsafeBufferPointer { #expect(NotableFields(name: $0) == kind, "\(name)") }
        }
    }

    /// The parser's record answers for what it parsed; a change made afterwards through the
    /// public API is seen too (the record then no longer answers alone).
    @Test func notableFieldsFollowChangesAfterParsing() throws {
        var request = try #require(
            ParserDriver.parse("GET / HTTP/1.1\r\nhOsT: h\r\nX: 1\r\n\r\n").requests.first
        )
        #expect(request.headers.has(.host, named: "Host"))
        #expect(!request.headers.has(.connection, named: "Connection"))
        #expect(request.wantsKeepAlive)
        request.headers.add("connection", "Close")
        #expect(request.headers.has(.connection, named: "Connection"))
        #expect(!request.wantsKeepAlive)
        request.headers.remove("CONNECTION")
        #expect(request.wantsKeepAlive)
        request.headers.remove("Host")
        #expect(!request.headers.has(.host, named: "Host"))
        request.headers.set("Connection", "close")
        #expect(!request.wantsKeepAlive)

        let made = HeaderFields([("Host", "h"), ("Connection", "close")])
        #expect(made.has(.host, named: "Host"))
        #expect(made.has(.connection, named: "Connection"))
        #expect(!made.has(.expect, named: "Expect"))
        #expect(!HeaderFields().has(.host, named: "Host"))
    }

    /// The framing, Host, Connection and Expect rules hold for names in any case.
    @Test func notableFieldsAreFoundInAnyCase() throws {
        #expect(ParserDriver.parse("GET / HTTP/1.1\r\nhost: a\r\nHOST: b\r\n\r\n").failure?.status == 400)
        #expect(ParserDriver.parse("GET / HTTP/1.1\r\nX-Host: a\r\n\r\n").failure?.status == 400)
        let body = ParserDriver.parse("POST / HTTP/1.1\r\nHOST: h\r\ncontent-LENGTH: 3\r\n\r\nabc")
        #expect(body.requests.first?.body == Array("abc".utf8))
        let chunked = ParserDriver.parse(
            "POST / HTTP/1.1\r\nHost: h\r\ntransfer-ENCODING: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        )
        #expect(chunked.requests.first?.body == Array("abc".utf8))
        #expect(
            ParserDriver.parse("POST / HTTP/1.1\r\nHost: h\r\ncontent-length: 3\r\nTRANSFER-encoding: chunked\r\n\r\n")
                .failure?.status == 400
        )
        #expect(ParserDriver.parse("GET / HTTP/1.1\r\nHost: h\r\nCONNECTION: a b\r\n\r\n").failure?.status == 400)
        let close = try #require(
            ParserDriver.parse("GET / HTTP/1.1\r\nHost: h\r\nconnection: CLOSE\r\n\r\n").requests.first
        )
        #expect(!close.wantsKeepAlive)
        var expecting = ParserDriver()
        expecting.feed("PUT /u HTTP/1.1\r\nHost: h\r\nEXPECT: 100-Continue\r\ncontent-length: 4\r\n\r\n")
        #expect(expecting.continues == 1)
    }

    /// The parser writes each request line into an empty request it keeps between heads: nothing
    /// of one request is left in the next, pipelined or not.
    @Test func nothingOfARequestIsLeftInTheNext() throws {
        var d = ParserDriver()
        d.feed(
            "POST http://t.test:81/a?x=1&y=2 HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi"
                + "GET /b HTTP/1.0\r\n\r\n"
        )
        d.feed("OPTIONS * HTTP/1.1\r\nHost: o\r\n\r\n")
        #expect(d.failure == nil)
        try #require(d.requests.count == 3)
        let second = d.requests[1]
        #expect(second.method == "GET")
        #expect(second.target == "/b")
        #expect(second.path == "/b")
        #expect(second.rawQuery == nil)
        #expect(second.queryItems.isEmpty)
        #expect(second.authority == nil)
        #expect(second.headers.isEmpty)
        #expect(!second.headers.has(.connection, named: "Connection"))
        #expect(second.body.isEmpty)
        #expect(second.version == .http1_0)
        #expect(second.head == Array("GET /b HTTP/1.0\r\n\r\n".utf8))
        #expect(d.requests[2].authority == "o")
        #expect(d.requests[2].headers.count == 1)
    }

    /// The Host value becomes the authority as its field arrives; an absolute-form target's
    /// authority still wins, and an empty Host gives none.
    @Test func authorityFromHost() throws {
        let origin = try #require(ParserDriver.parse("GET /p HTTP/1.1\r\nX: 1\r\nhost: h:8\r\n\r\n").requests.first)
        #expect(origin.authority == "h:8")
        let absolute = try #require(
            ParserDriver.parse("GET http://t.test/p HTTP/1.1\r\nHost: h:8\r\n\r\n").requests.first
        )
        #expect(absolute.authority == "t.test")
        let empty = try #require(ParserDriver.parse("GET /p HTTP/1.1\r\nHost: \r\n\r\n").requests.first)
        #expect(empty.authority == nil)
        // Host is checked on its bytes as they came: obs-text is refused, not its repaired text.
        var obsText = ParserDriver()
        obsText.feed(latin1("GET /p HTTP/1.1\r\nHost: caf\u{E9}:80\r\n\r\n"))
        #expect(obsText.failure?.status == 400)
        let reread = try IncomingRequest(readingHead: origin.head)
        #expect(reread.authority == "h:8")
        #expect(throws: HTTPParseError.self) {
            try IncomingRequest(readingHead: Array("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n".utf8))
        }
    }
}
