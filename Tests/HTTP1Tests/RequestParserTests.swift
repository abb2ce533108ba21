import Testing
@testable import HTTP1

@Suite struct RequestParserAcceptsTests {
    @Test func simpleGet() throws {
        let d = ParserDriver.parse(
            """
            GET /v1/users/42?lang=en&x=a%20b HTTP/1.1\r\nHost: api.test:8080\r\nAccept: */*\r\nX-A: 1\r\nx-a: \
            2\r\n\r\n
            """
        )
        #expect(d.failure == nil)
        let r = try #require(d.requests.first)
        #expect(r.method == "GET")
        #expect(r.target == "/v1/users/42?lang=en&x=a%20b")
        #expect(r.path == "/v1/users/42")
        #expect(r.rawQuery == "lang=en&x=a%20b")
        #expect(r.queryValues("x") == ["a b"])
        #expect(r.version == .http1_1)
        #expect(r.headers["host"] == "api.test:8080")
        #expect(r.headers.values("X-A") == ["1", "2"])
        #expect(r.authority == "api.test:8080")
        #expect(r.hostWithoutPort == "api.test")
        #expect(r.wantsKeepAlive)
        #expect(r.body.isEmpty)
    }

    /// The connection's clocks read these after every read (the header timeout runs while a
    /// head arrives, the idle timeout while a body does); they are stored flags, kept at each
    /// change of state, so every state is spelled out here.
    @Test func progressFlagsFollowEveryState() {
        var d = ParserDriver()
        #expect(!d.parser.isMidRequest && !d.parser.isReadingBody, "nothing seen yet")
        d.feed("POST /a HTTP/1.1\r\nHo")
        #expect(d.parser.isMidRequest && !d.parser.isReadingBody, "half a head")
        d.feed("st: h\r\nContent-Length: 4\r\n\r\nab")
        #expect(d.parser.isMidRequest && d.parser.isReadingBody, "half a body")
        d.feed("cd")
        #expect(d.requests.count == 1)
        #expect(!d.parser.isMidRequest && !d.parser.isReadingBody, "between requests")
        d.feed("POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab")
        #expect(d.parser.isMidRequest && d.parser.isReadingBody, "inside a chunk")
        d.feed("c\r\n0\r\nX-T")
        #expect(d.parser.isMidRequest && d.parser.isReadingBody, "in the trailers")
        d.feed(": 1\r\n\r\n")
        #expect(d.requests.count == 2)
        #expect(!d.parser.isMidRequest && !d.parser.isReadingBody, "between requests again")
        d.feed("GET / HTTP/1.1\r\nHost h\r\n\r\n")
        #expect(d.failure != nil)
        #expect(d.parser.isMidRequest && !d.parser.isReadingBody, "refused: no body is awaited")
        let (event, _) = [UInt8]().withUnsafeBufferPointer { d.parser.parse($0) }
        guard case .failure(let again) = event else {
            Issue.record("a refused parser keeps refusing")
            return
        }
        #expect(again == d.failure, "with the same error")
    }

