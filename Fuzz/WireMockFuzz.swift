// libFuzzer target for WireMock mapping loading: mapping JSON read, checked and translated into
// the engine's stubs, those stubs answering requests, and `import wiremock` writing them as
// native stub files. Not part of the package (SwiftPM ignores this folder): scripts/fuzz builds
// SystemSupport, HTTP1, StubEngine, StubAuthoring, StubImport and WireMock as libraries (as
// SwiftPM would) and links this file against them.
//
// Input: a mapping file's bytes (one mapping, or {"mappings": [...]}). The engine reads it as
// the admin API does (POST /__admin/mappings), with a scratch folder's __files/ for bodies.
//
// Invariants (a violation is a precondition failure, which libFuzzer saves as a crash):
//  1. reading never traps; a refusal has at least one error, each problem a message, a JSON
//     path starting with "$" and a position inside the input;
//  2. each stub made answers a request made to fit its mapping (method, URL, equalTo headers
//     and query parameters, an equalTo body) without a trap; a mapping that says no more than a
//     method and a plain `url` or `urlPath` answers that request itself;
//  3. the importer turns the same file into stub files that load without an error (it refuses
//     to write a folder that would not load, so a refusal here is a mapping it cannot import),
//     and every note it makes names a JSON path.
import Foundation
import HTTP1
import JSON
import NativeStubs
import StubAuthoring
import StubEngine
import StubImport
import WireMock

/// A scratch WireMock folder: __files/ with bodies a mapping may name, mappings/ rewritten per
/// input for the importer.
private let scratch: String = {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-fuzz-\(getpid())").path
    try? FileManager.default.removeItem(atPath: root)
    for (name, text) in [
        ("body.json", #"{"a": 1}"#), ("page.html", "<p>{{request.path}}</p>"), ("sub/b.txt", "b"),
        ("t.txt", "{{request.method}}"),
    ] {
        let path = root + "/__files/" + name
        try! FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }
    try! FileManager.default.createDirectory(atPath: root + "/mappings", withIntermediateDirectories: true)
    return root
}()

private let dialect = WireMockDialect()

private let reader: Engine = {
    var options = Engine.Options(journalCapacity: 0, directory: scratch)
    options.folderFormat = dialect.folderFormat
    return Engine(stubs: [], options: options)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    switch reader.decodeWireMockMappings(input, dialect: dialect, label: "fuzz.json") {
    case .failure(let failure):
        precondition(failure.problems.contains { $0.severity == .error }, "refused without an error")
        for problem in failure.problems { checkPlace(problem, input) }
    case .success(let stubs):
        for stub in stubs { serve(stub) }
        if !stubs.isEmpty { checkImport(input) }
    }
    return 0
}

// MARK: - 1: problems name their place

private func checkPlace(_ problem: StubProblem, _ input: [UInt8]) {
    precondition(!problem.message.isEmpty, "a problem without a message")
    if let path = problem.jsonPath { precondition(path.hasPrefix("$"), "JSON path \(path)") }
    guard let position = problem.position, position.line > 0 else { return }
    let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    precondition(position.line <= lines.count, "line \(position.line) of \(lines.count): \(problem)")
    precondition(position.column >= 1 && position.column <= lines[position.line - 1].count + 1, "column of \(problem)")
}

// MARK: - 2: a fitting request is answered

private func serve(_ stub: Stub) {
    var options = Engine.Options(journalCapacity: 4, directory: scratch)
    options.folderFormat = dialect.folderFormat
    let engine = Engine(stubs: [stub], options: options)
    let request = stub.definition?["request"]
    var method = request?["method"]?.string ?? "GET"
    if method == "ANY" || !HTTPToken.isToken(method) || method == "CONNECT" { method = "GET" }
    var target = "/fuzz"
    var plain = false
    for key in ["url", "urlPath", "urlPathTemplate"] {
        guard let s = request?[key]?.string, s.hasPrefix("/") else { continue }
        target =
            key == "urlPathTemplate"
            ? s.replacingOccurrences(of: "{", with: "x").replacingOccurrences(of: "}", with: "") : s
        // A method given as a matcher object (`{"oneOf": [...]}`) is not a plain mapping: the
        // request made here would be a GET (a ten-minute run's finding in this harness).
        plain =
            key != "urlPathTemplate" && plainURL(s)
            && (request?.members?.allSatisfy { ["method", "url", "urlPath"].contains($0.key) } ?? false)
            && (request?["method"] == nil || request?["method"]?.string != nil)
    }
    var query: [String] = []
    for member in request?["queryParameters"]?.members ?? [] {
        if let value = member.value["equalTo"]?.string { query.append(encode(member.key) + "=" + encode(value)) }
    }
    if !query.isEmpty { target += (target.contains("?") ? "&" : "?") + query.joined(separator: "&") }
    var headers: [(String, String)] = [("Host", "fuzz:8080")]
    for member in request?["headers"]?.members ?? [] {
        if let value = member.value["equalTo"]?.string, HTTPToken.isToken(member.key),
            !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            headers.append((member.key, value))
        }
    }
    var body: [UInt8] = []
    if let pattern = request?["bodyPatterns"]?.elements?.first {
        if let s = pattern["equalTo"]?.string {
            body = Array(s.utf8)
        } else if let json = pattern["equalToJson"] {
            body = Array((json.string ?? JSONSerializer.string(json)).utf8)
        }
    }
    guard
        let incoming = try? IncomingRequest.make(
            method: method,
            target: target,
            headers: HeaderFields(headers),
            body: body,
            peer: "127.0.0.1",
            authority: "fuzz:8080"
        )
    else {
        precondition(!plain, "a plain mapping's own URL \(target) is not a request")
        return
    }
    let outcome = engine.handle(incoming)
    if plain, stub.scenario == nil {
        guard case .stub = outcome.kind else {
            preconditionFailure("\(method) \(target) is not answered by its own mapping: \(outcome.kind)")
        }
    }
}

