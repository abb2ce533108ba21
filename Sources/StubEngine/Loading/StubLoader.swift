#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import SystemSupport

/// The outcome of loading a stub folder: the stubs and every problem found.
/// A folder of stub files with any error must not be served (see `isServable`); a dialect's
/// folder (WireMock's) may be served without the mappings that have errors (`skipped`), as long
/// as the folder itself can be read.
package struct StubLoadResult: Sendable {
    package let stubs: [Stub]
    package let problems: [StubProblem]
    package let fileCount: Int
    /// Mappings left out, each with where it is and why (a dialect's folder only).
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

/// How a folder of stubs is written: stub files (`NativeStubFolder`), or a dialect's folder
/// plugged in from outside the engine (the `WireMock` module's `WireMockFolderFormat`). The
/// engine knows no dialect: whoever makes the loader (the command line) names the format, and
/// `StubFolderFormats` lists the ones `--dir` recognises.
package protocol StubFolderFormat: Sendable {
    /// The format's name, as its flag says it (`--wiremock DIR`); `native` for stub files.
    var name: String { get }
    /// The folder as messages call it ("a WireMock folder").
    var folderDescription: String { get }
    /// What the command line says when `--dir` named such a folder without saying so.
    var recognisedNote: String { get }
    /// Whether `directory` is written in this format, so that `--dir` may name one.
    func recognises(_ directory: String) -> Bool
    /// Reads the folder: its stubs, every problem found, and what it serves without.
    func load(_ directory: URL, displayName: String) -> StubLoadResult
}

extension StubFolderFormat {
    package var isNative: Bool { name == NativeStubFolder.name }
}

/// The folder formats a server knows: stub files, and the dialects plugged in from outside the
/// engine, asked in order. A new dialect (a Mockoon folder, say) is a `StubFolderFormat` in its
/// own module, added to the list where the command line makes it (`ServingOptions`).
package struct StubFolderFormats: Sendable {
    package let dialects: [any StubFolderFormat]

    package init(_ dialects: [any StubFolderFormat]) {
        self.dialects = dialects
    }

    /// The first dialect that recognises the folder; stub files otherwise.
    package func format(of directory: String) -> any StubFolderFormat {
        dialects.first { $0.recognises(directory) } ?? NativeStubFolder()
    }
}

/// Loads a folder in its format (stub files unless told otherwise); `strict` makes every
/// warning an error, whatever the format.
package struct StubLoader: Sendable {
    package let directory: URL
    /// How the folder is named in messages: as the user typed it.
    package let displayName: String
    package let format: any StubFolderFormat
    package let strict: Bool

    package init(directory: String, format: any StubFolderFormat = NativeStubFolder(), strict: Bool = false) {
        self.displayName = directory
        self.directory = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        self.format = format
        self.strict = strict
    }

    /// The most a body file may hold (`BodyFileReader`): importers skip a larger body rather
    /// than write a folder that does not load.
    package static let maximumBodyFileBytes = BodyFileReader.maximumBytes

    package func load() -> StubLoadResult {
        let result = format.load(directory, displayName: displayName)
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

    /// The stub files' paths relative to the folder, sorted (see `NativeStubFolder.stubFiles`).
    package func stubFiles() -> [String] {
        NativeStubFolder.listStubFiles(directory).files
    }

    /// A cheap summary of the folder (every file's path, size and modification time, body files
    /// included) that changes whenever a reload could change what is served. Throws when a
    /// folder cannot be listed, rather than report its files as gone.
    package func fingerprint() throws(FolderWalk.ReadFailure) -> [String: String] {
        try FolderWalk.fingerprint(directory.path)
    }
}

/// A folder of stub files: every `*.json` below it, recursively, in sorted path order; files
/// inside a folder named `__files` are bodies, not stubs. Hidden files (editor swap files) are
/// skipped.
package struct NativeStubFolder: StubFolderFormat {
    package static let name = "native"
    package var name: String { Self.name }
    package var folderDescription: String { "a stub folder" }
    package var recognisedNote: String { "is a stub folder" }

    package init() {}

    /// Any folder may hold stub files.
    package func recognises(_ directory: String) -> Bool { true }

    package func load(_ directory: URL, displayName: String) -> StubLoadResult {
        NativeFolderLoad(directory: directory, displayName: displayName).load()
    }

    /// The stub files' paths relative to the folder, sorted. The walk is `FolderWalk`'s, the
    /// same the reload watcher fingerprints: links to folders are followed, each real folder
    /// once, so a link loop (`x -> .`) neither hangs the loader nor loads a file twice. Also
    /// the folders that could not be listed.
    static func listStubFiles(_ directory: URL) -> (files: [String], failures: [FolderWalk.ReadFailure]) {
        let listing = FolderWalk.walk(directory.path, skipDirectory: { _, name in name == "__files" })
        let files = listing.entries
            .filter { !$0.isDirectory && $0.path.lowercased().hasSuffix(".json") && !isInBodyFolder($0.path) }
            .map(\.path)
            .sorted()
        return (files, listing.failures)
    }

    /// Files inside a folder named `__files` are bodies, at any depth.
    private static func isInBodyFolder(_ path: String) -> Bool {
        path.split(separator: "/").dropLast().contains("__files")
    }
}

/// One load of a folder of stub files.
private struct NativeFolderLoad {
    let directory: URL
    let displayName: String

    func load() -> StubLoadResult {
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
        let (files, failures) = NativeStubFolder.listStubFiles(directory)
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

    private func displayPath(_ relative: String) -> String {
        displayName.hasSuffix("/") ? displayName + relative : displayName + "/" + relative
    }
}

extension StubProblem {
    /// The same problem as an error (`--strict`).
    package var asError: StubProblem {
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
