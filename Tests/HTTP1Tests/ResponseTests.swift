import Testing
@testable import HTTP1

@Suite struct ResponseEncodingTests {
    @Test func preparedHeadHasStatusHeadersAndLength() {
        var h = HeaderFields()
        h.add("Content-Type", "application/json")
        h.add("Set-Cookie", "a=1")
        h.add("Set-Cookie", "b=2")
        let p = PreparedResponse(status: 201, headers: h, body: Array("{}".utf8))
        #expect(
            String(decoding: p.head, as: UTF8.self)
                == """
                HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nSet-Cookie: a=1\r\nSet-Cookie: \
                b=2\r\nContent-Length: 2\r\n
                """
        )
    }

    @Test func framingHeadersFromTheHandlerAreDropped() {
        var h = HeaderFields()
        h.add("content-length", "999")
        h.add("Transfer-Encoding", "chunked")
        h.add("Connection", "close")
        h.add("X-Keep", "yes")
        let p = PreparedResponse(status: 200, headers: h, body: [1, 2, 3])
        #expect(p.headers.count == 1)
        #expect(String(decoding: p.head, as: UTF8.self).contains("Content-Length: 3\r\n"))
        #expect(!String(decoding: p.head, as: UTF8.self).contains("999"))
    }

    @Test func noBodyNoLengthFor204And304And1xx() {
        for status in [101, 204, 304] {
            let p = PreparedResponse(status: status, body: [1, 2])
            #expect(p.body.isEmpty)
            #expect(!String(decoding: p.head, as: UTF8.self).contains("Content-Length"))
        }
    }

    @Test func headerValuesCannotSplitTheResponse() {
        var h = HeaderFields()
        h.add("X-Evil", "a\r\nInjected: yes")
        let p = PreparedResponse(status: 200, headers: h)
        #expect(!String(decoding: p.head, as: UTF8.self).contains("\r\nInjected"))
    }

    @Test func imfFixdate() {
        #expect(DateFormats.imfFixdate(epochSeconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(DateFormats.imfFixdate(epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(DateFormats.imfFixdate(epochSeconds: 1_709_210_096) == "Thu, 29 Feb 2024 12:34:56 GMT")
        #expect(DateFormats.imfFixdate(epochSeconds: 4_102_444_800) == "Fri, 01 Jan 2100 00:00:00 GMT")
    }

    @Test func headersLookupIgnoresCaseAndKeepsOrder() {
        var h = HeaderFields([("Accept", "a"), ("X-Y", "1"), ("x-y", "2")])
        #expect(h["ACCEPT"] == "a")
        #expect(h.values("X-y") == ["1", "2"])
        h.set("X-Y", "3")
        #expect(h.values("x-y") == ["3"])
        #expect(h.hasToken("A", in: "accept"))
    }
}

@Suite struct ReplacingBodyTests {
    @Test func onlyTheContentLengthLineChanges() {
        let original = PreparedResponse(
            status: 201,
            headers: HeaderFields([("Content-Type", "application/json"), ("X-A", "1")]),
            body: Array("{}".utf8)
        ).adding(HeaderFields([("X-Added", "2")]))
        let replaced = original.replacingBody(Array(#"{"id":"12345"}"#.utf8))
        #expect(
            String(decoding: replaced.head, as: UTF8.self)
                == """
                HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-A: 1\r\nContent-Length: \
                14\r\nX-Added: 2\r\n
                """
        )
        #expect(replaced.body == Array(#"{"id":"12345"}"#.utf8))
        let again = replaced.replacingBody([])
        #expect(String(decoding: again.head, as: UTF8.self).contains("\r\nContent-Length: 0\r\nX-Added: 2\r\n"))
    }

    @Test func derivedResponsesKeepTheStatusAndWhetherTheHeadCarriesDateAndServer() {
        // The parts live in one shared object since 2fe61eb; what a derived response passes on
        // is set once, at construction, and must survive `adding` and `replacingBody`.
        let relayed = PreparedResponse(
            status: 502,
            reason: "Bad Gateway",
            headers: HeaderFields([("Date", "x"), ("Server", "up")]),
            body: Array("no".utf8),
            keepingDateAndServer: true
        )
        let derived = relayed.adding(HeaderFields([("X-Added", "1")])).replacingBody(Array("later".utf8))
        #expect(relayed.carriesDateAndServer && derived.carriesDateAndServer)
        #expect(derived.status == 502 && derived.headers["Server"] == "up" && derived.headers["X-Added"] == "1")
        #expect(String(decoding: derived.head, as: UTF8.self).contains("\r\nContent-Length: 5\r\n"))
        let own = PreparedResponse(status: 200, body: Array("ok".utf8)).adding(HeaderFields([("X-A", "1")]))
            .replacingBody([])
        #expect(!own.carriesDateAndServer && own.status == 200 && own.body.isEmpty)
    }

    @Test func aStatusWithoutABodyStaysWithoutOne() {
        let noContent = PreparedResponse(status: 204)
        #expect(noContent.replacingBody(Array("x".utf8)).body.isEmpty)
        #expect(
            !String(decoding: noContent.replacingBody(Array("x".utf8)).head, as: UTF8.self).contains("Content-Length")
        )
    }
}
