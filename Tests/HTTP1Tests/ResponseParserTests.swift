import Testing
@testable import HTTP1

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

@Suite struct ResponseParserFramingTests {
    @Test func contentLengthBodyWithHeadAsSent() throws {
        let d = ResponseDriver.everyWay(
            """
            HTTP/1.1 201 Created Here\r\nSet-Cookie: a=1\r\ncontent-TYPE: text/plain\r\nSet-Cookie: \
            b=2\r\nContent-Length: 5\r\n\r\nhello
            """
        )
        let head = try #require(d.heads.first)
        #expect(head.version == .http1_1)
        #expect(head.status == 201)
        #expect(head.reason == "Created Here")
        #expect(
            head.headers
                == HeaderFields([
                    ("Set-Cookie", "a=1"), ("content-TYPE", "text/plain"), ("Set-Cookie", "b=2"),
                    ("Content-Length", "5"),
                ])
        )
        #expect(head.framing == .length(5))
        #expect(head.connectionReusable)
        #expect(!head.mustDropContentLength)
        #expect(d.records.dropFirst() == [.body(bytes("hello")), .end])
    }

    @Test func chunkedWithExtensionsAndTrailers() throws {
        let d = ResponseDriver.everyWay(
            """
            HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=\"q \\\" v\" ; flag\r\nhello\r\n006\r\n \
            world\r\n0;last\r\nExpires: never\r\nX-Checksum: 1\r\n\r\n
            """
        )
        #expect(d.heads.first?.framing == .chunked)
        #expect(d.heads.first?.connectionReusable == true)
        #expect(d.records.dropFirst() == [.body(bytes("hello world")), .end])
        #expect(d.pending.isEmpty)
    }

    @Test func chunkedBodyIsStreamedAsDataOnly() {
        // Each chunk's data comes as soon as it is available, never a size line or CRLF.
        var d = ResponseDriver()
        d.feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nab")
        #expect(d.body == bytes("ab"))
        d.feed("cd\r\n3\r\nxyz\r\n")
        #expect(d.body == bytes("abcdxyz"))
        d.feed("0\r\n\r\n")
        #expect(d.ends == 1)
    }

    @Test func untilCloseWithoutFramingFields() throws {
        let d = ResponseDriver.everyWay(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it\r\nuntil the end",
            eof: true
        )
        let head = try #require(d.heads.first)
        #expect(head.framing == .untilClose)
        #expect(!head.connectionReusable)
        #expect(d.records.dropFirst() == [.body(bytes("all of it\r\nuntil the end")), .end])
        var open = ResponseDriver()
        open.feed("HTTP/1.1 200 OK\r\n\r\nsome")
        #expect(open.ends == 0 && open.parser.isMidMessage)
    }

    @Test func transferEncodingWithoutFinalChunkedRunsUntilClose() {
        let d = ResponseDriver.everyWay(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabcdef",
            eof: true
        )
        #expect(d.heads.first?.framing == .untilClose)
        #expect(d.heads.first?.mustDropContentLength == true)
        #expect(d.body == bytes("abcdef"))
        #expect(d.ends == 1)
    }

    @Test func transferEncodingWinsOverContentLength() {
        let d = ResponseDriver.everyWay(
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
        )
        #expect(d.heads.first?.framing == .chunked)
        #expect(d.heads.first?.mustDropContentLength == true)
        #expect(d.records.dropFirst() == [.body(bytes("ok")), .end])
    }

    @Test func headResponseHasNoBodyWhateverItsLength() {
        let d = ResponseDriver.everyWay(
            "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
            methods: ["HEAD", "GET"]
        )
        #expect(d.heads.map(\.framing) == [.none, .length(2)])
        #expect(d.heads.first?.headers["Content-Length"] == "1234")
        #expect(d.records.count == 5)
        #expect(d.body == bytes("hi"))
    }

    @Test(arguments: [204, 304])
    func bodylessStatuses(_ status: Int) {
        let d = ResponseDriver.everyWay(
            """
            HTTP/1.1 \(status) X\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\nHTTP/1.1 200 \
            OK\r\nContent-Length: 1\r\n\r\nz
            """,
            methods: ["GET", "GET"]
        )
        #expect(d.heads.map(\.framing) == [.none, .length(1)])
        #expect(
            d.records.map(\.description) == [
                "head(\(status) none)", "end", "head(200 length(1))", "body(\"z\")", "end",
            ]
        )
    }

    @Test func informationalResponsesThenTheFinalOne() {
        let d = ResponseDriver.everyWay(
            """
            HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\nLink: \
            </b.js>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok
            """,
            methods: ["POST"]
        )
        #expect(
            d.records.map(\.description) == [
                "informational(100)", "informational(103)", "head(200 length(2))", "body(\"ok\")", "end",
            ]
        )
        if case .informational(let hints) = d.records[1] {
            #expect(hints.headers.values("link") == ["</a.css>; rel=preload", "</b.js>; rel=preload"])
            #expect(hints.framing == .none)
        }
        #expect(d.parser.pendingResponses == 0)
    }

    @Test func switchingProtocolsIsRefused() {
        let d = ResponseDriver.everyWay(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u{81}\u{05}hello"
        )
        #expect(d.failure?.kind == .malformed)
        #expect(d.failure?.reason.contains("101") == true)
    }

    @Test func switchingProtocolsAnswersARequestThatOfferedAnUpgrade() {
        var parser = ResponseParser()
        parser.expectResponse(toMethod: "GET", upgrading: true)
        let frame: [UInt8] = [0x81, 0x05] + Array("hello".utf8)
        let bytes =
            Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8) + frame
        let (event, consumed) = bytes.withUnsafeBufferPointer { parser.parse($0) }
        guard case .head(let head) = event else {
            Issue.record("expected a head, got \(event)")
            return
        }
        #expect(head.status == 101)
        #expect(head.headers["Upgrade"] == "websocket")
        // The frame behind the head is not the parser's: the caller hands it to the new protocol.
        #expect(consumed == bytes.count - frame.count)
        #expect(parser.pendingResponses == 0)
        let after = bytes.withUnsafeBufferPointer { parser.parse(UnsafeBufferPointer(rebasing: $0[consumed...])) }
        if case .failure = after.event {} else { Issue.record("the parser is done after a 101") }
    }

    @Test func anUpgradeOfferAnsweredWithAFinalResponseIsAnOrdinaryResponse() {
        var parser = ResponseParser()
        parser.expectResponse(toMethod: "GET", upgrading: true)
        let bytes = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\n\r\nno".utf8)
        let (event, _) = bytes.withUnsafeBufferPointer { parser.parse($0) }
        if case .head(let head) = event { #expect(head.status == 403) } else { Issue.record("\(event)") }
    }

    @Test func pipelinedResponsesBackToBack() {
        let text =
            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none"
            + "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        let d = ResponseDriver.everyWay(text, methods: ["GET", "GET", "DELETE"])
        #expect(
            d.records.map(\.description) == [
                "head(200 length(3))", "body(\"one\")", "end",
                "head(404 chunked)", "body(\"two\")", "end", "head(200 length(0))", "end",
            ]
        )
        #expect(!d.parser.isMidMessage && d.parser.pendingResponses == 0)
    }

    @Test func repeatedEqualContentLengthIsOneLength() {
        let d = ResponseDriver.everyWay("HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc")
        #expect(d.heads.first?.framing == .length(3))
        #expect(d.body == bytes("abc"))
    }

    @Test func largeBodyStreamsInPiecesWithoutBeingHeld() {
        var d = ResponseDriver()
        let size = 1 << 20
        d.feed("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n")
        let block = [UInt8](repeating: 0x61, count: 65_536)
        for _ in 0..<(size / block.count) {
            d.feed(block)
            #expect(d.pending.isEmpty)
        }
        #expect(d.pieces == size / block.count)
        #expect(d.body.count == size && d.ends == 1)
    }

    @Test func http10WithTransferEncodingIsReadThenClosed() {
        let d = ResponseDriver.everyWay(
            "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"
        )
        #expect(d.heads.first?.framing == .chunked)
        #expect(d.heads.first?.connectionReusable == false)
        #expect(d.body == bytes("x"))
    }
}

