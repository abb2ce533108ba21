import Foundation
import HTTP1
import HTTPSockets
import JSON
import NativeStubs
import StubAuthoring
import StubEngine
import TestSupport
import WireMock
import XCTest

/// What "one translation" buys: every root of the WireMock corpora, imported and served as
/// native stub files, answers the requests its mappings describe as the WireMock folder served
/// directly does (status, headers, body), for every mapping the import wrote without a note.
/// A mapping with a note is one the stub format cannot say; the note tells the user so.
final class WireMockImportEquivalenceTests: XCTestCase {
    static func corpus(_ relative: String) throws -> URL {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let folder = package.appendingPathComponent("../shared/corpora/\(relative)").standardizedFileURL
        guard FileManager.default.fileExists(atPath: folder.path) else {
            throw XCTSkip("the corpus \(relative) is not here (\(folder.path)); see ../shared/corpora/README.md")
        }
        return folder
    }

    /// The directories below `folder` that hold a `mappings/` directory, sorted.
    static func roots(in folder: URL) -> [URL] {
        let all = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return all.filter { ($0 as NSString).lastPathComponent == "mappings" }
            .map { folder.appendingPathComponent(($0 as NSString).deletingLastPathComponent) }
            .filter { root in
                var isDirectory: ObjCBool = false
                let exists = FileManager.default.fileExists(
                    atPath: root.appendingPathComponent("mappings").path,
                    isDirectory: &isDirectory
                )
                return exists && isDirectory.boolValue
            }
            .sorted { $0.path < $1.path }
    }

    func testWireMocksOwnFoldersAnswerTheSameImported() throws {
        try compareEveryRoot(of: "wiremock")
    }

    func testRealTeamsFoldersAnswerTheSameImported() throws {
        try compareEveryRoot(of: "wiremock-real")
    }

    private func compareEveryRoot(of corpus: String) throws {
        let folder = try Self.corpus(corpus)
        var compared = 0
        var roots = 0
        for root in Self.roots(in: folder) {
            roots += 1
            compared += try compare(root, name: corpus + "/" + String(root.path.dropFirst(folder.path.count + 1)))
        }
        XCTAssertGreaterThan(roots, 0)
        XCTAssertGreaterThan(compared, 0)
        print("WireMock corpus \(corpus): \(roots) roots imported, \(compared) requests answered alike")
    }

    /// Serves `root` both ways and sends each mapping's request to both; returns how many were compared.
    private func compare(_ root: URL, name: String) throws -> Int {
        let result = WireMockImporter.plan(folder: root.path)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("wm-equal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: out) }
        try StubFolderWriter.write(result.plan, into: out.path, existing: .keep)
        let native = StubLoader(directory: out.path).load()
        XCTAssertEqual(native.errors.map(\.description), [], "\(name): the imported stubs load")
        let format = WireMockFolderFormat()
        let wiremock = StubLoader(directory: root.path, format: format).load()
        XCTAssertEqual(native.stubs.count, wiremock.stubs.count, "\(name): every mapping served is imported")
        let directEngine = Engine(stubs: wiremock.stubs)
        let importedEngine = Engine(stubs: native.stubs)
        let direct = try Self.serve(directEngine)
        let imported = try Self.serve(importedEngine)
        defer {
            direct.stopAndWait()
            imported.stopAndWait()
        }
        var compared = 0
        let reading = WireMockFolderLoader(directory: root, displayName: root.path).readMappings()
        var paths: [String: [String]] = [:]
        for file in reading.files { paths[file.displayPath] = file.mappings.map(\.path) }
        /// The mapping (file and JSON path) whose stub answered the last request, either way.
        func answered(_ engine: Engine, importedFrom out: String?) -> String? {
            guard let id = engine.journal.entries.last?.stubID,
                let stub = engine.catalog.stubs.first(where: { $0.id == id }),
                case .file(let path, let index) = stub.source
            else { return nil }
            if let out {
                return result.origins[String(path.dropFirst(out.count + 1)) + "#\(index)"].map {
                    "\($0.file) \($0.jsonPath)"
                }
            }
            return paths[path].map { "\(path) \($0[index])" }
        }
        func noted(_ origin: String?) -> Bool {
            guard let origin else { return false }
            return result.notes.contains { note in
                let at = "\(note.file) \(note.jsonPath)"
                return at == origin || at.hasPrefix(origin + ".") || at.hasPrefix(origin + "[")
            }
        }
        for file in reading.files {
            for mapping in file.mappings {
                let hasNote = result.notes.contains { note in
                    note.file == file.displayPath
                        && (note.jsonPath == mapping.path || note.jsonPath.hasPrefix(mapping.path + ".")
                            || note.jsonPath.hasPrefix(mapping.path + "["))
                }
                guard !hasNote, let request = MappingRequest(mapping) else { continue }
                let what = "\(name): \(file.relativePath) \(mapping.path): \(request.method) \(request.target)"
                let a = try request.send(to: direct.port)
                let b = try request.send(to: imported.port)
                // A request no mapping answered either way says nothing of the translation (the
                // near-miss reports name their own files); nor does one a noted mapping answered.
                let directMapping = answered(directEngine, importedFrom: nil)
                let importedMapping = answered(importedEngine, importedFrom: out.path)
                if directMapping == nil && importedMapping == nil { continue }
                if noted(directMapping) || noted(importedMapping) { continue }
                XCTAssertEqual(directMapping, importedMapping, "\(what): the same mapping answers")
                compared += 1
                XCTAssertEqual(a.status, b.status, "\(what): status")
                XCTAssertEqual(Self.comparable(a.headers, b), Self.comparable(b.headers, a), "\(what): headers")
                if !request.dynamic {
                    XCTAssertEqual(a.text, b.text, "\(what): body")
                }
            }
        }
        return compared
    }

    /// The headers both answers must agree on: not the per-request ones, and not a
    /// `Content-Type` only one of them has (the stub format always names a body's type; a
    /// WireMock mapping may leave it out).
    static func comparable(_ headers: [(String, String)], _ other: WireResponse) -> [String] {
        headers.filter { name, _ in
            let lower = name.lowercased()
            if ["date", "server", "connection", "x-stubserver-stub"].contains(lower) { return false }
            if lower == "content-type" { return other.header("Content-Type") != nil }
            return true
        }
        .map { "\($0.0.lowercased()): \($0.1)" }
        .sorted()
    }

    static func serve(_ engine: Engine) throws -> HTTP1Server {
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = HTTP1Server(configuration: configuration) { engine.handle($0).reply }
        try server.start()
        engine.fallbackBaseURL.value = server.baseURL
        return server
    }
}

/// A request a mapping describes: its method, its URL (a template's variables filled in), and
/// the query parameters, headers, cookies, credentials and body its `equalTo`-like patterns
/// name. Nil for a mapping whose answer is not the same twice (a fault, a proxy, a webhook) or
/// whose URL is a pattern.
struct MappingRequest {
    var method: String
    var target: String
    /// The same for both servers (templates write it back in `request.baseUrl`).
    var host = "localhost"
    var headers: [(String, String)] = []
    var body = ""
    /// The body is rendered with a random value or the clock.
    var dynamic = false

