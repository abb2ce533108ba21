// libFuzzer target for the Handlebars subset (WireMock's response templates): the compiler and
// the renderer. Not part of the package (SwiftPM ignores this folder): scripts/fuzz builds
// Handlebars and the modules under it as libraries (as SwiftPM would) and links this file
// against them, so only package API is used; the request a template sees is modelled here.
//
// Input: the template text (UTF-8; invalid bytes become U+FFFD).
//
// Invariants (a violation is a precondition failure, which libFuzzer saves as a crash; a render
// that takes seconds is a timeout, which it saves too):
//  1. compiling never traps; a refusal has a message and an offset within the text;
//  2. a compiled template renders against each request below without a trap, and its output
//     stays within the renderer's bound (plus one node's worth: the bound is checked between
//     nodes);
//  3. text without "{{" renders as itself;
//  4. without the random and clock helpers (randomValue, pickRandom, now...), rendering twice gives the same text;
//  5. escaping: when the template writes no "<" or ">" itself and has no raw tag ({{{...}}} or
//     {{& ...}}), the output has none either, whatever the request holds.
import Foundation
import Handlebars
import JSON

/// One request as a template sees it (the shape of WireMock's request model).
private struct FuzzRequest: HandlebarsObject {
    let method: String
    let path: String
    let query: [(String, String)]
    let headers: [(String, String)]
    let body: String

    var text: String { url }
    var url: String { query.isEmpty ? path : path + "?" + query.map { "\($0.0)=\($0.1)" }.joined(separator: "&") }
    var segments: [String] { path.split(separator: "/").map(String.init) }

    func member(_ name: String) -> HandlebarsValue {
        switch name {
        case "url": return .string(url)
        case "path": return .object(Segments(text: path, values: segments))
        case "pathSegments": return .list(segments.map { .string($0) })
        case "query": return .object(Named(pairs: query, ignoreCase: false))
        case "headers": return .object(Named(pairs: headers, ignoreCase: true))
        case "method": return .string(method)
        case "body": return .string(body)
        default: return .null
        }
    }
}

private struct Segments: HandlebarsObject {
    let text: String
    let values: [String]
    var elements: [HandlebarsValue]? { values.map { .string($0) } }
    func member(_ name: String) -> HandlebarsValue {
        Int(name).flatMap { values.indices.contains($0) ? .string(values[$0]) : nil } ?? .null
    }
}

private struct Named: HandlebarsObject {
    let pairs: [(String, String)]
    let ignoreCase: Bool
    var text: String { "" }
    func member(_ name: String) -> HandlebarsValue {
        let values = pairs.filter { ignoreCase ? $0.0.lowercased() == name.lowercased() : $0.0 == name }.map(\.1)
        if values.isEmpty { return .null }
        return values.count == 1 ? .string(values[0]) : .list(values.map { .string($0) })
    }
}

private struct FuzzData: HandlebarsData {
    let request: FuzzRequest
    let parameters: JSONNode?

    func root(_ name: String) -> HandlebarsValue? {
        switch name {
        case "request": return .object(request)
        case "parameters": return parameters.map { HandlebarsValue(json: $0) }
        default: return nil
        }
    }

    func parseJSON(_ text: String) -> JSONNode? {
        try? JSONParser.parse(Array(text.utf8), limits: .requestBody)
    }
}

/// Hostile and ordinary requests: markup and quotes everywhere, repeated names, JSON and not.
/// Made per input, not held in a global: LeakSanitizer reports a global JSON tree as leaked at
/// exit (it does not find the references that hold its boxes).
private func requests() -> [FuzzData] {
    [
        FuzzData(
            request: FuzzRequest(
                method: "POST",
                path: "/users/42/<b>",
                query: [("q", "<i>&\"'"), ("q", "2"), ("n", "10")],
                headers: [("X-A", "<script>"), ("Content-Type", "application/json"), ("x-a", "`=")],
                body: #"""
                    {"name": "<a href='x'>", "list": [1, 2.5, "3", null, true],
                     "nested": {"k": "v", "deep": [{"k": 1}]}}
                    """#
            ),
            parameters: try? JSONParser.parse(Array(#"{"greeting": "<hi>", "n": 3}"#.utf8))
        ),
        FuzzData(request: FuzzRequest(method: "GET", path: "/", query: [], headers: [], body: ""), parameters: nil),
        FuzzData(
            request: FuzzRequest(
                method: "PUT",
                path: "/a//b/%2F",
                query: [("", ""), ("x", "")],
                headers: [("H", "")],
                body: "a&b<c>d \u{0} \u{1F600}"
            ),
            parameters: nil
        ),
    ]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let template: HandlebarsTemplate
    do {
        template = try HandlebarsTemplate(text, knownRoots: ["request", "parameters"])
    } catch {
        precondition(!error.message.isEmpty, "a refusal without a message")
        precondition(
            error.offset >= 0 && error.offset <= text.count,
            "offset \(error.offset) outside the \(text.count) characters: \(error)"
        )
        return 0
    }
    let varies = ["random", "Random", "now"].contains { text.contains($0) }
    let mayWriteMarkup =
        text.contains("<") || text.contains(">") || text.contains("{{{") || text.contains("{{&")
        || text.contains("{{~{") || text.contains("{{~&")
        // A block that decodes (`{{#base64 decode=true}}`, `{{#urlEncode decode=true}}`) writes
        // what it decodes as it is, as in Handlebars.java: the template asked for it.
        || text.contains("decode")
        // So do the blocks that parse their body (`{{#formatXml}}` reads entities, the JSON
        // blocks read `\u003c`) and write what they parsed, as WireMock's helpers do.
        || ["formatXml", "formatJson", "jsonMerge", "jsonArrayAdd"].contains { text.contains($0) }
    for data in requests() {
        let output = HandlebarsRenderer.render(template, data: data)
        precondition(
            output.utf8.count <= HandlebarsRenderer.maximumOutput + (1 << 20),
            "output of \(output.utf8.count) bytes"
        )
        if !HandlebarsTemplate.hasTags(text) {
            precondition(Array(output.utf8) == Array(text.utf8), "text without tags changed: \(output)")
        }
        if !varies {
            precondition(HandlebarsRenderer.render(template, data: data) == output, "two renders differ")
        }
        if !mayWriteMarkup {
            precondition(!output.contains("<") && !output.contains(">"), "unescaped markup from the request: \(output)")
        }
    }
    return 0
}