    @Test func everySplitPointGivesTheSameRequest() {
        let text = "POST /a?b=c HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            var d = ParserDriver()
            d.feed(Array(bytes[..<split]))
            d.feed(Array(bytes[split...]))
            #expect(d.failure == nil)
            #expect(d.requests.count == 1)
            #expect(d.requests.first?.body == Array("hello".utf8))
        }
    }

    @Test func byteAtATimeChunked() {
        let bytes = Array(
            """
            POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \
            chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer-A: x\r\n\r\n
            """
            .utf8
        )
        var d = ParserDriver()
        for b in bytes { d.feed([b]) }
        #expect(d.failure == nil)
        #expect(d.requests.first?.body == Array("abcde".utf8))
    }

    @Test func pipelinedRequestsInOneBuffer() {
        let d = ParserDriver.parse(
            """
            GET /1 HTTP/1.1\r\nHost: h\r\n\r\nPOST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nokGET /3 \
            HTTP/1.1\r\nHost: h\r\n\r\n
            """
        )
        #expect(d.requests.map(\.path) == ["/1", "/2", "/3"])
        #expect(d.requests[1].body == Array("ok".utf8))
    }

    @Test func chunkExtensionsQuotedAndTrailers() {
        let d = ParserDriver.parse(
            """
            POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4 ; name=\"quoted \\\" value\" ; \
            flag\r\nwiki\r\n0\r\nExpires: never\r\n\r\n
            """
        )
        #expect(d.failure == nil)
        #expect(d.requests.first?.body == Array("wiki".utf8))
    }

    @Test func expectContinueAsksOnceBeforeTheBody() {
        var d = ParserDriver()
        d.feed("PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        #expect(d.continues == 1)
        d.feed("data")
        #expect(d.requests.first?.body == Array("data".utf8))
        #expect(d.continues == 1)
    }

    @Test func expectContinueNotSentWhenBodyAlreadyHere() {
        let d = ParserDriver.parse(
            "PUT /u HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\ndata"
        )
        #expect(d.continues == 0)
        #expect(d.requests.count == 1)
    }

    @Test func absoluteFormOverridesHost() throws {
        let d = ParserDriver.parse("GET http://example.com:81/p/q?z=1 HTTP/1.1\r\nHost: other\r\n\r\n")
        let r = try #require(d.requests.first)
        #expect(r.path == "/p/q")
        #expect(r.rawQuery == "z=1")
        #expect(r.authority == "example.com:81")
        #expect(r.hostWithoutPort == "example.com")
    }

    @Test func absoluteFormWithoutPath() throws {
        let r = try #require(
            ParserDriver.parse("GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n").requests.first
        )
        #expect(r.path == "/")
    }

    @Test func asteriskFormForOptions() throws {
        let r = try #require(ParserDriver.parse("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n").requests.first)
        #expect(r.path == "*")
        #expect(r.rawQuery == nil)
        #expect(r.queryItems.isEmpty)
    }

    /// The in-process route (`URLProtocol`) writes the target's parts into the request it builds,
    /// as the parser does: the absolute-form's authority replaces the given one, an origin-form
    /// target leaves it, and a bad `%` is the parser's 400.
    @Test func requestsMadeInProcessParseTheirTargetLikeTheParser() throws {
        let origin = try IncomingRequest.make(
            method: "GET",
            target: "/a/%7E?x=1&y",
            headers: HeaderFields([("Host", "h:1")]),
            body: [],
            peer: "",
            authority: "h:1"
        )
        #expect(origin.path == "/a/~")
        #expect(origin.rawQuery == "x=1&y")
        #expect(origin.queryItems == [QueryItem(name: "x", value: "1"), QueryItem(name: "y", value: "")])
        #expect(origin.authority == "h:1")
        let absolute = try IncomingRequest.make(
            method: "GET",
            target: "http://api.test/p",
            headers: HeaderFields(),
            body: [],
            peer: "",
            authority: "h:1"
        )
        #expect(absolute.path == "/p")
        #expect(absolute.rawQuery == nil)
        #expect(absolute.authority == "api.test")
        #expect(throws: HTTPParseError.self) {
            try IncomingRequest.make(
                method: "GET",
                target: "/a%zz",
                headers: HeaderFields(),
                body: [],
                peer: "",
                authority: nil
            )
        }
    }

    @Test func percentDecodingAndDotSegments() throws {
        let r = try #require(
            ParserDriver.parse("GET /a/./b/../c%20d/%E2%9C%93 HTTP/1.1\r\nHost: h\r\n\r\n").requests.first
        )
        #expect(r.path == "/a/c d/✓")
        let up = try #require(ParserDriver.parse("GET /../../etc HTTP/1.1\r\nHost: h\r\n\r\n").requests.first)
        #expect(up.path == "/etc")
    }

    /// A path with no `%` and no "/." skips decoding; every other path takes the general route.
    /// Both must give the same answer (or the same error) for any path.
    @Test func plainPathShortcutAgreesWithTheGeneralRoute() throws {
        let paths = [
            "/", "/v1/bench", "/a.b/c.json", "/x.", "/.well-known/x", "/a/./b", "/a/../b", "/..",
            "/c%20d", "/x/%2e%2e/ping", "/x/%2E./y", "/%zz", "/%", "", "a/./b", "../x", "/a//b/", "/ünï/çødé",
        ]
        for path in paths {
            let plain = path.utf8.withContiguousStorageIfAvailable { RequestTarget.isPlainPath($0) } ?? false
            #expect(plain == (!path.contains("%") && !path.contains("/.")), "\(path)")
            let quick = Result { () throws(HTTPParseError) in try RequestTarget.decodedPath(path) }
            let general = Result { () throws(HTTPParseError) in try RequestTarget.decodedPathByRules(path) }
            #expect(quick == general, "\(path)")
        }
        #expect(try RequestTarget.decodedPath("/v1/bench") == "/v1/bench")
        #expect(try RequestTarget.decodedPath(Substring("/a/../b/c%2Fd")) == "/b/c/d")
    }

    @Test func plusStaysPlusInQuery() throws {
        let r = try #require(ParserDriver.parse("GET /s?phone=+44&q=a+b HTTP/1.1\r\nHost: h\r\n\r\n").requests.first)
        #expect(r.queryValues("phone") == ["+44"])
        #expect(r.queryValues("q") == ["a+b"])
    }

    /// The parser stamps its connection's peer on every request, pipelined ones included.
    @Test func everyRequestCarriesTheParsersPeer() {
        var parser = RequestParser(peer: "192.0.2.7:5123")
        let bytes = Array(
            "GET /a HTTP/1.1\r\nHost: h\r\n\r\nPOST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi".utf8
        )
        var offset = 0
        var requests: [IncomingRequest] = []
        while offset < bytes.count {
            let (event, consumed) = bytes.withUnsafeBufferPointer {
                parser.parse(UnsafeBufferPointer(rebasing: $0[offset...]))
            }
            offset += consumed
            if case .request = event { requests.append(parser.takeRequest()) } else if consumed == 0 { break }
        }
        #expect(requests.map(\.path) == ["/a", "/b"])
        #expect(requests.map(\.peer) == ["192.0.2.7:5123", "192.0.2.7:5123"])
        #expect(requests.last?.body == Array("hi".utf8))
    }

    @Test func leadingEmptyLineIsIgnored() {
        #expect(ParserDriver.parse("\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n").requests.count == 1)
    }

    @Test func http10WithoutHostAndKeepAliveRules() throws {
        let r = try #require(ParserDriver.parse("GET / HTTP/1.0\r\n\r\n").requests.first)
        #expect(!r.wantsKeepAlive)
        let k = try #require(ParserDriver.parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").requests.first)
        #expect(k.wantsKeepAlive)
        let c = try #require(
            ParserDriver.parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: foo, close\r\n\r\n").requests.first
        )
        #expect(!c.wantsKeepAlive)
    }

    @Test func higherMinorVersionIsServedAsHTTP11() throws {
        let r = try #require(ParserDriver.parse("GET / HTTP/1.2\r\nHost: h\r\n\r\n").requests.first)
        #expect(r.version == .http1_1)
    }

    @Test func obsTextAndTabsInValues() throws {
        var d = ParserDriver()
        d.feed(latin1("GET / HTTP/1.1\r\nHost: h\r\nX-Latin: caf\u{E9}\tok \r\n\r\n"))
        #expect(d.failure == nil)
        #expect(d.requests.first?.headers["x-latin"]?.hasSuffix("ok") == true)
    }

    @Test func emptyHeaderValue() throws {
        let r = try #require(ParserDriver.parse("GET / HTTP/1.1\r\nHost: h\r\nX-Empty:\r\n\r\n").requests.first)
        #expect(r.headers["X-Empty"] == "")
    }
}

