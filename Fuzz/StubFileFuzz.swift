// libFuzzer target for the stub format: the decoder, the encoder, path patterns and templates.
// Not part of the package (SwiftPM ignores this folder): scripts/fuzz builds SystemSupport, HTTP1
// and StubEngine as libraries (as SwiftPM would) and links this file against them.
//
// The first byte of an input chooses what the rest is:
//  - even: a stub file (any bytes). Decoding gives problems or stubs, never a trap; every stub
//    decoded is written by the encoder, and what it writes decodes again to a stub that writes
//    the same bytes; every stub answers a request made to fit it (its literal path, or its
//    pattern with each `{name}` and `*` filled, `**` given two segments) without a trap, and that
//    path matches its pattern; a templated JSON body renders to valid JSON whatever the request;
//    when the stub does not answer it, the near-miss report names it with at least one failed
//    condition (the matcher and the report's reasons agree, JSON body conditions included).
//  - odd: template text. It becomes the body (a string, and a string inside a JSON body) and a
//    header value of a templated stub on the path `/t/{id}`; loading reports problems or compiles
//    it, and a compiled one renders against requests carrying hostile values without a trap,
//    keeping the JSON body valid JSON.
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.
import Foundation
import HTTP1
import JSON
import NativeStubs
import StubEngine
import SystemSupport

private let engineForDecoding = Engine(stubs: [], options: .init(journalCapacity: 0))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = input.first else { return 0 }
    let rest = Array(input.dropFirst())
    if mode % 2 == 0 { checkStubFile(rest) } else { checkTemplate(rest) }
    return 0
}

// MARK: - stub files

private func checkStubFile(_ bytes: [UInt8]) {
    guard case .success(let stubs) = engineForDecoding.decodeRuntimeStubs(bytes, label: "fuzz.json") else { return }
    for stub in stubs {
        let written = StubEncoder.encode(stub)
        guard case .success(let again) = engineForDecoding.decodeRuntimeStubs(written, label: "written.json"),
            again.count == 1
        else {
            preconditionFailure(
                "the encoder wrote what the decoder refuses: \(String(decoding: written, as: UTF8.self))"
            )
        }
        precondition(StubEncoder.encode(again[0]) == written, "writing a written stub again changed it")
        serve(stub)
    }
}

/// A path made to fit a stub's pattern, or nil for a regular expression.
private func fittingPath(_ pattern: PathPattern?) -> String? {
    guard let pattern else { return "/anything" }
    if let literal = pattern.literalPath { return literal }
    guard !pattern.isRegex else { return nil }
    var segments: [String] = []
    for segment in PathPattern.split(pattern.source) {
        switch segment {
        case "*": segments.append("x")
        case "**": segments += ["a", "b"]
        default:
            if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2 {
                segments.append("42")
            } else {
                segments.append(PercentDecoding.decodeLenient(segment))
            }
        }
    }
    return "/" + segments.joined(separator: "/")
}

private func serve(_ stub: Stub) {
    let engine = Engine(stubs: [stub], options: .init(journalCapacity: 4))
    guard let path = fittingPath(stub.request.path) else { return }
    if let pattern = stub.request.path {
        precondition(
            pattern.match(path, segments: PathPattern.split(path)) != nil,
            "\(path) does not match the pattern it was made from, \(pattern.source)"
        )
    }
    let method = stub.request.methods?.first ?? "GET"
    let encoded = path.utf8.map { b -> String in
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "/")
            ? String(UnicodeScalar(b)) : String(format: "%%%02X", b)
    }.joined()
    guard
        let request = try? IncomingRequest.make(
            method: method,
            target: encoded,
            headers: HeaderFields([("Host", "fuzz")]),
            body: Array(#"{"a": "\" \\ </script>", "n": [1, 2]}"#.utf8),
            peer: "fuzz",
            authority: "fuzz"
        )
    else { return }
    let outcome = engine.handle(request)
    if case .noMatch(let report) = outcome.kind, stub.scenario == nil {
        precondition(
            report.resolved.candidates.first?.mismatches.isEmpty == false,
            """
            the stub did not match, yet the near-miss report finds nothing that failed: \
            \(String(decoding: StubEncoder.encode(stub), as: UTF8.self))
            """
        )
    }
    if case .now(let response) = outcome.reply, case .stub = outcome.kind, stub.response.isTemplated,
        response.prepared.headers["Content-Type"]?.contains("json") == true, !response.prepared.body.isEmpty,
        let declared = try? JSONParser.parse(StubEncoder.encode(stub)), declared["response"]?["body"]?.string == nil,
        declared["response"]?["body"] != nil
    {
        precondition(
            (try? JSONParser.parse(response.prepared.body)) != nil,
            "a templated JSON body rendered to invalid JSON: \(String(decoding: response.prepared.body, as: UTF8.self))"
        )
    }
}

// MARK: - templates

private func checkTemplate(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let stub = JSONNode.object([
        ("request", .object([("path", .string("/t/{id}"))])),
        (
            "response",
            .object([
                ("template", .bool(true)),
                (
                    "headers",
                    .object([
                        (
                            "X-T",
                            .string(
                                text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
                            )
                        )
                    ])
                ),
                ("body", .object([("text", .string(text)), ("list", .array([.string(text), .number(1)]))])),
            ])
        ),
    ])
    guard
        case .success(let stubs) = engineForDecoding.decodeRuntimeStubs(
            JSONSerializer.bytes(stub),
            label: "template.json"
        ),
        let compiled = stubs.first
    else { return }
    let engine = Engine(stubs: [compiled], options: .init(journalCapacity: 0))
    for (target, body) in [
        ("/t/1?q=%22%5C", #"{"user": {"name": "\"\\\n"}}"#), ("/t/%F0%9F%98%80", "not json \u{1}"), ("/t/x", ""),
    ] {
        guard
            let request = try? IncomingRequest.make(
                method: "POST",
                target: target,
                headers: HeaderFields([("Host", "h:1"), ("User-Agent", "\"'<>")]),
                body: Array(body.utf8),
                peer: "fuzz",
                authority: "h:1"
            )
        else { continue }
        guard case .now(let response) = engine.handle(request).reply else { continue }
        precondition(
            (try? JSONParser.parse(response.prepared.body)) != nil,
            "a templated JSON body rendered to invalid JSON: \(String(decoding: response.prepared.body, as: UTF8.self))"
        )
        for field in response.prepared.headers {
            precondition(
                !field.value.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" },
                "a line break in a header value"
            )
        }
    }
}