/// A URL whose bytes a client sends as written: unreserved characters, "/", "?", "&", "=" and
/// valid escapes, and no dot segment (clients remove those before sending).
private func plainURL(_ s: String) -> Bool {
    let bytes = Array(s.utf8)
    var i = 0
    while i < bytes.count {
        let b = bytes[i]
        if b == UInt8(ascii: "%") {
            guard i + 2 < bytes.count, bytes[i + 1].isHexDigit, bytes[i + 2].isHexDigit else { return false }
            i += 3
            continue
        }
        let ok =
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            || Array("-._~/?&=".utf8).contains(b)
        guard ok else { return false }
        i += 1
    }
    let path = s.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
    return !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
    }
}

private func encode(_ s: String) -> String {
    s.utf8.map { b -> String in
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            ? String(UnicodeScalar(b)) : String(format: "%%%02X", b)
    }.joined()
}

// MARK: - 3: what the importer writes loads

private var imports = 0

private func checkImport(_ input: [UInt8]) {
    let file = scratch + "/mappings/m.json"
    FileManager.default.createFile(atPath: file, contents: Data(input))
    defer { try? FileManager.default.removeItem(atPath: file) }
    let result = WireMockImporter.plan(folder: scratch)
    for note in result.notes { precondition(note.jsonPath.hasPrefix("$"), "a note without a JSON path: \(note)") }
    guard !result.plan.stubFiles.isEmpty else { return }
    imports += 1
    let out = scratch + "/out-\(imports)"
    defer { try? FileManager.default.removeItem(atPath: out) }
    do {
        _ = try StubFolderWriter.write(result.plan, into: out, existing: .keep)
    } catch {
        preconditionFailure(
            """
            the imported stubs do not load: \(error)\nnotes: \
            \(result.notes.map(\.description).joined(separator: "\n"))
            """
        )
    }
}