@Suite struct ResponseParserLeniencyTests {
    @Test func bareLFAndMissingReason() throws {
        let d = ResponseDriver.everyWay("HTTP/1.1 200\nContent-Length: 2\r\nX: y\n\nok")
        let head = try #require(d.heads.first)
        #expect(head.reason == "")
        #expect(head.headers == HeaderFields([("Content-Length", "2"), ("X", "y")]))
        #expect(d.body == bytes("ok"))
        #expect(ResponseDriver.everyWay("HTTP/1.1 204 \r\n\r\n").heads.first?.reason == "")
    }

    @Test func obsFoldIsReplacedWithOneSpace() throws {
        let d = ResponseDriver.everyWay(
            """
            HTTP/1.1 200 OK\r\nX-Long: first  \r\n \t second\r\n\tthird\r\n   \r\nX-Next: n\r\nContent-Length: \
            0\r\n\r\n
            """
        )
        let head = try #require(d.heads.first)
        #expect(head.headers.values("X-Long") == ["first second third"])
        #expect(head.headers["X-Next"] == "n")
        #expect(head.headers.count == 3)
    }

    @Test func foldedFramingFieldIsUnfoldedFirst() {
        let d = ResponseDriver.everyWay("HTTP/1.1 200 OK\r\nTransfer-Encoding:\r\n chunked\r\n\r\n1\r\na\r\n0\r\n\r\n")
        #expect(d.heads.first?.framing == .chunked)
        #expect(d.body == bytes("a"))
    }

