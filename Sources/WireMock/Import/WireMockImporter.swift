#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import StubAuthoring
import StubEngine

/// `stubserver import wiremock DIR --out DIR`: a WireMock folder as native stub files. Each
/// mapping file becomes one stub file (the mappings it holds, in order); body files are copied
/// into `__files/`. The folder is read by the same reader that serves it, so what does not load
/// there is not imported here either; everything the stub format cannot say is listed, with
/// its file, line, column and JSON path, as dropped (the stub matches or answers more loosely)
/// or approximated (close, not the same).
package enum WireMockImporter {
    package struct Note: Sendable, CustomStringConvertible {
        package enum Kind: String, Sendable { case dropped, approximated, skipped }
        package let kind: Kind
        package let file: String
        package let position: SourcePosition?
        package let jsonPath: String
        package let message: String

        package var description: String {
            "\(file)\(position.map { ":\($0.line):\($0.column)" } ?? ""): \(kind.rawValue): \(jsonPath): \(message)"
        }
    }

    package struct Result: Sendable {
        package var plan = StubFolderPlan()
        package var notes: [Note] = []
        /// The folder's own problems (a mapping with an error is not imported).
        package var problems: [StubProblem] = []
        /// Mappings not imported because of their errors (the server skips them too).
        package var skipped: [SkippedMapping] = []
        package var mappingCount = 0
        package var fileCount = 0
    }

    /// Plans the files; nothing is written (`StubFolderWriter` writes the plan).
    /// `existing` are the names already in the output folder and its `__files/`.
    package static func plan(
        folder: String,
        existing: (stubs: Set<String>, bodies: Set<String>) = ([], []),
        globalTemplating: Bool = false
    ) -> Result {
        let loader = WireMockFolderLoader(
            directory: URL(fileURLWithPath: folder, isDirectory: true),
            displayName: folder,
            globalTemplating: globalTemplating
        )
        let reading = loader.readMappings()
        let files = reading.files
        var result = Result(problems: reading.problems, skipped: reading.skipped, fileCount: reading.fileCount)
        var stubNames = FileNameAllocator(reserving: existing.stubs)
        var bodyNames = FileNameAllocator(reserving: existing.bodies)
        var copied: [String: String] = [:]
        for file in files where !file.mappings.isEmpty {
            var converter = WireMockConversion(file: file.displayPath)
            var stubs: [JSONNode] = []
            for mapping in file.mappings {
                if let stub = converter.stub(
                    mapping,
                    bodyFile: { name, bytes in
                        if let done = copied[name] { return done }
                        let (stem, ext) = Self.splitExtension(name)
                        let base = FileNameAllocator.slug(stem, fallback: "body")
                        let allocated =
                            "__files/"
                            + bodyNames.allocate(
                                base,
                                extension: FileNameAllocator.slug(
                                    ext.isEmpty ? "bin" : ext.lowercased(),
                                    fallback: "bin"
                                )
                            )
                        result.plan.files.append(StubFolderPlan.File(relativePath: allocated, bytes: bytes))
                        copied[name] = allocated
                        return allocated
                    }
                ) {
                    stubs.append(stub)
                }
            }
            result.notes += converter.notes
            result.mappingCount += stubs.count
            guard !stubs.isEmpty else { continue }
            let base = FileNameAllocator.slug(
                (file.relativePath.hasPrefix("mappings/") ? String(file.relativePath.dropFirst(9)) : file.relativePath)
                    .replacing(".json", with: ""),
                fallback: "mapping"
            )
            result.plan.addStubFile(stubNames.allocate(base, extension: "json"), stubs)
        }
        return result
    }

    /// `dir/name.ext` as `dir/name` and `ext`: the extension is what follows the last dot of
    /// the last path component, when that dot is not its first character.
    static func splitExtension(_ name: String) -> (stem: String, ext: String) {
        let lastComponent = name.lastIndex(of: "/").map { name.index(after: $0) } ?? name.startIndex
        guard let dot = name[lastComponent...].lastIndex(of: "."), dot > lastComponent else { return (name, "") }
        return (String(name[..<dot]), String(name[name.index(after: dot)...]))
    }
}