@Suite struct RequestParserRejectsTests {
    static let cases: [(String, String, Int)] = [
        ("bare LF", "GET / HTTP/1.1\nHost: h\n\n", 400),
        ("bare LF after request line", "GET / HTTP/1.1\r\nHost: h\n\r\n", 400),
        ("bare CR in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\rb\r\n\r\n", 400),
        ("NUL in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\u{0}b\r\n\r\n", 400),
        ("control in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\u{1}b\r\n\r\n", 400),
        ("DEL in value", "GET / HTTP/1.1\r\nHost: h\r\nX: a\u{7F}b\r\n\r\n", 400),
        ("obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n  b\r\n\r\n", 400),
        ("space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400),
        ("whitespace before first header", "GET / HTTP/1.1\r\n Host: h\r\n\r\n", 400),
        ("invalid name char", "GET / HTTP/1.1\r\nHost: h\r\nX(y): 1\r\n\r\n", 400),
        ("empty name", "GET / HTTP/1.1\r\nHost: h\r\n: 1\r\n\r\n", 400),
        ("missing Host in 1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400),
        ("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("invalid Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400),
        ("invalid Host char", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", 400),
        (
            "CL and TE",
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400
        ),
        ("differing CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
        ("repeated equal CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400),
        ("CL list", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabc", 400),
        ("signed CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +3\r\n\r\nabc", 400),
        ("hex CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x3\r\n\r\nabc", 400),
        ("overflowing CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n", 400),
        ("TE not chunked last", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 400),
        ("TE unknown coding", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        ("TE chunked twice", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400),
        ("TE obfuscated", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n", 400),
        ("TE empty element", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: ,chunked\r\n\r\n", 400),
        ("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
        ("bad chunk size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        (
            "chunk size with bare LF",
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n", 400
        ),
        (
            "chunk data without CRLF",
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n", 400
        ),
        (
            "bad chunk extension",
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;=x\r\nabc\r\n0\r\n\r\n", 400
        ),
        (
            "huge chunk size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n",
            400
        ),
        (
            "bad trailer",
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer: x\r\n\r\n", 400
        ),
        ("fragment", "GET /a#b HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("space in target", "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("control in target", "GET /a\u{1}b HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("bad percent in path", "GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("relative target", "GET a/b HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("asterisk with GET", "GET * HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("invalid method char", "G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("empty method", " / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("two spaces", "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ("lowercase version", "GET / http/1.1\r\nHost: h\r\n\r\n", 400),
        ("version without minor", "GET / HTTP/1\r\nHost: h\r\n\r\n", 400),
        ("trailing space after version", "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", 400),
        ("HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
        ("HTTP/0.9 line", "GET / HTTP/0.9\r\n\r\n", 505),
        ("HTTP/3.0", "GET / HTTP/3.0\r\nHost: h\r\n\r\n", 505),
    ]

    @Test(arguments: cases)
    func rejected(_ name: String, _ text: String, _ status: Int) {
        var d = ParserDriver()
        d.feed(latin1(text))
        #expect(
            d.failure?.status == status,
            "\(name): got \(String(describing: d.failure)) and \(d.requests.count) requests"
        )
    }

    @Test func failureIsSticky() {
        var d = ParserDriver()
        d.feed("GET / HTTP/1.1\nHost: h\n\n")
        let (event, consumed) = [UInt8]("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8).withUnsafeBufferPointer {
            d.parser.parse($0)
        }
        #expect(consumed == 0)
        if case .failure = event {} else { Issue.record("parser recovered after a failure") }
    }

    @Test func targetOverLimitIs414() {
        let limits = HTTPParserLimits(maxTargetBytes: 100)
        let d = ParserDriver.parse(
            "GET /\(String(repeating: "a", count: 200)) HTTP/1.1\r\nHost: h\r\n\r\n",
            limits: limits
        )
        #expect(d.failure?.status == 414)
    }

    @Test func endlessRequestLineIs414WithoutWaitingForCRLF() {
        let limits = HTTPParserLimits(maxTargetBytes: 100)
        let d = ParserDriver.parse("GET /" + String(repeating: "a", count: 300), limits: limits)
        #expect(d.failure?.status == 414)
    }

    @Test func headerSectionOverLimitIs431() {
        let limits = HTTPParserLimits(maxHeaderBytes: 1024)
        let d = ParserDriver.parse(
            "GET / HTTP/1.1\r\nHost: h\r\nX: \(String(repeating: "v", count: 2000))\r\n\r\n",
            limits: limits
        )
        #expect(d.failure?.status == 431)
    }

    @Test func tooManyFieldsIs431() {
        let limits = HTTPParserLimits(maxHeaderCount: 10)
        let fields = (0..<20).map { "X-\($0): v\r\n" }.joined()
        #expect(ParserDriver.parse("GET / HTTP/1.1\r\nHost: h\r\n\(fields)\r\n", limits: limits).failure?.status == 431)
    }

    @Test func announcedBodyOverLimitIs413BeforeAnyBodyByte() {
        let limits = HTTPParserLimits(maxBodyBytes: 10)
        let d = ParserDriver.parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits: limits)
        #expect(d.failure?.status == 413)
    }

    @Test func chunkedBodyOverLimitIs413() {
        let limits = HTTPParserLimits(maxBodyBytes: 10)
        let d = ParserDriver.parse(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n",
            limits: limits
        )
        #expect(d.failure?.status == 413)
    }
}

/// Regressions found by replaying the shared conformance corpora (Tests/HTTPSocketsTests/ConformanceTests).
@Suite struct ConformanceRegressionTests {
    /// RFC 9112 §3.2: a Host field with an invalid value MUST get 400. The value must be
    /// `uri-host [ ":" port ]` (RFC 3986), not just made of allowed characters.
    static let invalidHosts = [
        "localhost:port", "localhost:0", "localhost:65536", "localhost:80:80", "localhost::80",
        "4714::abcd:8001", "::1", "[4712::abcd::]", "[::1", "[::1]x", "[1:2:3:4:5:6:7:8:9]",
        "[::1%en0]", "user@localhost", "a%zz", "[v1]",
    ]

    @Test(arguments: invalidHosts)
    func invalidHostSyntaxIs400(_ host: String) {
        let d = ParserDriver.parse("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        #expect(d.failure?.status == 400, "Host: \(host)")
    }

    static let validHosts = [
        "", "localhost", "localhost:8080", "localhost:", "[::1]", "[::1]:80", "[::1%25en0]:80",
        "[4712:abcd::]", "[::ffff:127.0.0.1]:8000", "[1:2:3:4:5:6:7:8]", "[v1.fe:x]",
        "foo_bar.example.com", "0.0.0.0=5000", "127.01.0.1", "%31.example",
    ]

    @Test(arguments: validHosts)
    func validHostSyntaxIsServed(_ host: String) {
        let d = ParserDriver.parse("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        #expect(d.failure == nil && d.requests.count == 1, "Host: \(host): \(String(describing: d.failure))")
    }

    @Test(arguments: [
        "http://localhost:80x/", "http://localhost::80/", "http://[4712::abcd::]/",
        "http://4713::abcd:8001/", "http://localhost:0/", "http://:80/", "http://a b/",
    ])
    func invalidAbsoluteFormAuthorityIs400(_ target: String) {
        #expect(ParserDriver.parse("GET \(target) HTTP/1.0\r\n\r\n").failure?.status == 400, "\(target)")
    }

    @Test func bracketedIPv6AbsoluteFormIsServed() throws {
        let r = try #require(ParserDriver.parse("GET http://[4712::abcd]:8000/p HTTP/1.0\r\n\r\n").requests.first)
        #expect(r.authority == "[4712::abcd]:8000")
        #expect(r.hostWithoutPort == "4712::abcd")
        #expect(r.path == "/p")
    }

    /// A malformed line is refused when its CRLF arrives, not after the header timeout.
    @Test(arguments: [
        ("GET /#frag HTTP/1.0\r\n", 400),
        ("GET /\r\n", 400),
        ("GET / HTTP/1.0\r\r", 400),
        ("GET\r/ HTTP/1.0\r\n", 400),
        ("GET / HTTP/1.0\r\nHost: localhost:80 x\r\n\r", 400),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n", 400),
        ("PUT /url HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n", 400),
        ("PUT /url HTTP/1.1\r\nHost: h\r\nContent-Length: 1000000000000000000000\r\n", 400),
        ("PUT /url HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n", 400),
        ("GET / HTTP/2.0\r\n", 505),
        ("CONNECT example.com:443 HTTP/1.1\r\n", 501),
    ])
    func invalidLineIsRefusedBeforeTheHeadEnds(_ text: String, _ status: Int) {
        var d = ParserDriver()
        d.feed(latin1(text))
        #expect(d.failure?.status == status, "\(text.debugDescription): \(String(describing: d.failure))")
    }

    @Test func validPartialHeadWaits() {
        var d = ParserDriver()
        d.feed("GET / HTTP/1.1\r\nHost: localhost\r\n\r")
        #expect(d.failure == nil && d.requests.isEmpty)
        #expect(d.parser.isMidRequest)
        d.feed("\n")
        #expect(d.requests.count == 1)
    }

    @Test func crlfSplitAcrossReadsAnywhereInTheHead() {
        let text = "\r\n\r\nGET /a HTTP/1.1\r\nHost: h\r\nX: 1\r\n\r\n"
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            var d = ParserDriver()
            d.feed(Array(bytes[..<split]))
            d.feed(Array(bytes[split...]))
            #expect(d.failure == nil && d.requests.map(\.path) == ["/a"], "split at \(split)")
        }
    }

    @Test func manyLeadingEmptyLinesAreSkipped() {
        let d = ParserDriver.parse(String(repeating: "\r\n", count: 20) + "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(d.requests.count == 1)
    }

    /// chunk-ext allows BWS only around ";" and "=" (RFC 9112 §7.1.1): `5 \r\n` is malformed.
    @Test(arguments: [
        "5 \r\n", "5\t\r\n", "5;a \r\n", "5;a=b \r\n", "5;a=\"b\" \r\n", "5;\r\n", "5;a=\r\n", "5;a=\"\\\u{1}\"\r\n",
    ])
    func chunkLineWithStrayWhitespaceIs400(_ line: String) {
        let d = ParserDriver.parse(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(line)hello\r\n0\r\n\r\n"
        )
        #expect(d.failure?.status == 400, "\(line.debugDescription)")
    }

    @Test(arguments: ["5 ;a\r\n", "5; a\r\n", "5;a = b\r\n", "5 ; one ; two;three\r\n", "5;a=\"q \\\" x\"\r\n"])
    func chunkExtensionWithBWSIsAccepted(_ line: String) {
        let d = ParserDriver.parse(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(line)hello\r\n0\r\n\r\n"
        )
        #expect(d.failure == nil && d.requests.first?.body == Array("hello".utf8), "\(line.debugDescription)")
    }

    @Test func connectionMustBeATokenList() {
        #expect(
            ParserDriver.parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: jndi{ldap127\r\n\r\n").failure?.status == 400
        )
        #expect(ParserDriver.parse("GET / HTTP/1.0\r\nConnection: a b\r\n\r\n").failure?.status == 400)
        let ok = ParserDriver.parse(
            "GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, , Upgrade\r\nUpgrade: x\r\n\r\n"
        )
        #expect(ok.failure == nil && ok.requests.count == 1)
    }

    @Test func connectNeedsAuthorityFormAndIsNotImplemented() {
        #expect(
            ParserDriver.parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n").failure?.status
                == 501
        )
        #expect(ParserDriver.parse("CONNECT / HTTP/1.1\r\nHost: h\r\n\r\n").failure?.status == 400)
        #expect(ParserDriver.parse("CONNECT example.com HTTP/1.1\r\nHost: h\r\n\r\n").failure?.status == 400)
        #expect(ParserDriver.parse("GET example.com:443 HTTP/1.1\r\nHost: h\r\n\r\n").failure?.status == 400)
    }
}

/// Regressions found by the libFuzzer target (scripts/fuzz).
@Suite struct FuzzRegressionTests {
    /// A request line past the target limit with a bare CR further on: the verdict must not
    /// depend on how the bytes were split across reads.
    @Test func longRequestLineVerdictDoesNotDependOnSplits() {
        let limits = HTTPParserLimits(maxHeaderBytes: 1024, maxTargetBytes: 256, maxBodyBytes: 2048, maxHeaderCount: 32)
        let line = "GET /" + String(repeating: "a", count: 400) + "\rx HTTP/1.1\r\nHost: h\r\n\r\n"
        let whole = ParserDriver.parse(line, limits: limits)
        var split = ParserDriver(limits: limits)
        for chunk in Array(line.utf8).chunked(17) { split.feed(chunk) }
        #expect(whole.failure?.status == 414)
        #expect(split.failure?.status == 414)
    }
}

extension FuzzRegressionTests {
    /// An invalid trailer line that also crosses the size limit: 431 however it arrives.
    @Test func oversizedInvalidTrailerVerdictDoesNotDependOnSplits() {
        let limits = HTTPParserLimits(maxHeaderBytes: 1024, maxTargetBytes: 256, maxBodyBytes: 2048, maxHeaderCount: 32)
        let request =
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n"
            + String(repeating: "X-A: " + String(repeating: "a", count: 100) + "\r\n", count: 9)
            + "X-C\u{1}: " + String(repeating: "b", count: 150) + "\r\n\r\n"
        let whole = ParserDriver.parse(request, limits: limits)
        var split = ParserDriver(limits: limits)
        for chunk in Array(request.utf8).chunked(13) { split.feed(chunk) }
        #expect(whole.failure?.status == 431)
        #expect(split.failure?.status == 431)
    }
}

extension Array {
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}

/// `CONNECT` for a forward proxy (`HTTPParserLimits.acceptsConnect`).
@Suite struct ConnectTargetTests {
    @Test func acceptedConnectCarriesItsAuthority() {
        var limits = HTTPParserLimits()
        limits.acceptsConnect = true
        let d = ParserDriver.parse(
            "CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n",
            limits: limits
        )
        #expect(d.failure == nil)
        #expect(d.requests.first?.authority == "api.example.com:443")
        #expect(d.requests.first?.path == "")
        for bad in ["api.example.com", "api.example.com:0", "api.example.com:65536", ":443", "a:b:443", "[::1", "/x"] {
            #expect(
                ParserDriver.parse("CONNECT \(bad) HTTP/1.1\r\nHost: h\r\n\r\n", limits: limits).failure?.status == 400
            )
        }
        #expect(ParserDriver.parse("CONNECT [::1]:8443 HTTP/1.1\r\nHost: h\r\n\r\n", limits: limits).failure == nil)
    }

    @Test func authorityIsSplitIntoHostAndPort() {
        #expect(ConnectionTunnel.split(authority: "api.example.com:443")! == ("api.example.com", 443))
        #expect(ConnectionTunnel.split(authority: "[::1]:8443")! == ("::1", 8443))
        #expect(ConnectionTunnel.split(authority: "127.0.0.1:1")! == ("127.0.0.1", 1))
        for bad in ["x", "x:", "x:0", "x:65536", ":80", "::1:80", "[::1]", "x:8a", "[::1:80"] {
            #expect(ConnectionTunnel.split(authority: bad) == nil, "\(bad)")
        }
    }

    @Test func requestsInsideAnInterceptedTunnelCarryItsAuthority() {
        var d = ParserDriver(limits: HTTPParserLimits())
        d.parser = RequestParser(limits: HTTPParserLimits(), peer: "p", tunnelAuthority: "api.example.com:443")
        d.feed("GET /a HTTP/1.1\r\nHost: api.example.com\r\n\r\nGET /b HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
        #expect(d.requests.map(\.tunnelAuthority) == ["api.example.com:443", "api.example.com:443"])
    }
}
