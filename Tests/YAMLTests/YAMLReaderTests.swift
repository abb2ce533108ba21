import JSON
@testable import YAML
import XCTest

final class YAMLReaderTests: XCTestCase {
    private func read(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSONNode {
        do {
            return try YAMLReader.parse(text)
        } catch {
            XCTFail("refused: \(error)", file: file, line: line)
            throw error
        }
    }

    private func json(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        JSONSerializer.string(try read(text, file: file, line: line))
    }

    private func p(_ line: Int, _ column: Int) -> SourcePosition { SourcePosition(line: line, column: column) }

    /// Each refusal: the text, where, and a fragment of the message.
    private func assertRefused(
        _ cases: [(String, Int, Int, String)],
        file: StaticString = #filePath,
        line: UInt = #line
    ) {
        for (text, errorLine, column, fragment) in cases {
            do {
                let node = try YAMLReader.parse(text)
                XCTFail("accepted \(text.debugDescription) as \(JSONSerializer.string(node))", file: file, line: line)
            } catch {
                XCTAssertEqual(
                    error.position,
                    p(errorLine, column),
                    "\(text.debugDescription): \(error.message)",
                    file: file,
                    line: line
                )
                XCTAssertTrue(
                    error.message.contains(fragment),
                    "\(text.debugDescription): \(error.message)",
                    file: file,
                    line: line
                )
            }
        }
    }

    // MARK: constructs, with positions

    func testBlockMappingKeepsOrderAndPositions() throws {
        let node = try read("b: 1\na:\n  c: x  # comment\n  d: [1, 2]\n")
        XCTAssertEqual(JSONSerializer.string(node), #"{"b":1,"a":{"c":"x","d":[1,2]}}"#)
        XCTAssertEqual(node.position, p(1, 1))
        XCTAssertEqual(node.members?.map(\.keyPosition), [p(1, 1), p(2, 1)])
        XCTAssertEqual(node["b"]?.position, p(1, 4))
        XCTAssertEqual(node["a"]?.position, p(3, 3))
        XCTAssertEqual(node["a"]?.members?[1].keyPosition, p(4, 3))
        XCTAssertEqual(node["a"]?["d"]?.position, p(4, 6))
        XCTAssertEqual(node["a"]?["d"]?.elements?[1].position, p(4, 10))
    }

    func testBlockSequencesIncludingCompactForms() throws {
        let node = try read("- a\n- - b\n  - c\n- k: v\n  j: w\n-\n  m: n\n-\n")
        XCTAssertEqual(
            JSONSerializer.string(node),
            #"[["a"][0],["b","c"],{"k":"v","j":"w"},{"m":"n"},null]"#.replacingOccurrences(
                of: #"["a"][0]"#,
                with: #""a""#
            )
        )
        XCTAssertEqual(node.position, p(1, 1))
        XCTAssertEqual(node.elements?[1].position, p(2, 3))
        XCTAssertEqual(node.elements?[1].elements?[1].position, p(3, 5))
        XCTAssertEqual(node.elements?[2].position, p(4, 3))
        XCTAssertEqual(node.elements?[2].members?[1].keyPosition, p(5, 3))
        XCTAssertEqual(node.elements?[4].position, p(8, 2))
    }

    func testSequenceAsMappingValueAtTheKeysIndentation() throws {
        XCTAssertEqual(try json("tags:\n- a\n- b\nnext: 1\n"), #"{"tags":["a","b"],"next":1}"#)
        XCTAssertEqual(try read("tags:\n- a\n")["tags"]?.position, p(2, 1))
    }

    func testFlowCollections() throws {
        let node = try read("{a: 1, b: [x, y], \"c\":2, d, e: }")
        XCTAssertEqual(JSONSerializer.string(node), #"{"a":1,"b":["x","y"],"c":2,"d":null,"e":null}"#)
        XCTAssertEqual(node["b"]?.position, p(1, 11))
        XCTAssertEqual(node["b"]?.elements?[1].position, p(1, 15))
        XCTAssertEqual(node.members?[2].keyPosition, p(1, 19))
        XCTAssertEqual(try json("[a: 1, b, [c], ]"), #"[{"a":1},"b",["c"]]"#)
        XCTAssertEqual(try json("k: [a,\n  b,\n  {c: d}\n  ]\n"), #"{"k":["a","b",{"c":"d"}]}"#)
        XCTAssertEqual(try json("{url: http://x.org/a?b=c#d, t: a:b}"), #"{"url":"http://x.org/a?b=c#d","t":"a:b"}"#)
    }

    func testPlainScalarsFoldOverLines() throws {
        XCTAssertEqual(try json("a: one\n  two\n\n  three\nb: x # not part\n"), #"{"a":"one two\nthree","b":"x"}"#)
        XCTAssertEqual(try json("- a - b\n  - c\n"), #"["a - b - c"]"#)
    }

    func testQuotedScalars() throws {
        let node = try read(
            #"""
            s: 'it''s #1'
            d: "tab\tq\"u\u00e9\U0001F600\x41\/\N\_\L\P\0\e"
            f: "a
              b

              c \
              d"
            g: 'x
              y'
            """#
        )
        XCTAssertEqual(node["s"]?.string, "it's #1")
        XCTAssertEqual(node["d"]?.string, "tab\tq\"ué😀A/\u{85}\u{A0}\u{2028}\u{2029}\0\u{1B}")
        XCTAssertEqual(node["f"]?.string, "a b\nc d")
        XCTAssertEqual(node["g"]?.string, "x y")
        XCTAssertEqual(node["f"]?.position, p(3, 4))
        XCTAssertEqual(try read(#"k: "\ud83d\ude00""#)["k"]?.string, "😀")
    }

    func testBlockScalarsWithChompingAndIndentation() throws {
        let node = try read(
            """
            lit: |
              a
                b

              c
            fold: >
              a
              b

              c
                d
              e
            strip: |-
              x

            keep: |+
              x


            clip: |
              x


            explicit: |2
               y
            empty: |
            last: >-
              z
            """
        )
        XCTAssertEqual(node["lit"]?.string, "a\n  b\n\nc\n")
        XCTAssertEqual(node["fold"]?.string, "a b\nc\n  d\ne\n")
        XCTAssertEqual(node["strip"]?.string, "x")
        XCTAssertEqual(node["keep"]?.string, "x\n\n\n")
        XCTAssertEqual(node["clip"]?.string, "x\n")
        XCTAssertEqual(node["explicit"]?.string, " y\n")
        XCTAssertEqual(node["empty"]?.string, "")
        XCTAssertEqual(node["last"]?.string, "z")
        XCTAssertEqual(node["lit"]?.position, p(1, 6))
        XCTAssertEqual(node.members?[2].keyPosition, p(13, 1))
    }

    func testCoreSchema() throws {
        let node = try read(
            """
            n: [~, null, Null, NULL, ]
            b: [true, True, TRUE, false, False, FALSE]
            i: [0, -12, +7, 007, 0o17, 0x1F, 0xff]
            f: [1.50, -.5, +1e3, 2.5E-2, 1., 6.02e+23]
            s: [yes, no, on, 1_000, 0x, 0o8, 1e, .5.5, "1", '2', true_]
            """
        )
        XCTAssertEqual(JSONSerializer.string(node["n"]!), "[null,null,null,null]")
        XCTAssertEqual(JSONSerializer.string(node["b"]!), "[true,true,true,false,false,false]")
        XCTAssertEqual(JSONSerializer.string(node["i"]!), "[0,-12,7,7,15,31,255]")
        XCTAssertEqual(JSONSerializer.string(node["f"]!), "[1.50,-0.5,1e3,2.5E-2,1,6.02e+23]")
        XCTAssertEqual(node["f"]?.elements?.map { $0.number?.value }, [1.5, -0.5, 1000, 0.025, 1, 6.02e23])
        XCTAssertEqual(
            node["s"]?.elements?.compactMap(\.string),
            ["yes", "no", "on", "1_000", "0x", "0o8", "1e", ".5.5", "1", "2", "true_"]
        )
    }

    func testKeysAreStringsAsWritten() throws {
        let node = try read("200: ok\n1.0: a\ntrue: b\nnull: c\n'quoted': d\n0x10: e\n")
        XCTAssertEqual(node.members?.map(\.key), ["200", "1.0", "true", "null", "quoted", "0x10"])
        XCTAssertEqual(node.members?[4].keyPosition, p(5, 1))
    }

    func testAnchorsAndAliases() throws {
        let node = try read(
            "base: &b {x: 1}\nuse: *b\nkey: &k name\n*k : v\nseq: &s\n  - 1\nagain: *s\nempty: &e\nnull again: *e\n"
        )
        XCTAssertEqual(
            JSONSerializer.string(node),
            #"""
            {"base":{"x":1},"use":{"x":1},"key":"name","name":"v","seq":[1],"again":[1],"empty":null,"null \#
            again":null}
            """#
        )
        XCTAssertEqual(node["use"]?.position, p(2, 6))
        XCTAssertEqual(node.members?[3].keyPosition, p(4, 1))
        // A redefined anchor: later aliases take the later value.
        XCTAssertEqual(try json("- &a 1\n- *a\n- &a 2\n- *a\n"), "[1,1,2,2]")
    }

    func testDocumentMarkersDirectiveAndBOM() throws {
        XCTAssertEqual(try json("%YAML 1.2\n---\na: 1\n...\n# trailing comment\n"), #"{"a":1}"#)
        XCTAssertEqual(try json("--- |\n  text\n"), #""text\n""#)
        XCTAssertEqual(try json("---\n"), "null")
        XCTAssertEqual(try json("\u{FEFF}a: 1"), #"{"a":1}"#)
        XCTAssertEqual(try read("\u{FEFF}a: é").members?.first?.value.position, p(1, 4))
        XCTAssertEqual(try json("a: 1\r\nb:\r\n  - x\r\n"), #"{"a":1,"b":["x"]}"#)
    }

    func testColumnsCountCharactersNotBytes() throws {
        let node = try read("é: [ü, 😀, x]\n")
        XCTAssertEqual(node["é"]?.elements?[2].position, p(1, 11))
        assertRefused([("é😀: [x, ]]", 1, 10, "unexpected ']'")])
    }

    func testATypicalOpenAPIDocument() throws {
        let yaml = """
            openapi: 3.0.3
            info:
              title: Pet store
              version: "1.0"
              description: >-
                A sample API
                for pets.
            paths:
              /pets/{petId}:
                get:
                  operationId: showPetById
                  tags: [pets]
                  parameters:
                    - name: petId
                      in: path
                      required: true
                      schema:
                        type: integer
                        format: int64
                  responses:
                    '200':
                      description: Expected response
                      content:
                        application/json:
                          schema:
                            $ref: '#/components/schemas/Pet'
                    default:
                      description: unexpected error
            components:
              schemas:
                Pet:
                  type: object
                  required: [id, name]
                  properties:
                    id: {type: integer, format: int64}
                    name: {type: string}
                    price: {type: number, minimum: 0.5, example: 1.50}
            """
        let node = try read(yaml)
        let expected = try JSONParser.parse(
            """
            {"openapi": "3.0.3",
             "info": {"title": "Pet store", "version": "1.0", "description": "A sample API for pets."},
             "paths": {"/pets/{petId}": {"get": {
                "operationId": "showPetById", "tags": ["pets"],
                "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer", \
            "format": "int64"}}],
                "responses": {
                  "200": {"description": "Expected response",
                          "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}},
                  "default": {"description": "unexpected error"}}}}},
             "components": {"schemas": {"Pet": {"type": "object", "required": ["id", "name"], "properties": {
                "id": {"type": "integer", "format": "int64"}, "name": {"type": "string"},
                "price": {"type": "number", "minimum": 0.5, "example": 1.50}}}}}}
            """
        )
        XCTAssertTrue(node.equals(expected), JSONSerializer.string(node))
        XCTAssertEqual(node.members?.map(\.key), ["openapi", "info", "paths", "components"])
        let responses = node.resolve(pointer: "/paths/~1pets~1{petId}/get/responses")
        XCTAssertEqual(responses?.members?.map(\.key), ["200", "default"])
        XCTAssertEqual(responses?.members?.first?.keyPosition, p(21, 9))
        XCTAssertEqual(node.resolve(pointer: "/components/schemas/Pet/properties/price/example")?.number?.text, "1.50")
        XCTAssertEqual(node.resolve(pointer: "/paths/~1pets~1{petId}/get/parameters/0")?.position, p(14, 11))
    }

    func testExplicitKeysWithScalarKeysRead() throws {
        // As Go's YAML library writes a long key (Temporal's OpenAPI document): the value after
        // ': ' may be a mapping or sequence on the same line.
        let paths = """
            paths:
              /short:
                get: {}
              ? /api/v1/namespaces/{namespace}/worker-deployment-versions/{deployment_version.build_id}/update
              : post:
                  tags:
                    - WorkflowService
                  operationId: Update
              /after: {}
            """
        XCTAssertEqual(
            try json(paths),
            #"{"paths":{"/short":{"get":{}},"# + #""/api/v1/namespaces/{namespace}/worker-deployment-versions/"#
                + #"{deployment_version.build_id}/update":"#
                + #"{"post":{"tags":["WorkflowService"],"operationId":"Update"}},"#
                + #""/after":{}}}"#
        )
        XCTAssertEqual(try json("? a\n? b\nc:\n"), #"{"a":null,"b":null,"c":null}"#)
        XCTAssertEqual(
            try json("? 0x1F\n: x\n? ~\n: y"),
            #"{"0x1F":"x","~":"y"}"#,
            "plain keys as written, as implicit ones"
        )
        XCTAssertEqual(try json("? 200\n: ok\n? 'quoted: yes'\n: - 1\n  - 2"), #"{"200":"ok","quoted: yes":[1,2]}"#)
        XCTAssertEqual(try json("? |\n  block\n: x"), #"{"block\n":"x"}"#)
        XCTAssertEqual(try json("? a\n  b\n# note\n: c\nd: e"), #"{"a b":"c","d":"e"}"#)
        let node = try read("m:\n  ? k\n  : v")
        XCTAssertEqual(node["m"]?.members?.first?.keyPosition, p(2, 5))
    }

    func testJSONReadsAsJSON() throws {
        let text =
            #"{"a": [1, 2.50, -3e2, true, false, null], "b": {"c": "x\u00e9\ud83d\ude00\n\/"}, "d": [], "e": {}}"#
        XCTAssertTrue(try read(text).equals(try JSONParser.parse(text)))
        XCTAssertEqual(try json("\t{\n\"k\" :\r\n[1\n,2]}"), #"{"k":[1,2]}"#)
    }

    // MARK: refusals, each with its position

    func testRefusedOutsideTheSubset() {
        assertRefused([
            ("a: !!str 1", 1, 4, "tags"),
            ("!foo a: 1", 1, 1, "tags"),
            ("%TAG ! tag:x,2000:\n--- a", 1, 1, "%TAG"),
            ("%FOO bar\n--- a", 1, 1, "unknown directive %FOO"),
            ("%YAML 2.0\n--- a", 1, 7, "version 2.0"),
            ("%YAML 1.2\n%YAML 1.2\n--- a", 2, 1, "second %YAML"),
            ("%YAML 1.2\na: 1", 2, 1, "must be followed by '---'"),
            ("{? a: b}", 1, 2, "explicit keys ('? ') inside [ ] or { } are not supported"),
            ("? - a\n  - b\n: c", 1, 3, "an explicit key ('? ') must be a string, number or boolean, not a collection"),
            (
                "k:\n  ? {a: 1}\n  : c", 2, 5,
                "an explicit key ('? ') must be a string, number or boolean, not a collection"
            ),
            ("? x: 1\n: c", 1, 3, "an explicit key ('? ') must be a string, number or boolean, not a collection"),
            ("?\n: c", 1, 1, "an explicit key ('? ') needs a key after it"),
            ("? a\n: b\na: c", 3, 1, "duplicate key \"a\""),
            ("[a, b]: c", 1, 1, "must be a string, number or boolean"),
            ("{[a]: b}", 1, 2, "must be a string, number or boolean"),
            (": a", 1, 1, "key is missing"),
            ("{: a}", 1, 2, "key is missing"),
            ("a: 1\n---\nb: 2", 2, 1, "second document"),
            ("a: 1\n...\nb: 2", 3, 1, "second document"),
            ("", 1, 1, "no YAML document"),
            ("# only a comment\n", 2, 1, "no YAML document"),
            ("a: .inf", 1, 4, "infinity"),
            ("a: [-.Inf]", 1, 5, "infinity"),
            ("a: .nan", 1, 4, "not a number"),
            ("a: 0x10000000000000000", 1, 4, "too large"),
            ("<<: *base", 1, 1, "merge keys"),
        ])
    }

    func testRefusedSyntaxErrors() {
        assertRefused([
            ("a: 1\na: 2", 2, 1, "duplicate key \"a\" in this mapping (it is first at 1:1)"),
            ("{a: 1, 'a': 2}", 1, 8, "duplicate key"),
            ("a:\n\tb: 1", 2, 1, "tab is used as indentation"),
            ("a:\n  \tb: 1", 2, 4, "tab is used as indentation"),
            ("- \t- a", 1, 4, "tab is used as indentation"),
            ("foo: |\n\t\nbar: 1", 2, 1, "tab in the indentation"),
            ("a: *nothing", 1, 4, "refers to no anchor"),
            ("y: &y 1\na: &x *y", 2, 4, "an alias cannot have an anchor"),
            ("y: &y 1\na: &x\n  *y", 2, 4, "an alias cannot have an anchor"),
            ("a: &x [*x]", 1, 8, "refers to no anchor"),
            ("a: &x &y 1", 1, 7, "only one anchor"),
            ("a: b: c", 1, 4, "a mapping cannot start on the same line"),
            ("a: - b", 1, 4, "a block sequence cannot start on the same line"),
            ("--- a: b", 1, 5, "a mapping cannot start on the same line"),
            ("a: 1\n b: 2", 2, 3, "a mapping key must be on one line"),
            ("a:\n  b: 1\n   c: 2", 3, 5, "a mapping key must be on one line"),
            ("- a\nb: c", 2, 1, "after the end of the document's root value"),
            ("a: 1\n- b", 2, 1, "sequence entry ('- ') where a mapping key was expected"),
            ("a: 1\nb", 2, 2, "expected ':' after the key \"b\""),
            ("a: \"x\" y", 1, 8, "unexpected 'y' after the value"),
            ("a: \"x\"#c", 1, 7, "needs a space before '#'"),
            ("a: \"unclosed", 1, 13, "starts at 1:4 is not closed"),
            ("a: 'unclosed\n  still", 2, 8, "starts at 1:4 is not closed"),
            ("a: \"x\ny\"", 2, 1, "must be indented more"),
            ("a: \"x\n---\ny\"", 2, 1, "document marker inside the quoted string"),
            ("a: \"\\q\"", 1, 5, "unknown escape"),
            ("a: \"\\x4\"", 1, 5, "2 hex digits"),
            ("a: \"\\ud800\"", 1, 5, "low surrogate"),
            ("a: \"\\U00110000\"", 1, 5, "beyond the last Unicode character"),
            ("a: [1, 2", 1, 9, "starts at 1:4 is not closed"),
            ("a: [\"x\" y]", 1, 9, "expected ',' or ']'"),
            ("a: {b: \"1\" c}", 1, 12, "expected ',' or '}'"),
            ("a: [1,\n2]", 2, 1, "must be indented more"),
            ("[a,\n---\n]", 2, 1, "document marker"),
            ("[a, , b]", 1, 5, "expected a value before ','"),
            ("{a:[1]}", 1, 4, "expected a space after ':'"),
            ("[- a]", 1, 2, "cannot be used inside a flow collection"),
            ("[|\n a]", 1, 2, "block scalar"),
            ("a: |0\n  x", 1, 5, "from 1 to 9"),
            ("a: |x\n  x", 1, 5, "in the block scalar header"),
            ("a: |\n   \n  x", 2, 4, "more than its first line"),
            ("a: @b", 1, 4, "reserved"),
            ("a: %b", 1, 4, "directive"),
            ("a: `b", 1, 4, "reserved"),
            ("a\u{1}: b", 1, 2, "control character 0x01"),
            ("a: b\n\u{7}", 2, 1, "control character"),
            ("...\n", 1, 1, "before any document"),
        ])
        // Bytes that are not UTF-8, and an alias of a collection as a key.
        do {
            _ = try YAMLReader.parse(Array("a: ".utf8) + [0xC3, 0x28])
            XCTFail("invalid UTF-8 accepted")
        } catch {
            XCTAssertEqual(error.position, p(1, 4))
            XCTAssertTrue(error.message.contains("invalid UTF-8"), error.message)
        }
        assertRefused([("a: &x [1]\n*x : b", 2, 1, "stands for a collection")])
    }

    func testErrorsDescribeThemselves() {
        XCTAssertEqual(YAMLSyntaxError(position: p(2, 3), message: "m").description, "line 2, column 3: m")
    }

    // MARK: limits

    func testNestingDepthIsBoundedLikeJSON() throws {
        let depth = YAMLReader.maximumDepth
        XCTAssertNoThrow(
            try YAMLReader.parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        )
        assertRefused([
            (
                String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1), 1, depth + 1,
                "nesting deeper than 512"
            )
        ])
        // Block nesting, compact ("- - - x") and indented.
        assertRefused([(String(repeating: "- ", count: depth + 1) + "x", 1, 2 * depth + 1, "nesting deeper")])
        var indented = ""
        for level in 0...depth { indented += String(repeating: " ", count: level) + "k:\n" }
        assertRefused([(indented, depth + 1, depth + 1, "nesting deeper")])
        // Through aliases: each alias adds the depth of what it stands for.
        let half = String(repeating: "[", count: 300) + String(repeating: "]", count: 300)
        assertRefused([
            (
                """
                a: &a \(half)\nb: &b [[[[*a]]]]\nc: \
                \(String(repeating: "[", count: 210))*b\(String(repeating: "]", count: 210))
                """,
                3, 214, "through the alias *b"
            )
        ])
    }

    func testBillionLaughsIsRefused() {
        var yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...9 {
            yaml +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        assertRefused([(yaml, 6, 45, "aliases expand to more than 1000000 values")])
        // A modest use of aliases is fine.
        XCTAssertNoThrow(try YAMLReader.parse("a: &a [1, 2]\nb: [*a, *a, *a]\n"))
    }

    func testLongLinesAndDeepIndentationStayLinear() throws {
        // Built to be slow if anything rescanned a line per value or an indentation per level.
        let long = "[" + Array(repeating: "abc", count: 100_000).joined(separator: ", ") + "]"
        XCTAssertEqual(try YAMLReader.parse(long).elements?.count, 100_000)
        let spaces = String(repeating: " ", count: 100_000)
        XCTAssertEqual(try YAMLReader.parse("a:\n" + spaces + "b\n" + spaces + "c\n").string, nil)
    }
}
