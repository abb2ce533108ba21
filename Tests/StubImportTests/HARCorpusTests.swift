import Foundation
import JSON
import StubAuthoring
@testable import StubImport
import StubEngine
import TestSupport
import XCTest

/// Every export in `../shared/corpora/har` (Chrome, Firefox, Safari, Charles, Insomnia, one with
/// a BOM, POST data, HEAD with Content-Length): it imports without a crash, to the counts fixed
/// below; every imported entry, served back over a real socket in capture order, answers with
/// its recorded status and body bytes; no pseudo-header reaches a stub.
final class HARCorpusTests: XCTestCase {
    struct Expected: Equatable {
        var entries: Int
        var stubs: Int
        var stubFiles: Int
        var bodyFiles: Int
        /// Reason to count.
        var skipped: [String: Int] = [:]
    }

    static let statusZero = "status 0 (no response: blocked, cancelled or failed)"
    static let notRecorded = "response body not recorded (the tool saved no content text)"

    static let expected: [String: Expected] = [
        "charles.har": Expected(entries: 1, stubs: 1, stubFiles: 1, bodyFiles: 1),
        "chrome.har": Expected(entries: 3, stubs: 2, stubFiles: 2, bodyFiles: 1, skipped: [statusZero: 1]),
        "firefox.har": Expected(entries: 14, stubs: 9, stubFiles: 8, bodyFiles: 5, skipped: [notRecorded: 5]),
        "head-content-length.har": Expected(entries: 1, stubs: 1, stubFiles: 1, bodyFiles: 0),
        "insomnia.har": Expected(entries: 1, stubs: 1, stubFiles: 1, bodyFiles: 0),
        "postdata.har": Expected(entries: 1, stubs: 1, stubFiles: 1, bodyFiles: 0),
        "safari.har": Expected(entries: 19, stubs: 17, stubFiles: 16, bodyFiles: 16),
        "with-bom.har": Expected(entries: 1, stubs: 1, stubFiles: 1, bodyFiles: 0),
    ]

    private func exports() throws -> [URL] {
        guard let root = sharedCorpus("har") else {
            throw XCTSkip("HAR exports not found (../shared/corpora/har next to the package): skipped")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".har") }
            .sorted()
        XCTAssertEqual(Set(files), Set(Self.expected.keys), "the table covers every export")
        return files.map { root.appendingPathComponent($0) }
    }

    func testEveryExportImportsToTheCountsInTheTable() throws {
        for file in try exports() {
            let outcome = try HARImporter.plan(Array(Data(contentsOf: file)), name: file.lastPathComponent).get()
            let found = Expected(
                entries: outcome.entryCount,
                stubs: outcome.plan.stubCount,
                stubFiles: outcome.plan.stubFiles.count,
                bodyFiles: outcome.plan.bodyFiles.count,
                skipped: Dictionary(uniqueKeysWithValues: outcome.skipped.map { ($0.reason, $0.count) })
            )
            XCTAssertEqual(found, Self.expected[file.lastPathComponent], file.lastPathComponent)
            XCTAssertEqual(outcome.importedEntries + outcome.skipped.reduce(0) { $0 + $1.count }, outcome.entryCount)
            for stubFile in outcome.plan.stubFiles {
                let root = try JSONParser.parse(stubFile.bytes)
                for stub in root.elements ?? [root] {
                    let responses = stub["responses"]?.elements ?? [stub["response"] ?? .object([])]
                    for name in responses.flatMap({ $0["headers"]?.members?.map(\.key) ?? [] }) {
                        XCTAssertFalse(
                            name.hasPrefix(":"),
                            "\(file.lastPathComponent) \(stubFile.relativePath): pseudo-header \(name)"
                        )
                        XCTAssertFalse(
                            [
                                "content-length", "transfer-encoding", "connection", "content-encoding", "date",
                                "server", "set-cookie",
                            ]
                            .contains(name.lowercased()),
                            "\(file.lastPathComponent) \(stubFile.relativePath): \(name)"
                        )
                    }
                }
            }
        }
    }

    func testEveryImportedEntryServedBackGivesItsRecordedStatusAndBytes() throws {
        var replayed = 0
        for file in try exports() {
            let bytes = Array(try Data(contentsOf: file))
            let outcome = try HARImporter.plan(bytes, name: file.lastPathComponent).get()
            let folder = temporaryFolder().appendingPathComponent("stubs")
            let written = try StubFolderWriter.write(outcome.plan.output, into: folder.path, existing: .refuse)
            XCTAssertEqual(written.problems, [], "\(file.lastPathComponent) loads without warnings")
            let server = try serve(folder)
            let decoded = try HARArchive.entries(try JSONParser.parse(bytes), file: file.lastPathComponent).get()
            for entry in decoded.entries {
                guard case .success(let recording) = HARRecording.make(entry, options: .init()) else { continue }
                let answer = try exchange(
                    server,
                    recording.method,
                    Self.originForm(entry.url),
                    body: recording.requestBody.map { Array($0.text.utf8) } ?? []
                )
                XCTAssertEqual(
                    answer.status,
                    recording.status,
                    "\(file.lastPathComponent) #\(entry.index) \(entry.url)"
                )
                XCTAssertEqual(
                    answer.body,
                    recording.body,
                    "\(file.lastPathComponent) #\(entry.index) \(entry.url): the recorded bytes"
                )
                replayed += 1
            }
        }
        XCTAssertEqual(replayed, 35)
    }

    /// `https://host/a/b?c` → `/a/b?c`: the target as the app sends it to the stub server.
    static func originForm(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let target = String(rest[slash...])
        return target.hasPrefix("?") ? "/" + target : target
    }
}
