import Testing
@testable import HTTP1

/// The allocation-free helpers the parsers and the proxy use on every message: they must agree
/// with the plain forms they replaced.
@Suite struct FieldListElementsTests {
    @Test(arguments: [
        "", ",", " , ", "a", "a,b", " a ,\tb\t, ", "keep-alive, Upgrade", "a,,b", ",a", "a,", "\t",
        "caf\u{E9}, \u{E9}\u{301},x",
        "5, 5", "  chunked  ",
    ])
    func elementsAreTheTrimmedSplit(_ value: String) {
        let expected = value.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingOWS() }.map(
            String.init
        )
        #expect(Array(FieldListElements(value)).map(String.init) == expected)
    }

    /// Every field of the name (any case) in arrival order, element by element, as the plain
    /// form over `values(_:)` gives them; other fields untouched.
    @Test func listElementsSpanEveryFieldOfTheName() {
        let headers = HeaderFields([
            ("Connection", "keep-alive, Upgrade"), ("X-Other", "a, b"), ("connection", " ,close"),
            ("CONNECTION", ""),
        ])
        let expected = headers.values("Connection").flatMap { Array(FieldListElements($0)) }
        #expect(Array(headers.listElements("Connection")) == expected)
        #expect(Array(headers.listElements("Connection")) == ["keep-alive", "Upgrade", "", "close", ""])
        #expect(Array(headers.listElements("Transfer-Encoding")).isEmpty)
        #expect(Array(HeaderFields().listElements("Connection")).isEmpty)
    }

    @Test func elementsComeBackAsTheyWereWritten() {
        #expect(Array(FieldListElements("Keep-Alive,  X-Foo ")) == ["Keep-Alive", "X-Foo"])
        #expect(Array(FieldListElements("")) == [""])
        // By bytes, as the RFC's grammar is: a space before a combining mark is whitespace
        // still (trimming by Characters kept " \u{301}" whole, one grapheme).
        #expect(Array(FieldListElements(", \u{301}")) == ["", "\u{301}"])
    }

    @Test(arguments: [0, 7, 10, 99, 100, 204, 65_535, 1_000_000_007, -1, -250, Int.max, Int.min])
    func decimalsAreTheirDescription(_ value: Int) {
        var out = Array("x".utf8)
        out.appendDecimal(value)
        #expect(String(decoding: out, as: UTF8.self) == "x\(value)")
    }

    @Test func substringAndStringCompareIgnoringASCIICaseOnly() {
        let list = "Keep-Alive, UPGRADE, caf\u{C9}"
        let elements = Array(FieldListElements(list))
        #expect(asciiCaseInsensitiveEquals(elements[0], "keep-alive"))
        #expect(asciiCaseInsensitiveEquals(elements[1], "upgrade"))
        #expect(!asciiCaseInsensitiveEquals(elements[1], "upgrad"))
        // Only ASCII letters fold: É is not é.
        #expect(!asciiCaseInsensitiveEquals(elements[2], "caf\u{E9}"))
        #expect(asciiCaseInsensitiveEquals(elements[2], "CAF\u{C9}"))
        #expect(!asciiCaseInsensitiveEquals(Substring("a["), "A{"))
    }

    @Test func tokensAreFoundInEveryFieldOfTheName() {
        let headers = HeaderFields([("Connection", "keep-alive"), ("connection", " Upgrade ,close")])
        #expect(headers.hasToken("close", in: "Connection"))
        #expect(headers.hasToken("upgrade", in: "CONNECTION"))
        #expect(!headers.hasToken("clos", in: "Connection"))
        #expect(!headers.hasToken("", in: "Connection"))
        // Empty list elements name nothing, as before (the split it replaced dropped them).
        #expect(!HeaderFields([("Connection", "close,, ,")]).hasToken("", in: "Connection"))
    }

    /// The name scan that answers first when no field has the name (the common request).
    @Test func noFieldOfTheNameMeansNoTokenAndContainsFoldsCase() {
        let headers = HeaderFields([("Host", "x"), ("Accept", "close")])
        #expect(!headers.hasToken("close", in: "Connection"), "a token in another field does not count")
        #expect(!HeaderFields().hasToken("close", in: "Connection"))
        #expect(headers.contains("HOST") && headers.contains("accept") && !headers.contains("Acceptx"))
        #expect(HeaderFields([("Host", "x"), ("CONNECTION", "Close")]).hasToken("close", in: "connection"))
    }

    @Test func authoritiesFromNonContiguousBytesAreCheckedTheSame() {
        for (text, valid) in [
            ("h:80", true), ("[::1]:8080", true), ("a b", false), ("h:0", false), ("h:65536", false), ("", true),
        ] {
            #expect(Authority.isValid(text.utf8, allowEmptyHost: true) == valid, "\(text)")
            // A lazy collection has no contiguous storage: the copying path.
            #expect(Authority.isValid(text.utf8.lazy.map { $0 }, allowEmptyHost: true) == valid, "\(text) (lazy)")
        }
    }
}
