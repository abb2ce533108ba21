import Foundation

/// WireMock's response-templating helpers, one row each, with the outputs WireMock documents
/// (its "Response Templating" page and Handlebars.java's string and conditional helpers):
/// exact text where the output is determined, a pattern where it is random or the time.
///
/// The same table drives the in-process test (WireMockTests) and the binary's
/// (StubServerCLITests): `mappings` writes one mapping per row, `check` sends each row's
/// request over a raw socket and lists what differs.
public enum HandlebarsHelperTable {
    public enum Expected: Sendable {
        case exact(String)
        /// A regular expression the whole output matches.
        case pattern(String)
    }

    public struct Row: Sendable {
        public let template: String
        public let target: String
        public let method: String
        public let headers: [(String, String)]
        public let body: String
        public let expected: Expected
        /// Matched with a `urlPathTemplate` instead (for `request.path.name`).
        public let pathTemplate: String?

        init(
            _ template: String,
            _ expected: Expected,
            target: String = "/things/123?x=1",
            method: String = "GET",
            headers: [(String, String)] = [],
            body: String = "",
            pathTemplate: String? = nil
        ) {
            self.template = template
            self.expected = expected
            self.target = target
            self.method = method
            self.headers = headers
            self.body = body
            self.pathTemplate = pathTemplate
        }
    }

    static let uuid = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
    static let xml = "<outer><inner id=\"7\">Stuff</inner><inner id=\"8\">More</inner></outer>"

