// libFuzzer target for the HAR importer. Not part of the package (SwiftPM ignores this folder):
// scripts/fuzz builds SystemSupport, HTTP1, StubEngine, StubAuthoring and StubImport as modules
// with coverage and links this file against them.
//
// Each input is read as a HAR file, and:
//  1. importing never traps (malformed entries, odd URLs, invalid base64, headers with line
//     breaks, statuses out of range, huge numbers);
//  2. every entry is imported or skipped with a reason, never lost;
//  3. what the import writes always loads: StubFolderWriter loads it with StubLoader before
//     moving it into place and fails when any stub has an error, and the stub count agrees;
//  4. no pseudo-header (`:authority`) reaches a written stub file.
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.
import Foundation
import JSON
import StubAuthoring
import StubEngine
import StubImport

private let output: String = {
    let parent = FileManager.default.temporaryDirectory.appendingPathComponent(
        "stubserver-fuzz-har-\(ProcessInfo.processInfo.processIdentifier)"
    )
    try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    return parent.appendingPathComponent("stubs").path
}()

private func fuzzHAR(_ input: [UInt8]) {
    guard case .success(let outcome) = HARImporter.plan(input, name: "fuzz.har") else { return }
    precondition(
        outcome.importedEntries + outcome.skipped.reduce(0) { $0 + $1.count } == outcome.entryCount,
        "entries neither imported nor skipped"
    )
    for file in outcome.plan.stubFiles {
        guard let root = try? JSONParser.parse(file.bytes) else { preconditionFailure("a stub file is not JSON") }
        for stub in root.elements ?? [root] {
            for response in stub["responses"]?.elements ?? [stub["response"] ?? .object([])] {
                for member in response["headers"]?.members ?? [] {
                    precondition(!member.key.hasPrefix(":"), "pseudo-header \(member.key) in \(file.relativePath)")
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
    fuzzHAR(input)
    return 0
}
