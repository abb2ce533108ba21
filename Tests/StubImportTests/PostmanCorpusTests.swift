import Foundation
import HTTPSockets
import JSON
import StubAuthoring
import StubEngine
@testable import StubImport
import TestSupport
import XCTest

/// Every collection in `../shared/corpora/postman` (the Twitter API's hand-saved responses with
/// gzip headers beside decoded bodies, Adyen's generated ones, TransferWise's form bodies and
/// auth): it imports, loads, and answers each saved example when sent the request the example
/// was saved for, over real sockets, in process and through the `stubserver` binary.
final class PostmanCorpusTests: XCTestCase {
    private func collections() throws -> [URL] {
        guard let root = sharedCorpus("postman") else {
            throw XCTSkip("Postman collections not found (../shared/corpora/postman next to the package): skipped")
        }
        let files =
            FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        XCTAssertFalse(files.isEmpty)
        return files.sorted { $0.path < $1.path }
    }

    /// A request made to fit an example: its method, path (parameters given the collection's
    /// value, else `1`), query and body; `Prefer: example=NAME` where its stub answers several.
    struct Sent {
        let method: String
        let target: String
        let headers: [(String, String)]
        let body: [UInt8]
    }

    static func request(_ example: PostmanExample, prefer: Bool) -> Sent {
        let request = example.request
        let segments = request.path.segments.map { parts in
            parts.map { part -> String in
                switch part {
                case .literal(let text): return encode(text, keeping: "%:@!$&'()*+,;=-._~")
                case .parameter(let name):
                    let value = request.pathValues[name] ?? ""
                    let simple = !value.isEmpty && value.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
                    return simple ? value : "1"
                }
            }.joined()
        }
        var target = "/" + segments.joined(separator: "/")
        if !request.query.isEmpty {
            target +=
                "?"
                + request.query.map { encode($0.name, keeping: "-._~") + "=" + encode($0.value, keeping: "-._~") }
                .joined(separator: "&")
        }
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        switch request.body {
        case .raw(let text, let json):
            body = Array(text.utf8)
            headers.append(("Content-Type", json ? "application/json" : "text/plain"))
        case .form(let fields):
            body = Array(
                fields.map { encode($0.name, keeping: "-._~") + "=" + encode($0.value, keeping: "-._~") }
                    .joined(separator: "&").utf8
            )
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
        case .graphQL(let query, let variables):
            var members: [(String, JSONNode)] = [("query", .string(query))]
            if let parsed = try? JSONParser.parse(Array(variables.utf8)), parsed.members != nil {
                members.append(("variables", parsed))
            }
            body = JSONSerializer.bytes(.object(members))
            headers.append(("Content-Type", "application/json"))
        case .none, .unmatched:
            break
        }
        if prefer { headers.append(("Prefer", "example=\(example.name)")) }
        return Sent(method: request.method, target: target, headers: headers, body: body)
    }

    /// Percent-encodes every byte but ASCII letters, digits and `keeping`.
    static func encode(_ text: String, keeping: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if byte < 0x80,
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || keeping.unicodeScalars.contains(scalar)
            {
                out.unicodeScalars.append(scalar)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// Sends each example's request with `send` and checks the answer against the example that
    /// should answer it; returns how many were checked.
    private func checkEveryExample(
        _ outcome: PostmanImporter.Outcome,
        _ name: String,
        send: (Sent) throws -> WireResponse
    ) throws -> Int {
        var checked = 0
        for (i, example) in outcome.examples.enumerated() {
            let sent = Self.request(example, prefer: outcome.needsPrefer[i])
            let expected = outcome.examples[outcome.answeredBy[i]]
            let answer = try send(sent)
            let label = "\(name): \(example.name) (\(sent.method) \(sent.target))"
            XCTAssertEqual(answer.status, expected.status, label)
            XCTAssertEqual(
                String(decoding: answer.body, as: UTF8.self),
                String(decoding: expected.body, as: UTF8.self),
                label
            )
            if outcome.needsPrefer[i] {
                XCTAssertTrue(answer.headers.contains { $0.0.lowercased() == "preference-applied" }, label)
            }
            checked += 1
        }
        return checked
    }

    func testEveryCollectionImportsLoadsAndAnswersEachExampleInProcess() throws {
        var checked = 0
        for file in try collections() {
            let outcome = try PostmanImporter.plan(Array(Data(contentsOf: file)), name: file.lastPathComponent).get()
            XCTAssertEqual(
                outcome.importedExamples + outcome.skippedExamples,
                outcome.exampleCount,
                file.lastPathComponent
            )
            let folder = temporaryFolder().appendingPathComponent("stubs")
            let written = try StubFolderWriter.write(outcome.plan.output, into: folder.path, existing: .refuse)
            XCTAssertEqual(written.problems, [], "\(file.lastPathComponent) loads without warnings")
            XCTAssertEqual(written.stubCount, outcome.plan.stubCount)
            let server = try serve(folder)
            checked += try checkEveryExample(outcome, file.lastPathComponent) { sent in
                try exchange(server, sent.method, sent.target, headers: sent.headers, body: sent.body)
            }
        }
        XCTAssertEqual(checked, 399, "every saved response of the corpus, each answered")
    }

    func testEveryCollectionImportsAndAnswersThroughTheBinary() throws {
        for file in try collections() {
            let outcome = try PostmanImporter.plan(Array(Data(contentsOf: file)), name: file.path).get()
            let out = temporaryFolder().appendingPathComponent("stubs").path
            let imported = try runStubServer(["import", "postman", file.path, "--out", out])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            XCTAssertTrue(imported.stdout.contains("; all \(outcome.plan.stubCount) stubs load"), imported.stdout)
            let server = try StubServerProcess(["--dir", out, "--port", "0", "--no-watch", "--log", "quiet"])
            guard let base = server.baseURL(), let port = URL(string: base)?.port else {
                return XCTFail("no ready line: \(server.stderr)")
            }
            _ = try checkEveryExample(outcome, file.lastPathComponent) { sent in
                let connection = try WireConnection(port: port)
                defer { connection.close() }
                var head = "\(sent.method) \(sent.target) HTTP/1.1\r\nHost: stubs.test\r\nConnection: close\r\n"
                for (name, value) in sent.headers { head += "\(name): \(value)\r\n" }
                if !sent.body.isEmpty { head += "Content-Length: \(sent.body.count)\r\n" }
                connection.send(Array((head + "\r\n").utf8) + sent.body)
                return try connection.readResponse(isHead: sent.method == "HEAD")
            }
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