    public static let rows: [Row] = [
        // The request model.
        Row("{{request.path}}", .exact("/things/123")),
        // `{{...}}` escapes HTML as Handlebars.java does (`=` too); `{{{...}}}` does not.
        Row("{{{request.url}}}|{{request.url}}", .exact("/things/123?x=1|/things/123?x&#x3D;1")),
        Row("{{request.pathSegments.[1]}}", .exact("123")),
        Row("{{request.path.[0]}}", .exact("things")),
        Row("{{request.path.contactId}}", .exact("12"), target: "/contacts/12", pathTemplate: "/contacts/{contactId}"),
        Row("{{request.query.x}}", .exact("1")),
        Row(
            "{{request.query.things.[1]}}|{{request.query.things.last}}|{{request.query.things}}",
            .exact("2|3|[1, 2, 3]"),
            target: "/multi?things=1&things=2&things=3"
        ),
        Row("{{request.method}}", .exact("POST"), method: "POST"),
        Row(
            "{{request.headers.X-Request-Id}}|{{request.headers.x-request-id}}",
            .exact("abc-123|abc-123"),
            headers: [("X-Request-Id", "abc-123")]
        ),
        Row("{{request.cookies.session}}", .exact("s1"), headers: [("Cookie", "session=s1; other=2")]),
        Row("{{request.body}}", .exact("hello"), method: "POST", body: "hello"),
        Row("{{request.host}}|{{request.scheme}}", .exact("127.0.0.1|http")),
        Row("{{request.baseUrl}}|{{request.port}}", .pattern(#"http://127\.0\.0\.1:(\d+)\|\d+"#)),
        Row("{{request.id}}", .pattern(uuid)),
        // JSON, XML, regular expressions.
        Row(
            "{{jsonPath request.body '$.outer.inner'}}",
            .exact("Stuff"),
            method: "POST",
            body: #"{"outer": {"inner": "Stuff"}}"#
        ),
        Row("{{jsonPath request.body '$.size' default='M'}}", .exact("M"), method: "POST", body: #"{"outer": 1}"#),
        Row(
            "{{xPath request.body '/outer/inner[1]/text()'}}|{{xPath request.body '//inner[@id=\"8\"]/text()'}}",
            .exact("Stuff|More"),
            method: "POST",
            body: xml
        ),
        Row(
            "{{{xPath request.body '/outer/inner[1]'}}}",
            .exact("<inner id=\"7\">Stuff</inner>"),
            method: "POST",
            body: xml
        ),
        Row(
            """
            {{#each (xPath request.body '/outer/inner') as \
            |node|}}{{node.name}}:{{node.text}}:{{node.attributes.id}};{{/each}}
            """,
            .exact("inner:Stuff:7;inner:More:8;"),
            method: "POST",
            body: xml
        ),
        Row("{{regexExtract request.body '[A-Z]+'}}", .exact("DEF"), method: "POST", body: "abcDEF123"),
        Row(
            "{{regexExtract request.body '([a-z]+)-([A-Z]+)-([0-9]+)' 'parts'}}{{parts.0}},{{parts.1}},{{parts.2}}",
            .exact("abc,DEF,123"),
            method: "POST",
            body: "abc-DEF-123"
        ),
        Row("{{regexExtract 'abc' '[0-9]+' default='my default value'}}", .exact("my default value")),
        // Random values.
        Row("{{randomValue length=33 type='ALPHANUMERIC'}}", .pattern("[A-Za-z0-9]{33}")),
        Row("{{randomValue length=12 type='ALPHANUMERIC' uppercase=true}}", .pattern("[A-Z0-9]{12}")),
        Row("{{randomValue length=55 type='ALPHABETIC'}}", .pattern("[A-Za-z]{55}")),
        Row("{{randomValue length=10 type='NUMERIC'}}", .pattern("[0-9]{10}")),
        Row("{{randomValue length=32 type='HEXADECIMAL' uppercase=true}}", .pattern("[0-9A-F]{32}")),
        Row("{{randomValue type='UUID'}}", .pattern(uuid)),
        Row("{{randomInt lower=5 upper=9}}", .pattern("[5-8]")),
        Row("{{randomDecimal lower=-10.1 upper=-0.9}}", .pattern(#"-[0-9]+\.[0-9]+(e-?[0-9]+)?"#)),
        Row("{{pickRandom '1' '2' '3'}}", .pattern("[123]")),
        Row("{{pickRandom 1 2 3 4 5 count=3}}", .pattern(#"\[[1-5], [1-5], [1-5]\]"#)),
        // Numbers and lists.
        Row(
            "{{math 1 '+' 2}} {{math 4 '-' 2}} {{math 2 '*' 3}} {{math 8 '/' 2}} {{math 10 '%' 3}}",
            .exact("3 2 6 4 1")
        ),
        Row("{{range 3 8}}|{{range -2 2}}", .exact("[3, 4, 5, 6, 7, 8]|[-2, -1, 0, 1, 2]")),
        Row("{{array 1 'two' true}}|{{array}}", .exact("[1, two, true]|[]")),
        Row(
            "{{size 'abcde'}}|{{size request.query.things}}|{{size (array 1 2)}}",
            .exact("5|3|2"),
            target: "/multi?things=1&things=2&things=3"
        ),
        Row(
            "{{#if (contains 'abcde' 'abc')}}YES{{/if}}|{{#contains (array 'a' 'b' 'c') 'a'}}YES{{/contains}}",
            .exact("YES|YES")
        ),
        Row(
            "{{#if (matches '123' '[0-9]+')}}YES{{/if}}|{{#matches 'abc' '[0-9]+'}}YES{{else}}NO{{/matches}}",
            .exact("YES|NO")
        ),
        // Strings.
        Row(
            "{{upper 'abc'}} {{lower 'ABC'}} {{capitalize 'handlebars java'}} {{capitalizeFirst 'handlebars'}}",
            .exact("ABC abc Handlebars Java Handlebars")
        ),
        Row(
            "{{trim '  padded  '}}|{{#trim}}   Some stuff with whitespace   {{/trim}}",
            .exact("padded|Some stuff with whitespace")
        ),
        Row(
            """
            {{abbreviate 'Handlebars.java' 10}}|{{substring 'Handlebars.java' 11}}|{{substring \
            'Handlebars.java' 0 10}}
            """,
            .exact("Handleb...|java|Handlebars")
        ),
        Row("{{replace 'Handlebars ...' '...' 'rocks'}}", .exact("Handlebars rocks")),
        Row(
            "{{join (array 'a' 'b' 'c') ', '}}|{{join 'a' 'b' '-'}}|{{#each (split 'x,y,z' ',')}}[{{this}}]{{/each}}",
            .exact("a, b, c|a-b|[x][y][z]")
        ),
        Row(
            "{{{base64 'hello'}}}|{{base64 'aGVsbG8=' decode=true}}|{{#base64 padding=false}}hello{{/base64}}",
            .exact("aGVsbG8=|hello|aGVsbG8")
        ),
        Row(
            "{{urlEncode 'a b&c'}}|{{urlEncode 'Content%20to%20decode' decode=true}}",
            .exact("a+b%26c|Content to decode")
        ),
        Row(
            "{{formData request.body 'form' urlDecode=true}}{{form.formField3}}|{{form.multi.1}}|{{form.multi.last}}",
            .exact("hello there|b|c"),
            method: "POST",
            body: "formField1=a&formField3=hello%20there&multi=a&multi=b&multi=c"
        ),
        // Conditions, blocks and variables.
        Row(
            "{{#eq request.method 'GET'}}get{{else}}other{{/eq}}|{{#neq 1 2}}neq{{/neq}}|{{eq 1 2 yes='y' no='n'}}",
            .exact("get|neq|n")
        ),
        Row(
            "{{#gt 3 2}}gt{{/gt}}{{#lt 2 3}}lt{{/lt}}{{#gte 3 3}}gte{{/gte}}{{#lte 3 3}}lte{{/lte}}",
            .exact("gtltgtelte")
        ),
        Row(
            """
            {{#and true 1}}and{{/and}}{{#or false 0 'x'}}or{{/or}}{{#not false}}not{{/not}}{{#unless \
            false}}unless{{/unless}}
            """,
            .exact("andornotunless")
        ),
        Row("{{#if request.query.x}}x{{else if request.query.y}}y{{else}}none{{/if}}", .exact("y"), target: "/a?y=1"),
        Row(
            "{{#each request.query.things}}{{@index}}={{this}};{{/each}}",
            .exact("0=1;1=2;2=3;"),
            target: "/multi?things=1&things=2&things=3"
        ),
        Row("{{#with request.query}}{{x}}{{/with}}", .exact("1")),
        Row(
            "{{#assign 'myCapitalisedQuery'}}{{capitalize request.query.search}}{{/assign}}{{myCapitalisedQuery}}",
            .exact("Wiremock"),
            target: "/s?search=wiremock"
        ),
        Row("{{val request.query.missing or='default'}}|{{val request.query.x default='d'}}", .exact("default|1")),
        Row(
            """
            {{val 10 assign='myVar'}}{{#lt myVar 20}}Less Than{{else}}More Than{{/lt}}|{{val 'v' \
            assign='other'}}{{other}}
            """,
            .exact("Less Than|v")
        ),
        // JSON (WireMock 3.10's helpers; inline results in {{{ }}}, as {{ }} escapes the quotes).
        Row(
            "{{#formatJson}}{\"foo\":true,\"bar\":{\"baz\":false},\"list\":[1,{}],\"none\":[]}{{/formatJson}}",
            .exact(
                """
                {\n  \"foo\" : true,\n  \"bar\" : {\n    \"baz\" : false\n  },\n  \"list\" : [ 1, { } ],\n  \
                \"none\" : [ ]\n}
                """
            )
        ),
        Row(
            """
            {{{formatJson '{ \"foo\": true, \"bar\": { \"baz\": false } }' format='compact'}}}|{{#formatJson \
            format='compact'}}
            """
                + "{{{request.body}}}{{/formatJson}}",
            .exact(#"{"foo":true,"bar":{"baz":false}}|{"a":[1,2]}"#),
            method: "POST",
            body: "{ \"a\" : [ 1, 2 ] }"
        ),
        Row(
            "{{{toJson (array 1 'two' true)}}}|{{{toJson 'text'}}}|{{{toJson (jsonPath request.body '$.a')}}}",
            .exact("[ 1, \"two\", true ]|\"text\"|{\n  \"b\" : 1\n}"),
            method: "POST",
            body: #"{"a": {"b": 1}}"#
        ),
        Row(
            "{{#parseJson 'things'}}[{\"id\": 1, \"name\": \"One\"}, {\"id\": 2, \"name\": \"Two\"}]{{/parseJson}}"
                + """
                {{things.1.name}}|{{parseJson request.body 'body'}}{{body.user.name}}|{{size (parseJson \
                request.body)}}
                """,
            .exact("Two|Ann|1"),
            method: "POST",
            body: #"{"user": {"name": "Ann"}}"#
        ),
        Row(
            "{{#assign 'object1'}}{\"id\": 456, \"address\": {\"number\": \"12\"}, \"hobbies\": [\"chess\"]}{{/assign}}"
                + """
                {{{jsonMerge object1 '{\"nickname\": \"Bob\", \"address\": {\"street\": \"High St\"}, \
                \"hobbies\": [\"rugby\"]}'}}}|
                """
                    + """
                    {{#jsonMerge '{\"keepMe\": 1, \"removeMe\": 2}' removeNulls=true}}{\"removeMe\": \
                    null}{{/jsonMerge}}|
                    """
                + "{{{jsonMerge '[1]' '{}'}}}",
            .exact(
                #"{"id":456,"address":{"number":"12","street":"High St"},"hobbies":["rugby"],"nickname":"Bob"}|"#
                    + #"{"keepMe":1}|[ERROR: Base JSON is not a JSON object ('[1]')]"#
            )
        ),
        Row(
            """
            {{{jsonRemove request.body '$.[?(@.id == 123)]'}}}|{{{jsonRemove '{\"id\": 456, \"name\": \"bob\"}' \
            '$.name'}}}
            """,
            .exact(#"[{"id":456,"name":"bob"},{"id":321,"name":"sam"}]|{"id":456}"#),
            method: "POST",
            body: #"[{"id": 456, "name": "bob"}, {"id": 123, "name": "alice"}, {"id": 321, "name": "sam"}]"#
        ),
        Row(
            "{{{jsonArrayAdd '[{\"id\": 123}]' '{\"id\": 321}'}}}|"
                + "{{#jsonArrayAdd '[{\"id\": 1}, {\"id\": 2}]' maxItems=2}}{\"id\": 3}{{/jsonArrayAdd}}|"
                    + """
                    {{#jsonArrayAdd '[1]'}}[2, 3]{{/jsonArrayAdd}}|{{#jsonArrayAdd '[1]' flatten=true}}[2, \
                    3]{{/jsonArrayAdd}}|
                    """
                + "{{{jsonArrayAdd request.body '\"bob\"' jsonPath='$[0].names'}}}",
            .exact(
                #"[{"id":123},{"id":321}]|[{"id":2},{"id":3}]|[1,[2,3]]|[1,2,3]|"#
                    + #"[{"id":123,"names":["alice","sam","bob"]},{"id":321,"names":["fred"]}]"#
            ),
            method: "POST",
            body: #"[{"id": 123, "names": ["alice", "sam"]}, {"id": 321, "names": ["fred"]}]"#
        ),
        // Lists (WireMock 3.6's helpers).
        Row(
            "{{arrayAdd (array 1 'three') 2 position=1}}|{{arrayAdd (array 1 'three') 2 position='start'}}|"
                + "{{arrayAdd (array 1 'three') 2 position='end'}}|{{arrayAdd (array 1 'three') 2}}",
            .exact("[1, 2, three]|[2, 1, three]|[1, three, 2]|[1, three, 2]")
        ),
        Row(
            "{{arrayRemove (array 1 2 'three') position=1}}|{{arrayRemove (array 1 2 'three') position='start'}}|"
                + "{{arrayRemove (array 1 2 'three') position='end'}}|{{arrayRemove (array 1 2 'three')}}",
            .exact("[1, three]|[2, three]|[1, 2]|[1, 2]")
        ),
        Row(
            """
            {{arrayJoin ',' (array 'One' 'Two' 'Three')}}|{{arrayJoin ' - ' 'a' 'b' 'c'}}|{{arrayJoin ', ' \
            (range 1 5)}}|
            """
                + """
                {{arrayJoin ',' (array 'One' 'Two') prefix='[' suffix=']'}}|{{arrayJoin ' * ' (array 1 2 3) \
                prefix='(' suffix=')'}}
                """,
            .exact("One,Two,Three|a - b - c|1, 2, 3, 4, 5|[One,Two]|(1 * 2 * 3)")
        ),
        Row(
            "{{#parseJson 'things'}}[{\"id\": 1, \"name\": \"One\"}, {\"id\": 2, \"name\": \"Two\"}]{{/parseJson}}"
                + """
                {{#arrayJoin ',' things prefix='[' suffix=']' as |item|}}{\"name{{item.id}}\": \
                \"{{item.name}}\"}{{/arrayJoin}}
                """,
            .exact(#"[{"name1": "One"},{"name2": "Two"}]"#)
        ),
        // XML (WireMock 3.10's formatXml): pretty indents four spaces, compact drops the whitespace.
        Row(
            """
            {{#formatXml}}\n<foo><bar\n>wh</bar><baz id=\"1\"/></foo\n>\n{{/formatXml}}|{{{formatXml ' <foo>  \
            <bar>wh</bar>  </foo> ' format='compact'}}}|
            """
                + "{{{formatXml 'not xml'}}}",
            .exact(
                """
                <foo>\n    <bar>wh</bar>\n    <baz id=\"1\"/>\n</foo>|<foo><bar>wh</bar></foo>|[ERROR: Input is \
                not valid XML]
                """
            )
        ),
        // SOAP and the host.
        Row(
            "{{soapXPath request.body '/order/id/text()'}}|{{soapXPath request.body 'm:order/m:id/text()'}}",
            .exact("42|42"),
            method: "POST",
            body: "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body>"
                + "<m:order xmlns:m=\"urn:x\"><m:id>42</m:id></m:order></soap:Body></soap:Envelope>"
        ),
        Row("{{hostname}}", .pattern("[a-z0-9][a-z0-9.-]*")),
        // Only keys WireMock permits by default (wiremock...) are read; others are denied.
        Row(
            "{{systemValue key='WIREMOCK_STUBSERVER_UNSET' default='DEFAULT'}}|{{systemValue key='PATH'}}|"
                + "{{systemValue type='PROPERTY' key='wiremock.region' default='d'}}",
            .exact("DEFAULT|[ERROR: Access to PATH is denied]|d")
        ),
        // Dates and times.
        Row("{{now}}", .pattern(#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"#)),
        Row("{{now format='epoch'}}|{{now offset='2 years' format='unix'}}", .pattern(#"\d{13}\|\d{10}"#)),
        Row("{{now offset='10 years' format='yyyy-MM-dd'}}", .pattern(#"20[3-9]\d-\d\d-\d\d"#)),
        Row(
            "{{now timezone='Australia/Sydney' format='yyyy-MM-dd HH:mm:ssZ'}}",
            .pattern(#"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\+1[01]00"#)
        ),
        Row(
            "{{date (parseDate request.headers.MyDate)}}",
            .exact("2021-06-15T15:16:17Z"),
            headers: [("MyDate", "Tue, 15 Jun 2021 15:16:17 GMT")]
        ),
        Row("{{date (parseDate '15/06/2021' format='dd/MM/yyyy') format='yyyy-MM-dd'}}", .exact("2021-06-15")),
        Row(
            "{{date (parseDate '1623770177' format='unix') format='yyyy-MM-dd HH:mm:ss'}}",
            .exact("2021-06-15 15:16:17")
        ),
        Row(
            """
            {{date (parseDate '2021-06-15T15:16:17Z') offset='1 days' timezone='America/New_York' \
            format='yyyy-MM-dd HH:mm z'}}
            """,
            .exact("2021-06-16 11:16 EDT")
        ),
        Row(
            "{{date (truncateDate (parseDate request.headers.MyDate) 'first day of month')}}|"
                + "{{date (truncateDate (parseDate request.headers.MyDate) 'first minute of hour')}}|"
                + "{{date (truncateDate (parseDate request.headers.MyDate) 'first hour of day')}}|"
                + "{{date (truncateDate (parseDate request.headers.MyDate) 'last day of month')}}|"
                + "{{date (truncateDate (parseDate request.headers.MyDate) 'first day of next month')}}",
            .exact(
                "2021-06-01T00:00:00Z|2021-06-15T15:00:00Z|2021-06-15T00:00:00Z|"
                    + "2021-06-30T00:00:00Z|2021-07-01T00:00:00Z"
            ),
            headers: [("MyDate", "Tue, 15 Jun 2021 15:16:17 GMT")]
        ),
        Row(
            "{{date (truncateDate (parseDate '2024-02-10T08:00:00Z') 'first day of year') format='yyyy-MM-dd'}}|"
                + """
                {{date (truncateDate (parseDate '2024-02-10T08:00:00Z') 'first day of next year') \
                format='yyyy-MM-dd'}}|
                """
                + "{{date (truncateDate (parseDate '2024-02-10T08:00:00Z') 'last day of year') format='yyyy-MM-dd'}}|"
                + "{{date (truncateDate (parseDate '2024-02-10T08:00:00Z') 'last day of month') format='yyyy-MM-dd'}}",
            .exact("2024-01-01|2025-01-01|2024-12-31|2024-02-29")
        ),
        Row(
            """
            {{dateFormat (parseDate '2021-06-15T15:16:17Z') 'yyyy/MM/dd'}}|{{dateFormat (parseDate \
            '2021-06-15') format='full'}}
            """,
            .exact("2021/06/15|Tuesday, June 15, 2021")
        ),
    ]

    /// One mapping per row, matched by its `X-Row` header.
    public static func mappings() throws -> [String: String] {
        var files: [String: String] = [:]
        for (index, row) in rows.enumerated() {
            var request: [String: Any] = ["headers": ["X-Row": ["equalTo": String(index)]]]
            if let template = row.pathTemplate {
                request["urlPathTemplate"] = template
            } else {
                request["urlPathPattern"] = "/.*"
            }
            let mapping: [String: Any] = [
                "request": request,
                "response": ["status": 200, "body": row.template, "transformers": ["response-template"]],
            ]
            let data = try JSONSerialization.data(withJSONObject: mapping, options: [.sortedKeys])
            files["row\(index).json"] = String(decoding: data, as: UTF8.self)
        }
        return files
    }

    /// Sends every row to the server on `port`; what differs from the table, one line a row.
    public static func check(port: Int) throws -> [String] {
        var failures: [String] = []
        for (index, row) in rows.enumerated() {
            let connection = try WireConnection(port: port)
            defer { connection.close() }
            var head =
                """
                \(row.method) \(row.target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nX-Row: \
                \(index)\r\n
                """
            for (name, value) in row.headers { head += "\(name): \(value)\r\n" }
            if row.method != "GET" { head += "Content-Length: \(row.body.utf8.count)\r\n" }
            connection.send(head + "\r\n" + row.body)
            let response = try connection.readResponse()
            let text = response.text
            let ok: Bool
            switch row.expected {
            case .exact(let expected): ok = text == expected
            case .pattern(let pattern): ok = text.range(of: "^(?:" + pattern + ")$", options: .regularExpression) != nil
            }
            if response.status != 200 || !ok {
                failures.append(
                    "row \(index) \(row.template): \(response.status) \"\(text)\", expected \(row.expected)"
                )
            }
        }
        return failures
    }
}
