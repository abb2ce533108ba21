/// JSONPath rows with the results Jayway JsonPath (the library behind WireMock's
/// `matchesJsonPath` and `jsonPath` helper) gives, written from its README (operators,
/// functions, filter operators, the path examples on the store document) and from what its
/// evaluators do on the edge cases (json-path/JsonPath: EvaluatorFactory, ValueNodes,
/// ArraySliceToken, PropertyPathToken, the path functions). `JaywayJSONPathTableTests` checks
/// each row in process and through the `stubserver` binary.
struct JaywayRow: Sendable {
    /// What Jayway answers: its result as compact JSON (a definite path's value, an indefinite
    /// path's list), or nothing: the path is not there, or Jayway throws (WireMock: no match).
    enum Expected: Sendable {
        case json(String)
        case noMatch
    }

    let path: String
    let document: String
    let expected: Expected
    /// Why the row is there (the Jayway rule it pins).
    let note: String

    init(_ path: String, _ document: String, _ expected: Expected, _ note: String) {
        self.path = path
        self.document = document
        self.expected = expected
        self.note = note
    }
}

enum JaywayTable {
    /// The README's document.
    static let store = """
        {"store": {"book": [
            {"category": "reference", "author": "Nigel Rees", "title": "Sayings of the Century", "price": 8.95},
            {"category": "fiction", "author": "Evelyn Waugh", "title": "Sword of Honour", "price": 12.99},
            {"category": "fiction", "author": "Herman Melville", "title": "Moby Dick", "isbn": "0-553-21311-3",
             "price": 8.99},
            {"category": "fiction", "author": "J. R. R. Tolkien", "title": "The Lord of the Rings", "isbn": \
        "0-395-19395-8",
             "price": 22.99}
          ],
          "bicycle": {"color": "red", "price": 19.95}},
         "expensive": 10}
        """

    static let items = """
        {"items": [
          {"id": 1, "sizes": ["S", "M"], "tags": []},
          {"id": 2, "sizes": ["M", "L", "XL"], "tags": ["sale"]},
          {"id": 3, "sizes": ["XXL"], "tags": ["new", "sale"]}
        ]}
        """

    /// The series of Jayway's own function tests.
    static let series = """
        {"numbers": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "text": ["a", "b", "c", "d", "e", "f"], "empty": [],
         "mixed": [1, "2", 3.5]}
        """

    static let scalars = #"{"a": null, "b": false, "c": 0, "d": "", "e": [], "f": {}}"#
    static let codes = #"{"items": [{"code": "01"}, {"code": "1"}, {"code": 1}]}"#
    static let installing = #"[{"id": 1, "value": "INSTALLING"}, {"id": 2, "value": "DONE"}]"#

    static let books = #"["Sayings of the Century","Sword of Honour","Moby Dick","The Lord of the Rings"]"#

    static let rows: [JaywayRow] = readme + filters + functions + edges

