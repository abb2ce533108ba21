import Foundation
import HTTP1
import StubAuthoring
import StubEngine
import WireMock
import XCTest

/// Where the import's own translation had drifted from the one serving uses, before the import
/// went through `WireMockStubBuilder` and `StubEncoder.encodeModel`: each mapping is served
/// directly and imported, and both answer alike (or the note says why not).
final class WireMockImportDriftTests: XCTestCase {
    struct Served {
        let direct: Engine
        let imported: Engine
        let result: WireMockImporter.Result
        let folder: URL

        var notes: [String] {
            result.notes.map { $0.description.replacingOccurrences(of: folder.path + "/", with: "") }
        }

        /// Status and body, from the folder served directly and from the imported stubs.
        func ask(
            _ target: String,
            method: String = "GET",
            headers: [(String, String)] = [],
            host: String = "x"
        ) throws -> (direct: String, imported: String) {
            func answer(_ engine: Engine) throws -> String {
                let request = try IncomingRequest.make(
                    method: method,
                    target: target,
                    headers: HeaderFields([("Host", host)] + headers),
                    body: [],
                    peer: "127.0.0.1:1",
                    authority: host
                )
                guard let response = engine.handle(request).response else { return "no response" }
                // A near miss names the stub files, which differ.
                if response.prepared.status == 404 { return "404" }
                return "\(response.prepared.status) \(String(decoding: response.prepared.body, as: UTF8.self))"
            }
            return (try answer(direct), try answer(imported))
        }

        func file(_ name: String) throws -> String {
            let file = try XCTUnwrap(result.plan.files.first { $0.relativePath == name })
            return String(decoding: file.bytes, as: UTF8.self)
        }
    }

