#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import SystemSupport

/// The outcome of loading a stub folder: the stubs and every problem found.
/// A folder of stub files with any error must not be served (see `isServable`); a WireMock
/// folder is served without the mappings that have errors (`skipped`), as long as the folder
/// itself can be read.
package struct StubLoadResult: Sendable {
    package let stubs: [Stub]
    package let problems: [StubProblem]
    package let fileCount: Int
    /// Mappings left out, each with where it is and why (WireMock dialect only).
    package let skipped: [SkippedMapping]
    /// Every error belongs to a skipped mapping: the rest of the folder serves.
    private let servesWithoutSkipped: Bool

    package init(
        stubs: [Stub],
        problems: [StubProblem],
        fileCount: Int,
        skipped: [SkippedMapping] = [],
        servesWithoutSkipped: Bool = false
    ) {
        self.stubs = stubs
        self.problems = problems
        self.fileCount = fileCount
        self.skipped = skipped
        self.servesWithoutSkipped = servesWithoutSkipped
    }

    package var errors: [StubProblem] { problems.filter { $0.severity == .error } }
    package var warnings: [StubProblem] { problems.filter { $0.severity == .warning } }
    package var isServable: Bool { servesWithoutSkipped || !problems.contains { $0.severity == .error } }
}

/// How a folder of stubs is written.
package enum StubFolderFormat: String, Sendable {
    /// Stub files (docs/stub-format.md).
    case native
    /// A WireMock folder: `mappings/` and `__files/` (docs/wiremock.md).
    case wiremock
}

/// Loads every `*.json` below a folder, recursively, in sorted path order; files inside a
/// folder named `__files` are bodies, not stubs. Hidden files (editor swap files) are skipped.
/// A WireMock folder goes to `WireMockFolderLoader`. `strict` makes every warning an error.
package struct StubLoader: Sendable {
    package let directory: URL
    /// How the folder is named in messages: as the user typed it.
    package let displayName: String
    package let format: StubFolderFormat
    package let strict: Bool
    /// A WireMock folder's responses are all templates (`--global-response-templating`).
    package let globalTemplating: Bool

    package init(
        directory: String,
        format: StubFolderFormat = .native,
        strict: Bool = false,
        globalTemplating: Bool = false
    ) {
        self.displayName = directory
        self.directory = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        self.format = format
        self.strict = strict
        self.globalTemplating = globalTemplating
    }

    /// The most a body file may hold (`BodyFileReader`): importers skip a larger body rather
    /// than write a folder that does not load.
    package static let maximumBodyFileBytes = BodyFileReader.maximumBytes

    package func load() -> StubLoadResult {
        let result =
            format == .wiremock
            ? WireMockFolderLoader(directory: directory, displayName: displayName, globalTemplating: globalTemplating)
                .load()
            : loadStubFiles()
        // --strict: every warning an error, and no mapping skipped: any error refuses the folder.
        guard strict, !result.warnings.isEmpty || !result.skipped.isEmpty else { return result }
        let problems = result.problems.map(\.asError)
        return StubLoadResult(
            stubs: result.stubs,
            problems: problems,
            fileCount: result.fileCount,
            skipped: result.skipped
        )
    }

    private func loadStubFiles() -> StubLoadResult {
        guard let status = FileStatus(path: directory.path) else {
            return StubLoadResult(
                stubs: [],
                problems: [
                    StubProblem(
                        .error,
                        file: displayName,
                        message:
                            """
                            the stub folder does not exist; create it or pass --dir with the folder that holds \
                            your stub files
                            """
                    )
                ],
                fileCount: 0
            )
        }
        guard status.kind == .directory else {
            return StubLoadResult(
                stubs: [],
                problems: [
                    StubProblem(
                        .error,
                        file: displayName,
                        message: "is a file, not a folder; pass --dir with the folder that holds your stub files"
                    )
                ],
                fileCount: 0
            )
        }
        guard FileManager.default.isReadableFile(atPath: directory.path) else {
            return StubLoadResult(
                stubs: [],
                problems: [
                    StubProblem(
                        .error,
                        file: displayName,
                        message: "the stub folder cannot be read (no permission)"
                    )
                ],
                fileCount: 0
            )
        }
        let (files, failures) = listStubFiles()
        let bodyFiles = BodyFileReader(root: directory)
        var stubs: [Stub] = []
        // A folder that cannot be listed (out of descriptors, say) is an error, not an empty
        // folder: a reload then keeps the last good stubs instead of serving none.
        var problems = failures.map { failure in
            StubProblem(
                .error,
                file: failure.path.isEmpty ? displayName : displayPath(failure.path),
                message: "cannot be listed: \(SystemErrors.message(failure.code))"
            )
        }
        for relative in files {
            let url = directory.appendingPathComponent(relative)
            let display = displayPath(relative)
            guard let data = FileManager.default.contents(atPath: url.path) else {
                problems.append(StubProblem(.error, file: display, message: "cannot be read (check its permissions)"))
                continue
            }
            let root: JSONNode
            do {
                root = try JSONParser.parse(Array(data), rejectDuplicateKeys: true)
            } catch {
                problems.append(StubProblem(.error, file: display, position: error.position, message: error.message))
                continue
            }
            var context = DecodingContext(displayPath: display, fileURL: url, bodyFiles: bodyFiles)
            stubs.append(contentsOf: StubFileDecoder.decodeFile(&context, root, firstOrder: stubs.count))
            problems.append(contentsOf: context.problems)
        }
        problems += ShadowedStubs.warnings(stubs)
        return StubLoadResult(stubs: stubs, problems: problems, fileCount: files.count)
    }

    /// The stub files' paths relative to the folder, sorted. The walk is `FolderWalk`'s, the
    /// same the reload watcher fingerprints: links to folders are followed, each real folder
    /// once, so a link loop (`x -> .`) neither hangs the loader nor loads a file twice.
    package func stubFiles() -> [String] {
        listStubFiles().files
    }

    /// The stub files, and the folders that could not be listed.
    private func listStubFiles() -> (files: [String], failures: [FolderWalk.ReadFailure]) {
        let listing = FolderWalk.walk(directory.path, skipDirectory: { _, name in name == "__files" })
        let files = listing.entries
            .filter { !$0.isDirectory && $0.path.lowercased().hasSuffix(".json") && !Self.isInBodyFolder($0.path) }
            .map(\.path)
            .sorted()
        return (files, listing.failures)
    }

    /// Files inside a folder named `__files` are bodies, at any depth.
    private static func isInBodyFolder(_ path: String) -> Bool {
        path.split(separator: "/").dropLast().contains("__files")
    }

    private func displayPath(_ relative: String) -> String {
        displayName.hasSuffix("/") ? displayName + relative : displayName + "/" + relative
    }

    /// A cheap summary of the folder (every file's path, size and modification time, body files
    /// included) that changes whenever a reload could change what is served. Throws when a
    /// folder cannot be listed, rather than report its files as gone.
    package func fingerprint() throws(FolderWalk.ReadFailure) -> [String: String] {
        try FolderWalk.fingerprint(directory.path)
    }
}

extension StubProblem {
    /// The same problem as an error (`--strict`).
    var asError: StubProblem {
        severity == .error
            ? self
            : StubProblem(
                .error,
                file: file,
                position: position,
                jsonPath: jsonPath,
                message: message + " (an error with --strict)"
            )
    }
}
