import Foundation
import JSON
@testable import YAML
import XCTest

/// The YAML test suite (yaml/yaml-test-suite, in `../shared/corpora/yaml`, read in place): every
/// case with `in.json` inside the supported subset must give the same data, every `error` case
/// must be refused. Cases outside the subset are skipped only by the explicit list below, each
/// with its reason; the test fails when an entry goes stale (its folder is gone, or the case
/// now passes) and on any failure of a case not listed. A fresh clone has no `../shared`: then
/// the test is skipped with a message.
final class YAMLConformanceTests: XCTestCase {
    enum Reason: String, CaseIterable {
        case multiDocument = "several documents in one stream (one document per file is read)"
        case emptyStream = "a stream without any document"
        case tag = "tags (!!str, !local, %TAG)"
        case complexKey = "explicit keys ('? ') inside a flow collection"
        case reservedDirective = "a reserved directive other than %YAML"
    }

    /// The cases outside the supported subset, by folder (sub-folders as "ID/00").
    static let skipped: [String: Reason] = [
        "2AUY": .tag,  // Tags in Block Sequence
        "2XXW": .tag,  // Spec Example 2.25. Unordered Sets
        "33X3": .tag,  // Three explicit integers in a block sequence
        "35KP": .tag,  // Tags for Root Objects
        "52DL": .tag,  // Explicit Non-Specific Tag [1.3]
        "565N": .tag,  // Construct Binary
        "57H4": .tag,  // Spec Example 8.22. Block Collection Nodes
        "5TYM": .tag,  // Spec Example 6.21. Local Tag Prefix
        "6CK3": .tag,  // Spec Example 6.26. Tag Shorthands
        "6JWB": .tag,  // Tags for Block Objects
        "6WLZ": .tag,  // Spec Example 6.18. Primary Tag Handle [1.3]
        "735Y": .tag,  // Spec Example 8.20. Block Node Types
        "74H7": .tag,  // Tags in Implicit Mapping
        "7FWL": .tag,  // Spec Example 6.24. Verbatim Tags
        "8MK2": .tag,  // Explicit Non-Specific Tag
        "9KAX": .tag,  // Various combinations of tags and anchors
        "9WXW": .tag,  // Spec Example 6.18. Primary Tag Handle
        "BU8L": .tag,  // Node Anchor and Tag on Seperate Lines
        "C4HZ": .tag,  // Spec Example 2.24. Global Tags
        "CC74": .tag,  // Spec Example 6.20. Tag Handles
        "CUP7": .tag,  // Spec Example 5.6. Node Property Indicators
        "EHF6": .tag,  // Tags for Flow Objects
        "F2C7": .tag,  // Anchors and Tags
        "HMQ5": .tag,  // Spec Example 6.23. Node Properties
        "J7PZ": .tag,  // Spec Example 2.26. Ordered Mappings
        "LE5A": .tag,  // Spec Example 7.24. Flow Nodes
        "M5C3": .tag,  // Spec Example 8.21. Block Scalar Nodes
        "P76L": .tag,  // Spec Example 6.19. Secondary Tag Handle
        "S4JQ": .tag,  // Spec Example 6.28. Non-Specific Tags
        "U3C3": .tag,  // Spec Example 6.16. “TAG” directive
        "UGM3": .tag,  // Spec Example 2.27. Invoice
        "WZ62": .tag,  // Spec Example 7.2. Empty Content
        "Z67P": .tag,  // Spec Example 8.21. Block Scalar Nodes [1.3]
        "Z9M4": .tag,  // Spec Example 6.22. Global Tag Prefix
        "CT4Q": .complexKey,  // Spec Example 7.20. Single Pair Explicit Entry
        "L94M": .tag,  // Tags in Explicit Mapping
        "2LFX": .reservedDirective,  // Spec Example 6.13. Reserved Directives [1.3]
        "6LVF": .reservedDirective,  // Spec Example 6.13. Reserved Directives
        "MUS6/05": .reservedDirective,  // Directive variants
        "MUS6/06": .reservedDirective,  // Directive variants
        "6XDY": .multiDocument,  // Two document start markers
        "6ZKB": .multiDocument,  // Spec Example 9.6. Stream
        "7Z25": .multiDocument,  // Bare document after document end marker
        "9DXL": .multiDocument,  // Spec Example 9.6. Stream [1.3]
        "JHB9": .multiDocument,  // Spec Example 2.7. Two Documents in a Stream
        "KSS4": .multiDocument,  // Scalars on --- line
        "L383": .multiDocument,  // Two scalar docs with trailing comments
        "M7A3": .multiDocument,  // Spec Example 9.3. Bare Documents
        "PUW8": .multiDocument,  // Document start on last line
        "RZT7": .multiDocument,  // Spec Example 2.28. Log File
        "U9NS": .multiDocument,  // Spec Example 2.8. Play by Play Feed from a Game
        "UT92": .multiDocument,  // Spec Example 9.4. Explicit Documents
        "W4TN": .multiDocument,  // Spec Example 9.5. Directives Documents
        "8G76": .emptyStream,  // Spec Example 6.10. Comment Lines
        "98YD": .emptyStream,  // Spec Example 5.5. Comment Indicator
        "AVM7": .emptyStream,  // Empty Stream
        "HWV9": .emptyStream,  // Document-end marker
        "QT73": .emptyStream,  // Comment and document-end marker
    ]