    @Test func emptyLinesBeforeTheStatusLineAreSkipped() {
        let d = ResponseDriver.everyWay(
            "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na\r\n\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb",
            methods: ["GET", "GET"]
        )
        #expect(d.heads.count == 2)
        #expect(d.body == bytes("ab"))
    }

    @Test func higherMinorVersionReadsAsHTTP11AndLeadingZerosInChunkSizes() {
        let d = ResponseDriver.everyWay(
            "HTTP/1.7 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000000000002\r\nok\r\n0\r\n\r\n"
        )
        #expect(d.heads.first?.version == .http1_1)
        #expect(d.body == bytes("ok"))
    }

    @Test func reasonPhraseKeepsObsTextAndTabs() {
        let d = ResponseDriver.everyWay("HTTP/1.1 200 Tr\u{E8}s\tbien \r\nContent-Length: 0\r\n\r\n")
        #expect(d.heads.first?.reason.hasSuffix("\tbien ") == true)
    }
}

@Suite struct ResponseParserConnectionTests {
    static let cases: [(String, String, Bool)] = [
        ("1.1 default", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true),
        ("1.1 close", "HTTP/1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\nContent-Length: 0\r\n\r\n", false),
        ("1.0 default", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false),
        ("1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true),
        (
            "1.0 keep-alive and close",
            "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false
        ),
        ("until close", "HTTP/1.1 200 OK\r\n\r\n", false),
        ("unreadable Connection", "HTTP/1.1 200 OK\r\nConnection: a b\r\nContent-Length: 0\r\n\r\n", false),
        ("204 keeps it", "HTTP/1.1 204 No Content\r\n\r\n", true),
        ("chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", true),
        // Framing in doubt: the next response could start anywhere, so none is read from it.
        (
            "Content-Length with chunked", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            false
        ),
        (
            "Content-Length with gzip, chunked",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\nContent-Length: 0\r\n\r\n", false
        ),
        ("204 with a length", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", false),
        ("204 with chunked", "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", false),
        ("204 with length 0", "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n", true),
        ("304 with the representation's length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n", true),
    ]

    @Test(arguments: cases)
    func reuseDecision(_ name: String, _ text: String, _ reusable: Bool) {
        var d = ResponseDriver()
        d.feed(text)
        #expect(d.heads.first?.connectionReusable == reusable, "\(name)")
    }

    @Test func endOfInputVerdicts() {
        func closed(_ text: String, methods: [String] = ["GET"]) -> ResponseDriver {
            var d = ResponseDriver(methods: methods)
            d.feed(text)
            d.close()
            return d
        }
        #expect(closed("").failure?.kind == .noResponse)
        #expect(closed("", methods: []).records.isEmpty)
        #expect(
            closed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").records == [
                .head(closed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").heads[0]), .end,
            ]
        )
        #expect(closed("HTTP/1.1 200 OK\r\nContent-").failure?.kind == .truncated)
        #expect(closed("\r\n").failure?.kind == .truncated)
        #expect(closed("HTTP/1.1 100 Continue\r\n\r\n").failure?.kind == .truncated)
        let short = closed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        #expect(short.failure == ResponseParseError(.truncated, "upstream closed mid-body"))
        #expect(short.body == bytes("abc"))
        #expect(closed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n").failure?.kind == .truncated)
        #expect(
            closed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n").failure?.kind == .truncated
        )
    }
}