    /// The README's path examples and operators.
    static let readme: [JaywayRow] = [
        JaywayRow(
            "$.store.book[*].author",
            store,
            .json(#"["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]"#),
            "wildcard"
        ),
        JaywayRow(
            "$..author",
            store,
            .json(#"["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]"#),
            "deep scan"
        ),
        JaywayRow("$.store.bicycle.*", store, .json(#"["red",19.95]"#), "wildcard over an object's values"),
        JaywayRow("$.store..price", store, .json("[8.95,12.99,8.99,22.99,19.95]"), "deep scan in document order"),
        JaywayRow("$..book[2].title", store, .json(#"["Moby Dick"]"#), "an index after a scan: a list"),
        JaywayRow("$..book[-2].title", store, .json(#"["Moby Dick"]"#), "negative index"),
        JaywayRow("$..book[0,1].title", store, .json(#"["Sayings of the Century","Sword of Honour"]"#), "index union"),
        JaywayRow("$..book[:2].price", store, .json("[8.95,12.99]"), "slice to"),
        JaywayRow("$..book[1:2].price", store, .json("[12.99]"), "slice between"),
        JaywayRow("$..book[-2:].price", store, .json("[8.99,22.99]"), "slice from the end"),
        JaywayRow("$..book[2:].price", store, .json("[8.99,22.99]"), "slice from"),
        JaywayRow("$..book[?(@.isbn)].title", store, .json(#"["Moby Dick","The Lord of the Rings"]"#), "existence"),
        JaywayRow("$.store.book[?(@.price < 10)].price", store, .json("[8.95,8.99]"), "<"),
        JaywayRow("$..book[?(@.price <= $['expensive'])].price", store, .json("[8.95,8.99]"), "<= against the root"),
        JaywayRow("$..book[?(@.author =~ /.*REES/i)].title", store, .json(#"["Sayings of the Century"]"#), "=~ with i"),
        JaywayRow("$..book.length()", store, .json("4"), "$..book.length() is $.length($..book): the number of books"),
        JaywayRow("$.store.book.length()", store, .json("4"), "length() of an array"),
        JaywayRow("$.store.bicycle.color", store, .json(#""red""#), "dot notation"),
        JaywayRow("$['store']['bicycle']['price']", store, .json("19.95"), "bracket notation"),
        JaywayRow(#"$["store"]["bicycle"]["color"]"#, store, .json(#""red""#), "bracket notation, double quotes"),
        JaywayRow("$.store.book[-1].author", store, .json(#""J. R. R. Tolkien""#), "last element"),
        JaywayRow("store.bicycle.color", store, .json(#""red""#), "no $: Jayway reads $.store..."),
    ]

    /// Filter operators, `&&`, `||`, `!`, parentheses, literals.
    static let filters: [JaywayRow] = [
        JaywayRow(
            "$.store.book[?(@.category == 'fiction' && @.price > 10)].title",
            store,
            .json(#"["Sword of Honour","The Lord of the Rings"]"#),
            "&& and >"
        ),
        JaywayRow(
            #"$.store.book[?(@.category == "reference" || @.price > 20)].price"#,
            store,
            .json("[8.95,22.99]"),
            "|| and a double-quoted literal"
        ),
        JaywayRow(
            "$.store.book[?(!(@.price < 10 && @.category == 'fiction'))].price",
            store,
            .json("[8.95,12.99,22.99]"),
            "! over parentheses"
        ),
        JaywayRow(
            "$.store.book[?(@.isbn != '0-553-21311-3')].price",
            store,
            .json("[8.95,12.99,22.99]"),
            "!= holds where the value is missing"
        ),
        JaywayRow(
            "$.store.book[?(@.price == '8.95')].title",
            store,
            .json(#"["Sayings of the Century"]"#),
            "a number equals a string of the same decimal"
        ),
        JaywayRow("$.store.book[?(@.price > $.expensive)].price", store, .json("[12.99,22.99]"), "> against the root"),
        JaywayRow("$.store.book[?(@.price >= 22.99)].price", store, .json("[22.99]"), ">="),
        JaywayRow("$.store.book[?(@.category in ['reference','poetry'])].price", store, .json("[8.95]"), "in"),
        JaywayRow("$.store.book[?(@.category nin ['fiction'])].price", store, .json("[8.95]"), "nin"),
        JaywayRow("$.store.book[?(@.title size 9)].title", store, .json(#"["Moby Dick"]"#), "size of a string"),
        JaywayRow(
            "$.store.book[?(@.isbn empty false)].title",
            store,
            .json(#"["Moby Dick","The Lord of the Rings"]"#),
            "empty is false where the value is missing"
        ),
        JaywayRow(
            "$.store.book[?(@.price =~ /8\\..*/)].title",
            store,
            .json(#"["Sayings of the Century","Moby Dick"]"#),
            "=~ reads a number as its text"
        ),
        JaywayRow(
            "$.store.book[?(@.isbn =~ /.*/)].price",
            store,
            .json("[8.95,12.99,8.99,22.99]"),
            "=~ reads a missing value as the empty string"
        ),
        JaywayRow("$..book[?(@.author =~ /.*rees/)].title", store, .json("[]"), "=~ is case-sensitive without i"),
        JaywayRow("$.items[?(@.sizes subsetof ['S','M','L'])].id", items, .json("[1]"), "subsetof"),
        JaywayRow("$.items[?(@.sizes anyof ['M','L'])].id", items, .json("[1,2]"), "anyof"),
        JaywayRow("$.items[?(@.sizes noneof ['M','L'])].id", items, .json("[3]"), "noneof"),
        JaywayRow("$.items[?(@.tags empty true)].id", items, .json("[1]"), "empty"),
        JaywayRow("$.items[?(@.sizes size 3)].id", items, .json("[2]"), "size of an array"),
        JaywayRow(
            "$.items[?('sale' in @.tags)].id",
            items,
            .json("[2,3]"),
            "a literal on the left, a path on the right"
        ),
        JaywayRow("$.items[?(@.tags contains 'new')].id", items, .json("[3]"), "contains"),
        JaywayRow("$.items[?(@.tags[0] == 'sale')].id", items, .json("[2]"), "an index inside a filter"),
        JaywayRow("$.items[?(@.missing)].id", items, .json("[]"), "existence of nothing"),
        JaywayRow(
            "$.items[?(@.sizes noneof ['M'] && @.tags.length() == 2)].id",
            items,
            .json("[3]"),
            "a function inside a filter"
        ),
        JaywayRow(
            "$.items[?(@.code == 1)].code",
            codes,
            .json(#"["1",1]"#),
            "a string equals a number written the same way; \"01\" does not"
        ),
        JaywayRow("$.items[?(@.code == '1.0')].code", codes, .json("[1]"), "a number equals a string of its decimal"),
        JaywayRow("$.[?(@.value == 'INSTALLING')].id", installing, .json("[1]"), "a dot before the bracket"),
        JaywayRow(
            "$.[?(@.value=='INSTALLING')]",
            #"{"value": "INSTALLING"}"#,
            .json(#"[{"value":"INSTALLING"}]"#),
            "a filter on an object tests the object"
        ),
        JaywayRow("$.[?(@.value=='INSTALLING')]", #"{"value": "DONE"}"#, .json("[]"), "an empty list: no match"),
        JaywayRow(
            "$..[?(@.price > 20)].title",
            store,
            .json(#"["The Lord of the Rings"]"#),
            "a scan then a filter selects each passing object once"
        ),
        JaywayRow(
            "$..[?(@.length() > 3)].title",
            store,
            .json(
                "[" + String(books.dropFirst().dropLast()) + ","
                    + String(books.dropFirst().dropLast()) + "]"
            ),
            "a scan then a filter: the book array passes as a whole, then each book again"
        ),
        JaywayRow(
            "$..[?(@.length() > 3)].length()",
            store,
            .json("36"),
            "a scan from the root ending in length(): the children of all it selects (2 x 18)"
        ),
    ]

    /// The functions of the README, on Jayway's own test series.
    static let functions: [JaywayRow] = [
        JaywayRow("$.numbers.min()", series, .json("1.0"), "min() is a double"),
        JaywayRow("$.numbers.max()", series, .json("10.0"), "max()"),
        JaywayRow("$.numbers.avg()", series, .json("5.5"), "avg()"),
        JaywayRow("$.numbers.sum()", series, .json("55.0"), "sum()"),
        JaywayRow("$.numbers.stddev()", series, .json("2.8722813232690143"), "stddev()"),
        JaywayRow("$.numbers.length()", series, .json("10"), "length() is an integer"),
        JaywayRow("$['text'].size()", series, .json("6"), "size() is length()"),
        JaywayRow("$.numbers.first()", series, .json("1"), "first()"),
        JaywayRow("$.numbers.last()", series, .json("10"), "last()"),
        JaywayRow("$.numbers.index(-1)", series, .json("10"), "index() from the end"),
        JaywayRow("$.text.index(1)", series, .json(#""b""#), "index()"),
        JaywayRow("$.text.concat()", series, .json(#""abcdef""#), "concat()"),
        JaywayRow(#"$.text.concat("-", "ghijk")"#, series, .json(#""abcdef-ghijk""#), "concat() with arguments"),
        JaywayRow("$.numbers.append(11).avg()", series, .json("6.0"), "append() then a function"),
        JaywayRow(
            "$.sum(5, 3, $.numbers.max(), 2)",
            series,
            .json("20.0"),
            "a function of the root with path arguments"
        ),
        JaywayRow("$.mixed.sum()", series, .json("4.5"), "strings are not numbers to sum()"),
        JaywayRow("$.empty.max()", series, .noMatch, "max() of nothing: Jayway throws"),
        JaywayRow("$.text[0].length()", series, .json("null"), "length() of a string is null"),
        JaywayRow("$.store.bicycle.keys()", store, .json(#"["color","price"]"#), "keys()"),
        JaywayRow("$..price.max()", store, .json("22.99"), "a scan ending in a function takes the scan's values"),
        JaywayRow(
            "$.store.book[*].price.max()",
            store,
            .noMatch,
            "a function applies to each value: max() of 8.95 throws"
        ),
        JaywayRow("$.store.book[?(@.price < 10)].length()", store, .json("[4,5]"), "length() of each selected book"),
    ]

    /// Definite and indefinite paths, nulls and empties, slices, unions of names.
    static let edges: [JaywayRow] = [
        JaywayRow("$.store.book[9]", store, .noMatch, "an index past the end: not found"),
        JaywayRow("$.nothing", store, .noMatch, "a missing member: not found"),
        JaywayRow(
            "$.store.bicycle['color','price']",
            store,
            .json(#"{"color":"red","price":19.95}"#),
            "a union of names as the last step merges into one object"
        ),
        JaywayRow(
            "$.store.book[0:2]['title','price']",
            store,
            .json(
                #"[{"title":"Sayings of the Century","price":8.95},"#
                    + #"{"title":"Sword of Honour","price":12.99}]"#
            ),
            "merged per element"
        ),
        JaywayRow("$.numbers[1:-1]", series, .json("[]"), "a slice between resolves each end on its own"),
        JaywayRow("$.numbers[-3:-1]", series, .json("[8,9]"), "a slice between negative indices"),
        JaywayRow("$.numbers[:-8]", series, .json("[1,2]"), "a slice to a negative end"),
        JaywayRow("$.[0]", #"["a", "b"]"#, .json(#""a""#), "a dot before an index"),
        JaywayRow("$.a", scalars, .json("null"), "a definite null: no match"),
        JaywayRow("$.b", scalars, .json("false"), "false is present"),
        JaywayRow("$.c", scalars, .json("0"), "zero is present"),
        JaywayRow("$.d", scalars, .json(#""""#), "the empty string is present"),
        JaywayRow("$.e", scalars, .json("[]"), "an empty array: no match"),
        JaywayRow("$.f", scalars, .json("{}"), "an empty object: no match"),
        JaywayRow("$[?(@.a == null)].b", scalars, .json("[false]"), "== null"),
    ]
}
