#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import StubEngine
import SystemSupport

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

extension StubFolderFormat {
    /// Whether this is the format of stub files, which the command line names by `--dir` alone.
    package var isNative: Bool { name == NativeStubFolder.name }
}

extension StubLoader {
    /// The stub files' paths relative to the folder, sorted (see `NativeStubFolder.listStubFiles`).
    package func stubFiles() -> [String] {
        NativeStubFolder.listStubFiles(directory).files
    }
}