    /// OpenAPI examples (`../shared/corpora/openapi`) whose YAML and JSON forms hold different
    /// data upstream, so they cannot be compared.
    static let openAPIFormsDiffer: [String: String] = [
        "v3.1/tictactoe": "the JSON form lacks the YAML form's webhooks, links, callbacks and a PUT parameter"
    ]

    static var corpus: URL? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["STUBSERVER_YAML_CORPUS"], !env.isEmpty {
            return fm.fileExists(atPath: env) ? URL(fileURLWithPath: env, isDirectory: true) : nil
        }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // file, YAMLTests, Tests, package
        url.appendPathComponent("shared/corpora/yaml", isDirectory: true)
        return fm.fileExists(atPath: url.path) ? url : nil
    }

    /// Case folders: `ID/` holding `in.yaml`, or its numbered sub-folders `ID/00/`.
    static func cases(in root: URL) throws -> [String] {
        let fm = FileManager.default
        var ids: [String] = []
        for name in try fm.contentsOfDirectory(atPath: root.path).sorted() {
            let dir = root.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: dir.path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            if fm.fileExists(atPath: dir.appendingPathComponent("in.yaml").path) {
                ids.append(name)
            } else {
                for sub in try fm.contentsOfDirectory(atPath: dir.path).sorted()
                where fm.fileExists(atPath: dir.appendingPathComponent(sub).appendingPathComponent("in.yaml").path) {
                    ids.append(name + "/" + sub)
                }
            }
        }
        return ids
    }

    /// The JSON documents of `in.json`, which holds one per YAML document, one after the other.
    static func jsonDocuments(_ bytes: [UInt8]) throws -> [JSONNode] {
        var documents: [JSONNode] = []
        var i = 0
        while true {
            while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
            guard i < bytes.count else { return documents }
            let start = i
            var depth = 0
            var inString = false
            scan: while i < bytes.count {
                let b = bytes[i]
                if inString {
                    if b == UInt8(ascii: "\\") {
                        i += 2
                        continue
                    }
                    if b == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 0 {
                            i += 1
                            break scan
                        }
                    }
                    i += 1
                    continue
                }
                switch b {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if depth == 0 {
                        i += 1
                        break scan
                    }
                case 0x20, 0x09, 0x0A, 0x0D: if depth == 0 { break scan }
                default: break
                }
                i += 1
            }
            documents.append(try JSONParser.parse(Array(bytes[start..<min(i, bytes.count)])))
        }
    }

    /// Every OpenAPI example in YAML reads as the same data as its JSON form.
    func testOpenAPIExamplesReadAsTheirJSONForm() throws {
        guard let root = Self.corpus?.deletingLastPathComponent().appendingPathComponent("openapi"),
            FileManager.default.fileExists(atPath: root.path)
        else {
            throw XCTSkip(
                "OpenAPI examples not found (../shared/corpora/openapi next to the package): comparison skipped"
            )
        }
        let fm = FileManager.default
        var compared = 0
        for version in try fm.contentsOfDirectory(atPath: root.path).sorted() where version.hasPrefix("v") {
            let dir = root.appendingPathComponent(version)
            for file in try fm.contentsOfDirectory(atPath: dir.path).sorted() where file.hasSuffix(".yaml") {
                let id = version + "/" + file.dropLast(5)
                let yamlURL = dir.appendingPathComponent(file)
                let jsonURL = yamlURL.deletingPathExtension().appendingPathExtension("json")
                guard fm.fileExists(atPath: jsonURL.path) else { continue }
                let node = try YAMLReader.parse([UInt8](Data(contentsOf: yamlURL)))
                let expected = try JSONParser.parse([UInt8](Data(contentsOf: jsonURL)))
                if let reason = Self.openAPIFormsDiffer[id] {
                    XCTAssertFalse(
                        node.equals(expected),
                        "\(id) now reads as its JSON form; remove it from openAPIFormsDiffer (\(reason))"
                    )
                    continue
                }
                XCTAssertTrue(node.equals(expected), "\(id): the YAML form reads differently from the JSON form")
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 5)
        print(
            """
            OpenAPI examples: \(compared) YAML documents read as their JSON form; \
            \(Self.openAPIFormsDiffer.count) whose forms differ upstream
            """
        )
    }

    func testYAMLTestSuite() throws {
        guard let root = Self.corpus else {
            throw XCTSkip(
                """
                YAML test suite not found (../shared/corpora/yaml next to the package, or \
                $STUBSERVER_YAML_CORPUS): conformance skipped
                """
            )
        }
        let ids = try Self.cases(in: root)
        XCTAssertGreaterThan(ids.count, 300, "too few cases found in \(root.path)")
        for id in Self.skipped.keys.sorted() where !ids.contains(id) {
            XCTFail("\(id) is in the skip list but there is no such case folder; remove the entry")
        }
        var passed = 0
        var refused = 0
        var noVerdict = 0
        var skippedBy: [Reason: Int] = [:]
        for id in ids {
            let dir = root.appendingPathComponent(id)
            let yaml = try [UInt8](Data(contentsOf: dir.appendingPathComponent("in.yaml")))
            let name =
                (try? String(contentsOf: dir.appendingPathComponent("==="), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let result = Result { () throws(YAMLSyntaxError) -> JSONNode in try YAMLReader.parse(yaml) }
            let skip = Self.skipped[id]
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("error").path) {
                switch result {
                case .failure(let error):
                    XCTAssertGreaterThan(error.position.line, 0, "\(id): an error without a position")
                    if let skip { XCTFail("\(id) (\(name)) is refused as it must be; remove its skip entry (\(skip))") }
                    refused += 1
                case .success(let node):
                    if let skip {
                        skippedBy[skip, default: 0] += 1
                        continue
                    }
                    XCTFail("\(id) (\(name)) must be refused but reads as \(JSONSerializer.string(node))")
                }
                continue
            }
            let jsonURL = dir.appendingPathComponent("in.json")
            guard FileManager.default.fileExists(atPath: jsonURL.path) else {
                // in.yaml alone: the suite gives no data to compare (a key that JSON cannot hold).
                noVerdict += 1
                continue
            }
            let expected = try Self.jsonDocuments([UInt8](Data(contentsOf: jsonURL)))
            var passes = false
            var problem = ""
            switch result {
            case .success(let node):
                if expected.count == 1, node.equals(expected[0]) {
                    passes = true
                } else {
                    problem =
                        """
                        reads as \(JSONSerializer.string(node)), expected \
                        \(expected.map(JSONSerializer.string).joined(separator: " "))
                        """
                }
            case .failure(let error):
                problem = "refused: \(error)"
            }
            if let skip {
                if passes { XCTFail("\(id) (\(name)) now passes; remove its skip entry (\(skip))") }
                skippedBy[skip, default: 0] += 1
            } else if passes {
                passed += 1
            } else {
                XCTFail("\(id) (\(name)) \(problem)")
            }
        }
        var summary =
            "YAML test suite: \(ids.count) cases; \(passed) read as their in.json, \(refused) error cases refused, "
        summary += "\(noVerdict) without expected data (in.yaml only, read only to check nothing traps); skipped:"
        summary += Reason.allCases.map { " \(skippedBy[$0] ?? 0) \($0)" }.joined(separator: ",")
        print(summary)
    }
}