    init?(_ m: WireMockMapping) {
        let r = m.request
        guard m.response.fault == nil, m.response.proxy == nil, m.response.dribble == nil, m.webhooks.isEmpty else {
            return nil
        }
        method = r.methods?.first ?? (r.excludedMethods.contains("GET") ? "POST" : "GET")
        switch r.url {
        case .url(let url)?: target = url
        case .urlPath(let path)?: target = path
        case .urlPathTemplate(let template, _)?:
            var path = template
            for name in template.matches(of: #/\{([^}/]+)\}/#).map({ String($0.1) }) {
                var value = "1"
                if case .equalTo(let given, _)? = r.pathParameters.first(where: { $0.name == name })?.pattern {
                    value = given
                }
                path = path.replacing("{\(name)}", with: value)
            }
            target = path
        case nil: target = "/"
        default: return nil
        }
        guard target.hasPrefix("/"), !target.contains(" "), !target.contains("#") else { return nil }
        if case .equalTo(let name, _)? = r.host { host = name }
        var query: [String] = []
        for (name, pattern) in r.query {
            if let value = Self.value(pattern) { query.append("\(name)=\(value)") }
        }
        if !query.isEmpty { target += (target.contains("?") ? "&" : "?") + query.joined(separator: "&") }
        for (name, pattern) in r.headers where HTTPToken.isToken(name) {
            if let value = Self.value(pattern) { headers.append((name, value)) }
        }
        let cookies = r.cookies.compactMap { name, pattern in Self.value(pattern).map { "\(name)=\($0)" } }
        if !cookies.isEmpty { headers.append(("Cookie", cookies.joined(separator: "; "))) }
        if let auth = r.basicAuth {
            headers.append(
                ("Authorization", "Basic " + Data("\(auth.username):\(auth.password)".utf8).base64EncodedString())
            )
        }
        if !r.form.isEmpty {
            body = r.form.compactMap { name, pattern in Self.value(pattern).map { "\(name)=\($0)" } }
                .joined(separator: "&")
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        } else {
            switch r.body.first {
            case .equalTo(let text, _)?, .contains(let text)?: body = text
            case .equalToJson(let expected, _, _)?: body = JSONSerializer.string(expected.source)
            default: break
            }
        }
        if m.response.templated {
            let texts =
                [m.response.staticBody.map { String(decoding: $0, as: UTF8.self) } ?? ""]
                + m.response.headers.map(\.value)
            dynamic = texts.contains { $0.contains("random") || $0.contains("now") || $0.contains("{{date") }
            if case .templatedFile = m.response.body { dynamic = true }
        }
    }

    /// A value the pattern holds for, when it names one.
    private static func value(_ pattern: MultiValuePattern) -> String? {
        guard case .single(let single) = pattern else { return nil }
        switch single {
        case .equalTo(let value, _), .contains(let value):
            return value.contains(where: { $0 == "\r" || $0 == "\n" }) ? nil : value
        default: return nil
        }
    }

    func send(to port: Int) throws -> WireResponse {
        let connection = try WireConnection(port: port)
        defer { connection.close() }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        head += "Content-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        connection.send(head + "\r\n" + body)
        return try connection.readResponse()
    }
}
