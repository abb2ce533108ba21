// libFuzzer target for the Postman importer. Not part of the package (SwiftPM ignores this
// folder): scripts/fuzz builds SystemSupport, HTTP1, StubEngine, StubAuthoring and StubImport as
// modules with coverage and links this file against them.
//
// Each input is read as a Postman collection (and, split at its first NUL byte, the part after
// it as an environment), and:
//  1. importing never traps (malformed items and URLs, unknown body modes, odd variables that
//     refer to each other, huge numbers, deep folders);
//  2. every saved example is imported or skipped with a reason, never lost;
//  3. the same input gives the same files twice;
//  4. what the import writes always loads: StubFolderWriter loads it with StubLoader before
//     moving it into place and fails when any stub has an error, and the stub count agrees;
//  5. no secret and no header of the original transfer reaches a stub file: no Authorization,
//     Cookie or Set-Cookie, no Content-Encoding, Content-Length or Transfer-Encoding.
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.
import Foundation
import JSON
import StubAuthoring
import StubEngine
import StubImport

private let output: String = {
    let parent = FileManager.default.temporaryDirectory.appendingPathComponent(
        "stubserver-fuzz-postman-\(ProcessInfo.processInfo.processIdentifier)"
    )
    try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    return parent.appendingPathComponent("stubs").path
}()

private let forbiddenHeaders: Set<String> = [
    "authorization", "cookie", "set-cookie", "content-encoding", "content-length", "transfer-encoding",
]

private func fuzzPostman(_ input: [UInt8]) {
    var collection = input
    var options = PostmanImportOptions(placeholders: input.count % 2 == 0)
    if let nul = input.firstIndex(of: 0) {
        collection = Array(input[..<nul])
        if case .success(let variables) = PostmanImporter.environment(Array(input[(nul + 1)...]), name: "fuzz.env.json")
        {
            options.environment = variables
        }
    }
    guard case .success(let outcome) = PostmanImporter.plan(collection, name: "fuzz.postman.json", options: options)
    else { return }
    let skipped = outcome.skipped.reduce(0) { $0 + $1.count }
    precondition(outcome.importedExamples <= outcome.exampleCount, "more examples imported than saved")
    precondition(outcome.importedExamples + skipped >= outcome.exampleCount, "examples neither imported nor skipped")
    guard case .success(let again) = PostmanImporter.plan(collection, name: "fuzz.postman.json", options: options)
    else {
        preconditionFailure("the second import failed")
    }
    precondition(again.plan.files == outcome.plan.files, "the same input gave other files")
    for file in outcome.plan.stubFiles {
        guard let root = try? JSONParser.parse(file.bytes) else { preconditionFailure("a stub file is not JSON") }
        for stub in root.elements ?? [root] {
            for response in stub["responses"]?.elements ?? [stub["response"] ?? .object([])] {
                for member in response["headers"]?.members ?? [] {
                    precondition(
                        !forbiddenHeaders.contains(member.key.lowercased()),
                        "\(member.key) in \(file.relativePath)"
                    )
                }
            }
        }
    }
    do {
        let written = try StubFolderWriter.write(outcome.plan.output, into: output, existing: .replace)
        precondition(
            written.stubCount == outcome.plan.stubCount,
            "stubs planned \(outcome.plan.stubCount), loaded \(written.stubCount)"
        )
    } catch {
        preconditionFailure("the import does not load: \(error.description)")
    }

}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    fuzzPostman(input)
    return 0
}
