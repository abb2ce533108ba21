import StubEngine
import Testing

/// JSONPath as Jayway evaluates it (the dialect of WireMock's matchesJsonPath and jsonPath
/// helper), on Goessner's store example, with the edge cases spelled out.
@Suite struct JSONPathTests {
    static let store = try! JSONParser.parse("""
    {"store": {"book": [
        {"category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century", "price": 8.95},
        {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour", "price": 12.99},
        {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553-21311-3", "price": 8.99},
        {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings", "isbn": "0-395-19395-8", "price": 22.99}
      ],
      "bicycle": {"color": "red", "price": 19.95}},
     "expensive": 10, "empty": [], "nothing": {}, "nil": null, "flag": false, "count": "3"}
    """)

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
        ("$.store.book[::2].price", "[8.95,8.99]"),
        ("$..author", #"["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]"#),
        ("$.store..price", "[8.95,12.99,8.99,22.99,19.95]"),
        ("$.store.*.color", #"["red"]"#),
        ("$['store']['bicycle']['color','price']", #"["red",19.95]"#),
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
        ("$.store.book[*].price.max()", "22.99"),
        ("$.store.book[*].price.min()", "8.95"),
        ("$.empty.length()", "0"),
        ("$.store.bicycle[?(@.color == 'red')].price", "[19.95]"),
    ])
    func selects(_ path: String, _ expected: String) throws {
        #expect(try select(path) == expected, "\(path)")
    }

    @Test func definiteAndIndefinite() throws {
        #expect(try JSONPath("$.a.b[0]['c']").isDefinite)
        for path in ["$.a[*]", "$..a", "$.a[0,1]", "$.a[1:2]", "$.a[?(@.b)]", "$['a','b']"] {
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
        ("store", "starts with $"), ("$.", "after ."), ("$[", "expected a name in quotes"), ("$['a'", "expected ]"),
        ("$[?(@.a ==)]", "expected @, $"), ("$[?(@.a =~ 'x')]", "between slashes"), ("$[?(@.a =~ /(a)\\1/)]", "invalid regular expression"),
        ("$.a.nope()", "unknown function"), ("$.a.length().b", "ends the path"), ("$['unclosed]", "not closed"),
        ("$[?(@.a", "expected )"), ("$[1:2:0]", "step"),
    ])
    func refusesWithAReason(_ path: String, _ fragment: String) {
        #expect(throws: JSONPathError.self) { try JSONPath(path) }
        do {
            _ = try JSONPath(path)
        } catch {
            #expect(error.message.contains(fragment) || error.description.contains(fragment), "\(path): \(error)")
        }
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
