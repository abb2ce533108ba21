import Testing

@testable import HTTP1

/// The parser takes a plain origin-form target (a path with no query, `%` or dot segment) as
/// its own path without `RequestTarget.parse`: both routes must give the same request.
@Suite struct PlainTargetTests {
    @Test func theShortcutAgreesWithTheTargetParser() throws {
        let targets = [
            "/", "/v1/bench", "/a/b/", "/a.b/c.", "/a/.hidden", "/a/./b", "/a/../b", "/.", "/..", "/a%20b",
            "/a?x=1", "/a?", "/?", "//double//slash", "/caf%C3%A9", "/a/b.json", "/~user/-_", "/a;b=c/d",
        ]
        for target in targets {
            let d = ParserDriver.parse("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
            let parsed = try #require(d.requests.first, "\(target)")
            let reference = try IncomingRequest.make(
                method: "GET",
                target: target,
                headers: HeaderFields(),
                body: [],
                peer: "",
                authority: nil
            )
            #expect(parsed.path == reference.path, "\(target)")
            #expect(parsed.rawQuery == reference.rawQuery, "\(target)")
            #expect(parsed.queryItems == reference.queryItems, "\(target)")
            let plain = Array(target.utf8).withUnsafeBufferPointer { RequestTarget.isPlainOriginPath($0) }
            #expect(!plain || parsed.path == target, "\(target)")
        }
    }

    @Test func connectWithAPathIsStillRefused() {
        var limits = HTTPParserLimits()
        limits.acceptsConnect = true
        #expect(ParserDriver.parse("CONNECT /plain HTTP/1.1\r\nHost: h\r\n\r\n", limits: limits).failure?.status == 400)
        #expect(ParserDriver.parse("CONNECT /plain HTTP/1.1\r\nHost: h\r\n\r\n").failure?.status == 400)
    }
}
