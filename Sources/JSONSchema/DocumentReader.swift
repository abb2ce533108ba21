#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import SystemSupport
import YAML

/// Reads one description file (an OpenAPI document, or a file one of its `$ref`s names) into a
/// `JSONNode`: JSON with the strict JSON parser, YAML with the YAML reader. `.json` files are
/// JSON, `.yaml` and `.yml` YAML; anything else is read as JSON when it starts like JSON and as
/// YAML otherwise (JSON is YAML, so the YAML reader takes it too, only slower).
package enum DocumentReader {
    package static func parse(_ bytes: [UInt8], name: String) -> Result<JSONNode, DocumentProblem> {
        let lowered = name.lowercased()
        let json =
            lowered.hasSuffix(".json")
            || (!lowered.hasSuffix(".yaml") && !lowered.hasSuffix(".yml") && startsLikeJSON(bytes))
        var jsonProblem: DocumentProblem?
        if json {
            do {
                return .success(try JSONParser.parse(bytes, rejectDuplicateKeys: true))
            } catch {
                jsonProblem = DocumentProblem(.error, file: name, position: error.position, message: error.message)
            }
            // A `.json` file must be JSON; a file that only looked like it may be YAML flow style.
            if let jsonProblem, lowered.hasSuffix(".json") { return .failure(jsonProblem) }
        }
        do {
            return .success(try YAMLReader.parse(bytes))
        } catch {
            return .failure(
                jsonProblem ?? DocumentProblem(.error, file: name, position: error.position, message: error.message)
            )
        }
    }

    /// Reads and parses a file; a missing or unreadable file is a problem at `name`.
    package static func read(path: String, name: String) -> Result<JSONNode, DocumentProblem> {
        guard let status = FileStatus(path: path) else {
            return .failure(DocumentProblem(.error, file: name, message: "does not exist"))
        }
        guard status.kind != .directory else {
            return .failure(DocumentProblem(.error, file: name, message: "is a folder, not a file"))
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(DocumentProblem(.error, file: name, message: "cannot be read (check its permissions)"))
        }
        return parse(Array(data), name: name)
    }

    private static func startsLikeJSON(_ bytes: [UInt8]) -> Bool {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        return i < bytes.count && (bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "["))
    }
}
