import Foundation
import HTTP1
import NativeStubs
import StubEngine
import WireMock
import Testing

/// What loading a WireMock folder reports, with the same quality as native stub files: file,
/// line, column and JSON path; unsupported keys and helpers as warnings (errors with
/// `--strict`); mistakes as errors that skip their mapping (the rest of the folder serves).
@Suite struct WireMockLoadingTests {
    /// Loads one mapping file from a fresh folder; returns the problems as their descriptions.
    func load(_ json: String, strict: Bool = false, files: [String: [UInt8]] = [:]) throws -> (StubLoadResult, [String])
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-load-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(["m.json": json], files, into: folder)
        let result = StubLoader(directory: folder.path, format: WireMockFolderFormat(), strict: strict).load()
        return (result, result.problems.map { $0.description.replacingOccurrences(of: folder.path + "/", with: "") })
    }

    @Test(arguments: [
        // (mapping, the problem expected, whether it is an error)
        (
            #"{"request": {"url": "/a", "bodyPatterns": [{"equalToXml": "<a/>"}]}, "response": {}}"#,
            #"""
            mappings/m.json:1:45: warning: $.request.bodyPatterns[0].equalToXml: "equalToXml" is not supported \#
            (XML comparison is not implemented)
            """#,
            false
        ),
        (
            #"{"request": {"url": "/a", "customMatcher": {"name": "x"}}, "response": {}}"#,
            #"mappings/m.json:1:27: warning: $.request.customMatcher: "customMatcher" is not supported"#, false
        ),
        (
            #"{"request": {"urlPath": "/a"}, "response": {}, "postServeActions": [{"name": "my-action"}]}"#,
            #"""
            mappings/m.json:1:78: warning: $.postServeActions[0].name: "my-action" is a Java extension; only \#
            "webhook" is run
            """#,
            false
        ),
        (
            #"""
            {"request": {"urlPath": "/a"}, "response": {}, "serveEventListeners": [{"name": "webhook", \#
            "parameters": {"method": "POST"}}]}
            """#,
            #"warning: $.serveEventListeners[0].parameters: a webhook needs a "url"; the webhook is not sent"#, false
        ),
        (
            #"""
            {"request": {"urlPath": "/a"}, "response": {}, "postServeActions": {"webhook": {"url": "http://h/", \#
            "delay": {"type": "x"}}}}
            """#,
            #"""
            warning: $.postServeActions.webhook.delay.type: expected "uniform", "lognormal" or "fixed"; the \#
            webhook is not sent
            """#,
            false
        ),
        (
            #"{"request": {"urlPath": "/a", "metod": "GET"}, "response": {}}"#,
            #"""
            warning: $.request.metod: unknown key "metod" in a request pattern; it is ignored (did you mean \#
            "method"?)
            """#,
            false
        ),
        (
            #"{"request": {"urlPath": "/a"}, "response": {"transformers": ["my-extension"]}}"#,
            #"warning: $.response.transformers[0]: transformer "my-extension" is not supported"#, false
        ),
        (
            #"""
            {"request": {"urlPath": "/a"}, "response": {"body": "{{lookupUser request.body}}", "transformers": \#
            ["response-template"]}}
            """#,
            #"mappings/m.json:1:53: warning: $.response.body: {{lookupUser request.body}}: "#
                + #"unknown helper "lookupUser""#,
            false
        ),
        (
            #"{"request": {"urlPattern": "/(a)\\2"}, "response": {}}"#,
            #"""
            mappings/m.json:1:28: error: $.request.urlPattern: regular expression "/(a)\2": back-reference \2 \#
            names a group
            """#,
            true
        ),
        (
            #"{"request": {"urlPathPattern": "/(?<=a+)b"}, "response": {}}"#,
            #"""
            error: $.request.urlPathPattern: regular expression "/(?<=a+)b": look-behind (?<=...) needs a bounded \#
            length
            """#,
            true
        ),
        (
            #"{"request": {"url": "/a", "urlPath": "/a"}, "response": {}}"#,
            #"""
            error: $.request.urlPath: a request pattern takes one of url, urlPattern, urlPath, urlPathPattern, \#
            urlPathTemplate
            """#,
            true
        ),
        (
            #"{"id": "not-a-uuid", "request": {"url": "/a"}, "response": {}}"#,
            #"mappings/m.json:1:8: error: $.id: expected a UUID"#, true
        ),
        (
            #"{"request": {"url": "/a"}, "response": {"status": 700}}"#,
            #"mappings/m.json:1:51: error: $.response.status: expected an HTTP status from 100 to 599"#, true
        ),
        (
            #"{"request": {"url": "/a"}, "response": {"bodyFileName": "missing.json"}}"#,
            #"warning: $.response.bodyFileName: bodyFileName "missing.json" does not exist"#, false
        ),
        (
            #"{"request": {"url": "/a"}, "response": {"bodyFileName": "../../etc/passwd"}}"#,
            #"error: $.response.bodyFileName: bodyFileName "../../etc/passwd" points outside the stub folder"#, true
        ),
        (
            #"""
            {"request": {"urlPathTemplate": "/a/{id}", "pathParameters": {"name": {"equalTo": "x"}}}, "response": \#
            {}}
            """#,
            #"error: $.request.pathParameters.name: the urlPathTemplate has no {name}; it has {id}"#, true
        ),
        (
            #"{"request": {"urlPathTemplate": "/a/{id}.json"}, "response": {}}"#,
            #"error: $.request.urlPathTemplate: "{id}.json": a {variable} must be a whole segment here"#, true
        ),
        (
            #"{"request": {"url": "/a", "bodyPatterns": [{"matchesJsonPath": "$.a[?(@.b =~ /x/q)]"}]}, "#
                + #""response": {}}"#,
            #"""
            error: $.request.bodyPatterns[0].matchesJsonPath: JSONPath "$.a[?(@.b =~ /x/q)]": unknown regular \#
            expression flag q; the flags are i, m, s, d, u and U (at column 17 of the expression)
            """#,
            true
        ),
        (
            #"{"request": {"url": "/a", "bodyPatterns": [{"equalToJson": "{not json"}]}, "response": {}}"#,
            #"error: $.request.bodyPatterns[0].equalToJson: the JSON in this string does not parse"#, true
        ),
        (
            #"""
            {"request": {"url": "/a"}, "response": {"body": "{{#if request.method}}open", "transformers": \#
            ["response-template"]}}
            """#,
            #"error: $.response.body: template: {{#if}} is never closed with {{/if}}"#, true
        ),
        (
            #"{"request": {"url": "/a"}, "response": {"fault": "MELTDOWN"}}"#,
            #"""
            error: $.response.fault: expected one of CONNECTION_RESET_BY_PEER, EMPTY_RESPONSE, \#
            MALFORMED_RESPONSE_CHUNK, RANDOM_DATA_THEN_CLOSE
            """#,
            true
        ),
        (
            "{\"request\": {\"url\": \"/a\"},\n  \"response\": {\"status\": 200,}}",
            "mappings/m.json:2:30: error: trailing comma", true
        ),
    ])
    func reports(_ mapping: String, _ expected: String, _ isError: Bool) throws {
        let (result, problems) = try load(mapping)
        #expect(problems.contains { $0.contains(expected) }, "\(problems)")
        // An error skips its mapping, named with its place; the folder still serves.
        #expect(result.isServable)
        #expect(result.skipped.count == (isError ? 1 : 0), "\(result.skipped)")
        #expect(result.stubs.count == (isError ? 0 : 1))
        if let skip = result.skipped.first {
            #expect(skip.file.hasSuffix("mappings/m.json") && skip.jsonPath == "$" && skip.position != nil, "\(skip)")
        }
    }

    /// `--strict`: the same warnings, as errors; the folder is not served.
    @Test func strictTurnsWarningsIntoErrors() throws {
        let mapping = #"{"request": {"url": "/a", "customMatcher": {"name": "x"}}, "response": {}}"#
        let (lenient, _) = try load(mapping)
        #expect(lenient.isServable && lenient.warnings.count == 1)
        let (strict, problems) = try load(mapping, strict: true)
        #expect(!strict.isServable)
        #expect(
            problems.contains {
                $0.contains(#"error: $.request.customMatcher: "customMatcher" is not supported"#)
                    && $0.contains("--strict")
            }
        )
    }

    /// A mapping with an unsupported condition loads (with its warning) but never matches, so
    /// it cannot answer a request it was not meant for.
    @Test func unsupportedConditionsNeverMatch() throws {
        let (result, _) = try load(
            #"{"request": {"urlPath": "/xml", "bodyPatterns": [{"matchesXPath": "//a"}]}, "response": {"body": "x"}}"#
        )
        let engine = Engine(stubs: result.stubs)
        let request = try IncomingRequest.make(
            method: "POST",
            target: "/xml",
            headers: HeaderFields(),
            body: Array("<a/>".utf8),
            peer: "",
            authority: "x"
        )
        let outcome = engine.handle(request)
        #expect(
            outcome.nearMiss?.resolved.candidates.first?.mismatches.first?.expected.contains("not supported") == true
        )
    }

    /// Mappings without an id get one made from their file and place: the same on every load.
    @Test func generatedIDsAreStable() throws {
        let mapping =
            #"{"mappings": [{"request": {"url": "/a"}, "response": {}}, {"request": {"url": "/b"}, "response": {}}]}"#
        let first = try load(mapping).0.stubs.map(\.id)
        let second = try load(mapping).0.stubs.map(\.id)
        #expect(first == second && Set(first).count == 2 && first.allSatisfy { UUID(uuidString: $0) != nil })
    }

    @Test func messageMappingsInMappingsAreSkippedWithAWarning() throws {
        let (result, problems) = try load(#"{"trigger": {"type": "message"}, "actions": []}"#)
        #expect(result.isServable && result.stubs.isEmpty)
        #expect(problems.contains { $0.contains("a message (WebSocket) mapping: not supported") })
    }
}
