import XML
import Testing

/// The XML reader and its XPath subset (behind the Handlebars `xPath` helper): what request
/// bodies hold, errors with their place, the subset's selections and its refusals.
@Suite struct XMLReaderTests {
    @Test func theReaderReadsWhatRequestBodiesHold() throws {
        let root = try XMLReader.parse(
            """
            <?xml version="1.0"?>
            <!DOCTYPE order [<!ELEMENT order ANY>]>
            <!-- a comment -->
            <soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope/"><soap:Body>
              <m:a xmlns:m="urn:m"><m:test kind='x &amp; y'>success &lt;1&gt; \
            &#65;&#x42;</m:test><![CDATA[<raw>]]></m:a>
            </soap:Body></soap:Envelope>
            """
        )
        #expect(root.name == "soap:Envelope" && root.localName == "Envelope")
        let test = try XPathExpression("/Envelope/Body/a/test")
        guard case .element(let element)? = test.evaluate(root).first else {
            Issue.record("no test element")
            return
        }
        #expect(element.textContent == "success <1> AB")
        #expect(element.attribute("kind") == "x & y")
        #expect(element.xml == #"<m:test kind="x &amp; y">success &lt;1&gt; AB</m:test>"#)
        let cdata = try XPathExpression("//a/text()").evaluate(root)
        #expect(cdata.count == 1)
        if case .text(let text)? = cdata.first { #expect(text == "<raw>") }
    }

    @Test(arguments: [
        ("", "1:1: expected the root element"),
        ("<a>", "never closed"),
        ("<a></b>", "<a> is closed by </b>"),
        ("<a x=1/>", "an attribute value is quoted"),
        ("<a x='1' x='2'/>", "attribute \"x\" appears twice"),
        ("<a>&nbsp;</a>", "unknown entity &nbsp;"),
        ("<a>x & y</a>", "starts no reference"),
        ("<a/><b/>", "text after the root element"),
        ("<a>\n  <!-- open", "2:3: a comment is never closed"),
        (String(repeating: "<a>", count: 300), "nested more than 256 deep"),
    ])
    func malformedXMLIsAnErrorWithItsPlace(_ text: String, _ fragment: String) {
        #expect {
            _ = try XMLReader.parse(text)
        } throws: { error in
            (error as? XMLSyntaxError)?.description.contains(fragment) == true
        }
    }

    @Test(arguments: [
        ("/r/i", ["<i n=\"1\">a</i>", "<i n=\"2\">b</i>", "<i n=\"3\"><j>c</j></i>"]),
        ("/r/i[2]/text()", ["b"]),
        ("/r/i[last()]/j/text()", ["c"]),
        ("//j/..", ["<i n=\"3\"><j>c</j></i>"]),
        ("/r/i[@n='1']/@n", ["1"]),
        ("/r/i/@*", ["1", "2", "3"]),
        ("/r/*[j]/@n", ["3"]),
        ("/r/i[text()='b']/@n", ["2"]),
        ("//i[j='c']/@n", ["3"]),
        ("r/i[1]/text()", ["a"]),
        ("/r/missing", []),
    ])
    func xPathSelects(_ source: String, _ expected: [String]) throws {
        let root = try XMLReader.parse(#"<r><i n="1">a</i><i n="2">b</i><i n="3"><j>c</j></i></r>"#)
        let items = try XPathExpression(source).evaluate(root).map { item -> String in
            switch item {
            case .element(let e): return e.xml
            case .text(let t): return t
            case .attribute(_, let value): return value
            }
        }
        #expect(items == expected, "\(source)")
    }

    @Test(arguments: ["", "/", "/a[", "/a[0]", "/a/b()", "/a | /b", "count(/a)", "/a[@x=]", "/@text()"])
    func xPathOutsideTheSubsetIsRefused(_ source: String) {
        #expect(throws: XPathSyntaxError.self) { _ = try XPathExpression(source) }
    }
}
