import JSON
import JSONPath
import Testing

/// JSONPath as Jayway evaluates it (the dialect of WireMock's matchesJsonPath and jsonPath
/// helper), on Goessner's store example, with the edge cases spelled out.
@Suite struct JSONPathTests {
    static let store = try! JSONParser.parse(
        """
        {"store": {"book": [
            {"category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century", "price": 8.95},
            {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour", "price": 12.99},
            {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553-21311-3", \
        "price": 8.99},
            {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings", "isbn": \
        "0-395-19395-8", "price": 22.99}
          ],
          "bicycle": {"color": "red", "price": 19.95}},
         "expensive": 10, "empty": [], "nothing": {}, "nil": null, "flag": false, "count": "3"}
        """
    )

    /// The compact JSON of what a path selects: a definite path's value, an indefinite path's
    /// list as an array, or "missing".
    func select(_ path: String, in document: JSONNode = store) throws -> String {
        switch try JSONPath(path).evaluate(document) {
        case .missing: return "missing"
        case .value(let node): return JSONSerializer.string(node)
        case .list(let nodes): return JSONSerializer.string(.array(nodes))
        }
    }

    @Test(arguments: [
        ("$.store.bicycle.color", "\"red\""),
        ("$['store']['bicycle']['price']", "19.95"),
        ("$.store.book[0].author", "\"Nigel Rees\""),
        ("$.store.book[-1].title", "\"The Lord of the Rings\""),
        ("$.store.book[9].title", "missing"),
        ("$.nope", "missing"),
        ("$.nil", "null"),
        ("$.store.book[*].author", #"["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]"#),
        ("$.store.book[0,2].price", "[8.95,8.99]"),
        ("$.store.book[1:3].price", "[12.99,8.99]"),
        ("$.store.book[-2:].price", "[8.99,22.99]"),
        ("$.store.book[:2].price", "[8.95,12.99]"),
        ("$..author", #"["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]"#),
        ("$.store..price", "[8.95,12.99,8.99,22.99,19.95]"),
        ("$.store.*.color", #"["red"]"#),
        ("$['store']['bicycle']['color','price']", #"{"color":"red","price":19.95}"#),
        ("$.store['bicycle','nope'].color", #"["red"]"#),
        ("$.[?(@.expensive == 10)].count", #"["3"]"#),
        ("$.['store'].bicycle.color", "\"red\""),
        ("store.bicycle.color", "\"red\""),
        ("['store']['bicycle'].color", "\"red\""),
        (#"concat("/", $.store.bicycle.color)"#, "\"/red\""),
        ("$.store.book[1:-1].price", "[]"),
        ("$.store.book[-3:-1].price", "[12.99,8.99]"),
        ("$.store.book[?(@.count === '3')]", "[]"),
        ("$[?(@.count === '3')].expensive", "[10]"),
        ("$[?(@.count !== 3)].expensive", "[10]"),
        (
            """
            $[?(@.store.book[0] == {'category': 'reference', 'author': 'Nigel Rees', 'title': 'Sayings of the \
            Century', 'price': 8.95})].expensive
            """,
            "[10]"
        ),
        ("$.store.book[?(@.price =~ /^8.*/)].price", "[8.95,8.99]"),
        ("$.store.book[?(@.missing =~ /.+/)].price", "[]"),
        ("$.store.book[?(@.title =~ /moby.*/i)].price", "[8.99]"),
        ("$.store.book[?(@.price > 9 && !(@.price > 20))].price", "[12.99]"),
        ("$.store.book.first().title", "\"Sayings of the Century\""),
        ("$.store.book.index(-2).title", "\"Moby Dick\""),
        ("$.store.book.index(4)", "missing"),
        ("$.store.book[:1].last()", "[]"),
        ("$.store.bicycle.concat($.count, 7, \"x\")", "\"37x\""),
        ("$.empty.append(1, \"a\", {\"b\": 2})", #"[1,"a",{"b":2}]"#),
        ("$.nothing.keys()", "[]"),
        ("$.store.keys()", #"["book","bicycle"]"#),
        ("$.store.book[*].price.sum()", "[]"),
        ("$..price.sum()", "73.87"),
        ("$..price.avg()", "14.774000000000001"),
        ("$.store.book[?(@.price > $..price.avg())].price", "[22.99]"),
        ("$.store.book[?(@.isbn)].title", #"["Moby Dick","The Lord of the Rings"]"#),
        ("$.store.book[?(!@.isbn)].price", "[8.95,12.99]"),
        ("$.store.book[?(@.price < 10)].price", "[8.95,8.99]"),
        ("$.store.book[?(@.price <= $.expensive && @.category == 'fiction')].title", #"["Moby Dick"]"#),
        ("$.store.book[?(@.price > 20 || @.author == \"Nigel Rees\")].price", "[8.95,22.99]"),
        ("$.store.book[?(@.author =~ /.*melville/i)].price", "[8.99]"),
        ("$.store.book[?(@.category in ['reference', 'poetry'])].price", "[8.95]"),
        ("$.store.book[?(@.category nin ['fiction'])].price", "[8.95]"),
        ("$.store.book[?(@.title size 9)].title", #"["Moby Dick"]"#),
        ("$.store.book[?(@.isbn != '0-553-21311-3')].price", "[8.95,12.99,22.99]"),
        ("$.store.book[?(@.price == '8.95')].title", #"["Sayings of the Century"]"#),
        ("$.store.book.length()", "4"),
        ("$..price.max()", "22.99"),
        ("$..price.min()", "8.95"),
        ("$.empty.length()", "0"),
        ("$.store.bicycle[?(@.color == 'red')].price", "[19.95]"),
    ])
    func selects(_ path: String, _ expected: String) throws {
        #expect(try select(path) == expected, "\(path)")
    }

    @Test func definiteAndIndefinite() throws {
        for path in ["$.a.b[0]['c']", "$['a','b']", "$.a.length()", "$.a['b','c']", "$.max($..a)", "$..a.max()"] {
            #expect(try JSONPath(path).isDefinite, "\(path)")
        }
        for path in ["$.a[*]", "$..a", "$.a[0,1]", "$.a[1:2]", "$.a[?(@.b)]", "$['a','b'].c", "$.a[*].length()"] {
            #expect(try !JSONPath(path).isDefinite, "\(path)")
        }
    }

    /// WireMock's `"matchesJsonPath": "$.x"`: present, not null, not an empty array or object.
    @Test(arguments: [
        ("$.store", true), ("$.nope", false), ("$.nil", false), ("$.empty", false), ("$.nothing", false),
        ("$.flag", true), ("$.store.book[?(@.price > 100)]", false), ("$.store.book[?(@.price > 20)]", true),
    ])
    func presence(_ path: String, _ present: Bool) throws {
        #expect(try JSONPath(path).evaluate(Self.store).isPresentAndNotEmpty == present, "\(path)")
    }

    @Test(arguments: [
        ("", "starts with $"), ("$.", "after ."), ("$[", "expected a name in quotes"), ("$['a'", "expected ]"),
        ("$[?(@.a ==)]", "expected @, $"), ("$[?(@.a =~ /(a)\\2/)]", "invalid regular expression"),
        ("$.a.nope()", "unknown function"), ("$['unclosed]", "not closed"), ("$..", "after .."), ("$...a", "after .."),
        ("$[?(@.a", "expected )"), ("$[1:2:0]", "step"), ("$[:]", "a start or an end"), ("$[::2]", "a start or an end"),
        ("$.a.sum(1", "expected , or )"), ("$.a.sum(%)", "as an argument"), ("$[?(@.a =~ /x/q)]", "flag q"),
        ("$[?(@.a in [1,)]", "expected a string"), ("$[?(@.a == {'b' 1})]", "expected :"), ("$.a b", "unexpected"),
        ("$[?('a')]", "expected a comparison"),
    ])
    func refusesWithAReason(_ path: String, _ fragment: String) {
        #expect(throws: JSONPathError.self) { try JSONPath(path) }
        do {
            _ = try JSONPath(path)
        } catch {
            #expect(error.message.contains(fragment) || error.description.contains(fragment), "\(path): \(error)")
        }
    }

    /// The description gives the column (1-based) of the problem in the expression.
    @Test(arguments: [
        ("$.a[?(@.b == )]", 14), ("$.a.nope()", 5), ("$[?(@.a =~ /(a)\\2/)]", 16), ("$['a' 'b']", 7),
    ])
    func errorsNameTheColumn(_ path: String, _ column: Int) {
        do {
            _ = try JSONPath(path)
            Issue.record("\(path) compiled")
        } catch {
            #expect(error.description.hasSuffix("(at column \(column) of the expression)"), "\(path): \(error)")
        }
    }

    /// Java's `Double.toString`, which Jayway's numeric functions print through.
    @Test(arguments: [
        (4.0, "4.0"), (22.99, "22.99"), (0.001, "0.001"), (0.0001, "1.0E-4"), (1e7, "1.0E7"),
        (9_999_999.5, "9999999.5"),
        (-2.5, "-2.5"), (0.0, "0.0"), (-0.0, "-0.0"), (123_456_789.0, "1.23456789E8"), (1.5e-10, "1.5E-10"),
        (Double.leastNonzeroMagnitude, "4.9E-324"), (100.0, "100.0"),
    ])
    func javaDoubles(_ value: Double, _ text: String) {
        #expect(JSONPathFunction.javaDouble(value) == text)
    }

    /// Jayway's max() starts from Java's Double.MIN_VALUE, the smallest positive double.
    @Test func maxOfNegativeNumbersIsJaywaysMinValue() throws {
        #expect(try select("$.a.max()", in: JSONParser.parse(#"{"a": [-1, -2]}"#)) == "4.9E-324")
    }

    /// A function error inside a filter abandons the whole evaluation, as Jayway throws.
    @Test func errorsInsideFiltersAbandonTheEvaluation() throws {
        let document = try JSONParser.parse(#"{"a": [{"b": []}, {"b": [1]}], "c": "x"}"#)
        #expect(try select("$.a[?(@.b.max() > 0)]", in: document) == "[]")
        #expect(try select("$.a[?(@.b.length() > 0)]", in: document) == #"[{"b":[1]}]"#)
        #expect(try select("$.a[?(@.b subsetof [1])]", in: document) == #"[{"b":[]},{"b":[1]}]"#)
        #expect(try select("$.a[?(@.x subsetof [1])]", in: document) == "[]")
        #expect(try select("$.a[?(@.b empty 1)]", in: document) == "[]")
        #expect(try select("$[?(@.c empty false)].c", in: document) == #"["x"]"#)
    }

    @Test func deepNestingOfFiltersIsRefusedNotRecursedForever() {
        let deep = "$[?(" + String(repeating: "!(", count: 200) + "@.a" + String(repeating: ")", count: 200) + ")]"
        #expect(throws: JSONPathError.self) { try JSONPath(deep) }
    }

    /// A hostile body and a quadratic expression: the budget stops the work, nothing traps.
    @Test func workIsBounded() throws {
        let wide = try JSONParser.parse("[" + Array(repeating: "[[[[1]]]]", count: 20_000).joined(separator: ",") + "]")
        let path = try JSONPath("$..*..*..*")
        if case .list(let nodes) = path.evaluate(wide, budget: 10_000) { #expect(nodes.count < 10_000) }
    }

    @Test func repeatedKeysTakeTheLast() throws {
        #expect(try select("$.a", in: JSONParser.parse(#"{"a": 1, "a": 2}"#)) == "2")
    }
}