@Suite struct ResponseParserRejectsTests {
    static let cases: [(String, String, ResponseParseError.Kind)] = [
        (
            "differing Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
            .malformed
        ),
        ("listed differing Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 3, 4\r\n\r\nabcd", .malformed),
        ("signed Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\nabc", .malformed),
        ("empty Content-Length", "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", .malformed),
        ("overflowing Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", .malformed),
        ("invalid Content-Length on a 304", "HTTP/1.1 304 Not Modified\r\nContent-Length: x\r\n\r\n", .malformed),
        ("chunked twice", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .malformed),
        ("coding with a parameter", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked;q=1\r\n\r\n", .malformed),
        ("empty Transfer-Encoding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: ,\r\n\r\n", .malformed),
        ("four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", .malformed),
        ("two-digit status", "HTTP/1.1 20 OK\r\n\r\n", .malformed),
        ("status below 100", "HTTP/1.1 099 Odd\r\n\r\n", .malformed),
        ("status above 599", "HTTP/1.1 600 Odd\r\n\r\n", .malformed),
        ("status with a letter", "HTTP/1.1 2x0 OK\r\n\r\n", .malformed),
        ("no status", "HTTP/1.1\r\n\r\n", .malformed),
        ("two spaces before the status", "HTTP/1.1  200 OK\r\n\r\n", .malformed),
        ("HTTP/2.0", "HTTP/2.0 200 OK\r\n\r\n", .malformed),
        ("lowercase version", "http/1.1 200 OK\r\n\r\n", .malformed),
        ("not HTTP", "ICY 200 OK\r\n\r\n", .malformed),
        ("HTTP/0.9 body", "<html>hello</html>\r\n", .malformed),
        ("control in reason", "HTTP/1.1 200 O\u{1}K\r\n\r\n", .malformed),
        ("NUL in value", "HTTP/1.1 200 OK\r\nX: a\u{0}b\r\n\r\n", .malformed),
        ("bare CR in value", "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", .malformed),
        ("bare CR ending a line", "HTTP/1.1 200 OK\rX: 1\r\n\r\n", .malformed),
        ("control in value", "HTTP/1.1 200 OK\r\nX: a\u{7F}\r\n\r\n", .malformed),
        ("control in a folded line", "HTTP/1.1 200 OK\r\nX: a\r\n b\u{1}\r\n\r\n", .malformed),
        ("space before colon", "HTTP/1.1 200 OK\r\nTransfer-Encoding : chunked\r\n\r\n", .malformed),
        ("name not a token", "HTTP/1.1 200 OK\r\nX(y): 1\r\n\r\n", .malformed),
        ("line without colon", "HTTP/1.1 200 OK\r\nJunk\r\n\r\n", .malformed),
        ("whitespace before the first field", "HTTP/1.1 200 OK\r\n X: 1\r\n\r\n", .malformed),
        ("chunk size not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .malformed),
        ("chunk size 0x", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", .malformed),
        ("chunk size negative", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .malformed),
        (
            "chunk size of 16 hex digits", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n",
            .malformed
        ),
        (
            "chunk line with bare LF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
            .malformed
        ),
        (
            "chunk data without CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n",
            .malformed
        ),
        (
            "chunk data with bare LF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\n0\r\n\r\n",
            .malformed
        ),
        (
            "malformed chunk extension",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;=x\r\nabc\r\n0\r\n\r\n", .malformed
        ),
        (
            "space after chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n",
            .malformed
        ),
        (
            "malformed trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer: x\r\n\r\n",
            .malformed
        ),
        ("2xx to CONNECT", "HTTP/1.1 200 Connection Established\r\n\r\n", .malformed),
    ]

    @Test(arguments: cases)
    func rejected(_ name: String, _ text: String, _ kind: ResponseParseError.Kind) {
        let d = ResponseDriver.everyWay(text, methods: [name == "2xx to CONNECT" ? "CONNECT" : "GET"])
        #expect(d.failure?.kind == kind, "\(name): \(d.records)")
    }

    @Test func responseWithNoRequestOutstanding() {
        let d = ResponseDriver.everyWay(
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        )
        #expect(d.heads.count == 1)
        #expect(d.failure?.reason == "a response with no request outstanding")
    }

    @Test func failureIsSticky() {
        var d = ResponseDriver()
        d.feed("HTTP/1.1 200 OK\r\nX: a\u{0}\r\n\r\n")
        let error = d.failure
        #expect(error != nil)
        d.parser.expectResponse(toMethod: "GET")
        let (event, consumed) = bytes("HTTP/1.1 200 OK\r\n\r\n").withUnsafeBufferPointer { d.parser.parse($0) }
        #expect(consumed == 0 && event == .failure(error!))
        #expect(d.parser.endOfInput() == .failure(error!))
    }

    @Test func limits() {
        let limits = ResponseParserLimits(
            maxHeadBytes: 200,
            maxHeaderCount: 4,
            maxChunkLineBytes: 16,
            maxTrailerBytes: 32,
            maxInformational: 2
        )
        func verdict(_ text: String) -> ResponseParseError? { ResponseDriver.everyWay(text, limits: limits).failure }
        #expect(verdict("HTTP/1.1 200 OK\r\nX: \(String(repeating: "v", count: 300))\r\n\r\n")?.kind == .tooLarge)
        #expect(verdict(String(repeating: "\r\n", count: 101) + "HTTP/1.1 200 OK\r\n\r\n")?.kind == .tooLarge)
        #expect(verdict("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n")?.kind == .tooLarge)
        #expect(verdict("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nContent-Length: 0\r\n\r\n") == nil)
        #expect(
            verdict("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;\(String(repeating: "a", count: 20))\r\n")?
                .kind == .tooLarge
        )
        #expect(
            verdict("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;aaaaaaaaaaaaaa\r\nx\r\n0\r\n\r\n") == nil
        )
        #expect(
            verdict(
                """
                HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: \
                \(String(repeating: "t", count: 40))\r\n\r\n
                """
            )?.kind == .tooLarge
        )
        #expect(
            verdict("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n")?.kind
                == .tooLarge
        )
    }
}

