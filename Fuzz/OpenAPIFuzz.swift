// libFuzzer target for the OpenAPI importer and the stub check. Not part of the package (SwiftPM
// ignores this folder): scripts/fuzz builds SystemSupport, HTTP1, StubEngine, StubAuthoring and
// StubImport as modules with coverage, and links this file against them (package access via -package-name).
//
// Each input is read as an OpenAPI document (JSON when it starts with '{', else YAML), and:
//  1. reading, planning and checking never trap, whatever the document holds (cyclic and
//     dangling references, absurd schemas, paths full of braces);
//  2. planning is deterministic: the same bytes plan the same files;
//  3. what the import writes always loads: StubFolderWriter (the command's own writer) loads it
//     with StubLoader before moving it into place and fails when any stub has an error;
//  4. the stub check runs over the loaded stubs (it is `validate --openapi` on the import).
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.
import Foundation
import NativeStubs
import StubAuthoring
import StubEngine
import StubImport

/// One folder per fuzzing process, replaced by every run (the writer stages beside it).
private let output: String = {
    let parent = FileManager.default.temporaryDirectory.appendingPathComponent(
        "stubserver-fuzz-openapi-\(ProcessInfo.processInfo.processIdentifier)"
    )
    try? FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    return parent.appendingPathComponent("stubs").path
}()

private func readDocument(_ input: [UInt8]) -> OpenAPIDocument? {
    let name = input.first == UInt8(ascii: "{") ? "fuzz.json" : "fuzz.yaml"
    guard case .success(let document) = OpenAPIDocument.parse(input, name: name) else { return nil }
    return document
}

private func fuzzOpenAPI(_ input: [UInt8]) {
    guard let document = readDocument(input) else { return }
    let outcome = OpenAPIImporter.plan(document)
    guard let again = readDocument(input) else { preconditionFailure("the document read once and not twice") }
    precondition(
        OpenAPIImporter.plan(again).plan.files == outcome.plan.files,
        "the same document planned different files"
    )
    precondition(
        outcome.importedOperations + outcome.skipped.reduce(0) { $0 + $1.count } == outcome.operationCount,
        "operations neither imported nor skipped"
    )
    do {
        let written = try StubFolderWriter.write(outcome.plan.output, into: output, existing: .replace)
        precondition(
            written.stubCount == outcome.plan.stubCount,
            "stubs planned \(outcome.plan.stubCount), loaded \(written.stubCount)"
        )
    } catch {
        preconditionFailure("the import does not load: \(error.description)")
    }
    let loaded = StubLoader(directory: output).load()
    _ = StubChecker(document: document).check(loaded.stubs)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    fuzzOpenAPI(input)
    return 0
}