    func serve(_ mappings: [String: String], files: [String: [UInt8]] = [:]) throws -> Served {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("wm-drift-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        try WireMockHarness.write(mappings, files, into: folder)
        let direct = StubLoader(directory: folder.path, format: WireMockFolderFormat()).load()
        XCTAssertEqual(direct.errors, [])
        let result = WireMockImporter.plan(folder: folder.path)
        let out = folder.appendingPathComponent("out")
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let imported = StubLoader(directory: out.path).load()
        XCTAssertEqual(imported.errors, [])
        return Served(
            direct: Engine(stubs: direct.stubs),
            imported: Engine(stubs: imported.stubs),
            result: result,
            folder: folder
        )
    }

    /// The import cut a urlPattern at its `\?`, even inside a group: `/mas/alerts(` is no
    /// regular expression, and the whole import failed. WireMock matches the pattern over path
    /// and query; a `\?` outside every group now splits it into `pathPattern` and `rawQuery`.
    func testAURLPatternIsSplitAtItsQueryOnlyOutsideAGroup() throws {
        let served = try serve([
            "a.json": #"{"request": {"urlPattern": "/mas/alerts(\\?.*)?"}, "response": {"body": "alerts"}}"#,
            "b.json": #"{"request": {"urlPattern": "/search\\?q=[a-z]+"}, "response": {"body": "found"}}"#,
        ])
        XCTAssertEqual(served.notes.filter { $0.contains("b.json") }, [], "the split says all the pattern says")
        XCTAssertTrue(served.notes.contains { $0.contains("a.json") && $0.contains("approximated") }, "\(served.notes)")
        for target in ["/mas/alerts", "/mas/alerts?page=2", "/search?q=abc", "/search?q=1", "/search"] {
            let (direct, imported) = try served.ask(target)
            XCTAssertEqual(direct, imported, target)
        }
        XCTAssertEqual(try served.ask("/search?q=abc").imported, "200 found")
    }

    /// A `bodyFileName` whose file has tags, in a templated mapping: WireMock renders the file.
    /// The import copied it as it was, untemplated; its tags now become the native template.
    func testATemplatedBodyFileIsRenderedAsServed() throws {
        let served = try serve(
            [
                "m.json": #"""
                {"request": {"urlPathTemplate": "/users/{id}"}, "response": {"bodyFileName": "user.txt", \#
                "headers": {"X-User": "{{request.path.id}}"}, "transformers": ["response-template"]}}
                """#
            ],
            files: ["user.txt": Array("user {{request.path.id}}".utf8)]
        )
        XCTAssertEqual(served.notes.filter { !$0.contains("HTML-escapes") }, [])
        let (direct, imported) = try served.ask("/users/7")
        XCTAssertEqual(direct, "200 user 7")
        XCTAssertEqual(imported, direct)
    }

    /// `transformerParameters` are `parameters` in a template; the import had no native form for
    /// `{{parameters.x}}` and wrote the whole template as text. Their values are written in now,
    /// as webhooks' parameters were.
    func testTransformerParametersAreWrittenIn() throws {
        let served = try serve([
            "m.json": #"""
            {"request": {"urlPath": "/p"}, "response": {"body": "{{parameters.greeting}} {{request.query.who}}", \#
            "transformers": ["response-template"], "transformerParameters": {"greeting": "hello"}}}
            """#
        ])
        XCTAssertFalse(served.notes.contains { $0.contains("dropped") }, "\(served.notes)")
        let (direct, imported) = try served.ask("/p?who=ann")
        XCTAssertEqual(direct, "200 hello ann")
        XCTAssertEqual(imported, direct)
    }

    /// A path parameter fixed by `equalTo` is written into the path; a template naming it was
    /// written as `{{request.path.kind}}`, which the stub format refuses for a path that does not
    /// capture it, so the import failed. Its one value is written in.
    func testAFixedPathParameterIsWrittenIntoTheTemplate() throws {
        let served = try serve([
            "m.json": #"""
            {"request": {"urlPathTemplate": "/things/{kind}/{id}", "pathParameters": {"kind": {"equalTo": "box"}}}, \#
            "response": {"body": "{{request.path.kind}} {{request.path.id}}", "transformers": ["response-template"]}}
            """#
        ])
        let (direct, imported) = try served.ask("/things/box/3")
        XCTAssertEqual(direct, "200 box 3")
        XCTAssertEqual(imported, direct)
        XCTAssertEqual(try served.ask("/things/bag/3").imported, "404")
    }

    /// `scheme: http` always holds for stubserver, which serves http: nothing is lost, so
    /// nothing is listed (the import said "the scheme is not checked"). A `statusMessage` that
    /// is the status's usual phrase is not lost either.
    func testWhatIsNotLostIsNotListed() throws {
        let served = try serve([
            "m.json": #"""
            {"request": {"urlPath": "/s", "scheme": "http"}, "response": {"status": 404, "statusMessage": "Not Found"}}
            """#
        ])
        XCTAssertEqual(served.notes, [])
        let (direct, imported) = try served.ask("/s")
        XCTAssertEqual(direct, imported)
    }

    /// Two cookies, or credentials beside an `Authorization` condition, were written as two
    /// `Cookie` (or `Authorization`) keys of one JSON object, of which the loader keeps one: a
    /// condition was lost without a word. The first is written; the other is listed.
    func testASecondConditionOnOneHeaderIsListed() throws {
        let served = try serve([
            "m.json": #"""
            {"request": {"urlPath": "/c", "cookies": {"a": {"equalTo": "1"}, "b": {"equalTo": "2"}}}, \#
            "response": {"body": "c"}}
            """#
        ])
        XCTAssertTrue(
            served.notes.contains { $0.contains("$.request.cookies.b") && $0.contains("dropped") },
            "\(served.notes)"
        )
        let written = try served.file("m.json")
        XCTAssertEqual(written.components(separatedBy: "\"Cookie\"").count, 2, written)
    }

    /// Serving lowercases the request's host before a `host` pattern sees it; the import wrote
    /// a case-sensitive condition, so `Host: Example.COM` was 404 after the import.
    func testTheHostIsComparedIgnoringCase() throws {
        let served = try serve([
            "m.json": #"{"request": {"urlPath": "/h", "host": {"equalTo": "example.com"}}, "response": {"body": "h"}}"#
        ])
        let (direct, imported) = try served.ask("/h", host: "Example.COM")
        XCTAssertEqual(direct, "200 h")
        XCTAssertEqual(imported, direct)
    }

    /// Of two mappings of equal priority that both match, WireMock answers with the later; the
    /// stub format with the more specific. The import said nothing; a mapping a later one
    /// covers (it never answers under WireMock, and answers imported) is named; two mappings
    /// whose own conditions tell their requests apart are not.
    func testATieTheStubFormatBreaksOtherwiseIsNamed() throws {
        let served = try serve([
            "a.json": #"{"request": {"urlPath": "/t/1"}, "response": {"body": "literal"}}"#,
            "b.json": #"{"request": {"urlPathTemplate": "/t/{id}"}, "response": {"body": "template"}}"#,
            "c.json": #"{"request": {"urlPath": "/u", "queryParameters": {"d": {"equalTo": "1"}}}, "response": {}}"#,
            "d.json": #"{"request": {"urlPath": "/u", "queryParameters": {"d": {"equalTo": "2"}}}, "response": {}}"#,
        ])
        XCTAssertEqual(try served.ask("/t/1").direct, "200 template")
        XCTAssertEqual(served.notes.count, 1, "\(served.notes)")
        XCTAssertTrue(served.notes[0].hasPrefix("mappings/a.json:1:1: approximated: $: "), served.notes[0])
        XCTAssertTrue(served.notes[0].contains("with mappings/b.json $ (the later"), served.notes[0])
    }

    /// Bodies that are not text are written as `bodyBase64`, padded (RFC 4648), in responses
    /// and in webhooks; the imported stubs serve the same bytes.
    func testBinaryBodiesAreWrittenAsPaddedBase64() throws {
        let served = try serve([
            "one.json": #"{"request": {"urlPath": "/1"}, "response": {"base64Body": "/w=="}}"#,
            "two.json": #"{"request": {"urlPath": "/2"}, "response": {"base64Body": "//4="}}"#,
            "three.json": #"{"request": {"urlPath": "/3"}, "response": {"base64Body": "//79"}}"#,
            "hook.json": #"""
            {"request": {"urlPath": "/h"}, "response": {"status": 204}, "serveEventListeners": [{"name": "webhook", \#
            "parameters": {"method": "POST", "url": "http://127.0.0.1:9/h", "base64Body": "AAEC/w=="}}]}
            """#,
        ])
        let expected = ["one.json": "/w==", "two.json": "//4=", "three.json": "//79", "hook.json": "AAEC/w=="]
        for (name, base64) in expected {
            let written = try served.file(name)
            XCTAssertTrue(written.contains(#""bodyBase64": "\#(base64)""#), written)
        }
        for target in ["/1", "/2", "/3"] {
            let (direct, imported) = try served.ask(target)
            XCTAssertEqual(imported, direct, target)
        }
    }
}