/// Regressions found by the libFuzzer target (scripts/fuzz response).
@Suite struct ResponseParserFuzzRegressionTests {
    /// A 204 is a 2xx: as an answer to CONNECT it opens a tunnel (RFC 9110 §9.3.6) like a 200,
    /// so it is refused too, not read as a bodiless response.
    @Test(arguments: [200, 204, 299])
    func anyTwoHundredToConnectIsRefused(_ status: Int) {
        let d = ResponseDriver.everyWay("HTTP/1.1 \(status) X\r\nContent-Length: 10\r\n\r\n", methods: ["CONNECT"])
        #expect(d.failure?.reason.contains("CONNECT") == true, "\(status): \(d.records)")
    }
}

extension ResponseParserLeniencyTests {
    /// Unfolding appends in place: a head made of thousands of folded lines parses in linear time.
    @Test func manyFoldedLinesAreLinear() throws {
        let folds = String(repeating: " a\r\n", count: 16_000)
        let clock = ContinuousClock()
        var d = ResponseDriver()
        let elapsed = clock.measure { d.feed("HTTP/1.1 200 OK\r\nX: start\r\n" + folds + "Content-Length: 0\r\n\r\n") }
        let value = try #require(d.heads.first?.headers["X"])
        #expect(value.utf8.count == 5 + 16_000 * 2)
        #expect(elapsed < .seconds(2))
    }
}
