#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import SystemSupport
import StubEngine

/// Loads a WireMock folder as it is: every `*.json` below `mappings/` (or below the folder
/// itself when it has no `mappings/`), bodies from `__files/`. Each mapping becomes a stub with
/// WireMock's id (or a stable one made from its file and place, so reloads keep ids) and
/// WireMock's tie rule: of equal priority, the mapping loaded last wins (files in sorted path
/// order, mappings in file order).
package struct WireMockFolderLoader: Sendable {
    package let directory: URL
    package let displayName: String
    package var globalTemplating = false

    package init(directory: URL, displayName: String, globalTemplating: Bool = false) {
        self.directory = directory.standardizedFileURL
        self.displayName = displayName
        self.globalTemplating = globalTemplating
    }

    /// Whether `folder` looks like a WireMock folder: it has `mappings/`, and no stub file
    /// outside `mappings/` and `__files/` (so `--dir` can take either kind).
    package static func recognises(_ folder: String) -> Bool {
        guard FileStatus(path: folder + "/mappings")?.kind == .directory else { return false }
        let others = FolderWalk.walk(
            folder,
            skipDirectory: { relative, name in
                relative == "mappings" || relative == "__files" || relative == "message-mappings" || name == "__files"
                    || name.hasPrefix(".")
            }
        ).entries
        return !others.contains { !$0.isDirectory && $0.path.lowercased().hasSuffix(".json") }
    }

    /// The folder the mapping files are in.
    package var mappingsFolder: URL {
        let nested = directory.appendingPathComponent("mappings")
        return FileStatus(path: nested.path)?.kind == .directory ? nested : directory
    }

    package func mappingFiles() -> [String] {
        listMappingFiles().files
    }

    /// The mapping files, and the folders that could not be listed.
    private func listMappingFiles() -> (files: [String], failures: [FolderWalk.ReadFailure]) {
        let listing = FolderWalk.walk(
            mappingsFolder.path,
            skipDirectory: { _, name in name == "__files" || name.hasPrefix(".") }
        )
        let files = listing.entries
            .filter {
                !$0.isDirectory && $0.path.lowercased().hasSuffix(".json")
                    && !$0.path.split(separator: "/").contains { $0.hasPrefix(".") }
            }
            .map(\.path)
            .sorted()
        return (files, listing.failures)
    }

    /// One mapping file as read: where it is and its checked mappings.
    package struct MappingFile: Sendable {
        /// Relative to the folder (`mappings/users.json`).
        package let relativePath: String
        /// As messages name it.
        package let displayPath: String
        package let mappings: [WireMockMapping]
    }

    /// Every mapping file read and checked (the importer's input): the mappings that read
    /// without error, the problems found, and the mappings left out for their errors.
    package struct Reading: Sendable {
        package var files: [MappingFile] = []
        package var problems: [StubProblem] = []
        package var skipped: [SkippedMapping] = []
        package var fileCount = 0
        /// The folder, a folder in it or a file in it cannot be read (missing, no permission,
        /// out of descriptors): nothing serves, so a reload keeps the last good stubs rather
        /// than serve what happened to be readable.
        package var folderUnreadable = false
    }

    package func readMappings() -> Reading {
        readMappings(sharing: context(displayPath: displayName))
    }

    /// `base`'s `__files` cache is the one the reader preloads for templated file names, so the
    /// stubs built with it never read the folder while answering.
    private func readMappings(sharing base: WireMockContext) -> Reading {
        var reading = Reading()
        guard FileStatus(path: directory.path)?.kind == .directory else {
            reading.problems = [
                StubProblem(
                    .error,
                    file: displayName,
                    message: "the WireMock folder does not exist; pass --wiremock with the folder that holds mappings/ "
                        + "and __files/"
                )
            ]
            reading.folderUnreadable = true
            return reading
        }
        let folder = mappingsFolder
        let prefix = folder == directory ? "" : "mappings/"
        let folderPath = folder.path.hasSuffix("/") ? folder.path : folder.path + "/"
        let (paths, failures) = listMappingFiles()
        reading.fileCount = paths.count
        // Not listed is not empty: a reload that could not list the folder keeps the last good stubs.
        for failure in failures {
            let file = (displayName.hasSuffix("/") ? displayName : displayName + "/") + prefix + failure.path
            reading.problems.append(
                StubProblem(.error, file: file, message: "cannot be listed: \(SystemErrors.message(failure.code))")
            )
            reading.folderUnreadable = true
        }
        for relative in paths {
            let display = (displayName.hasSuffix("/") ? displayName : displayName + "/") + prefix + relative
            guard let data = FileManager.default.contents(atPath: folderPath + relative) else {
                let problem = StubProblem(.error, file: display, message: "cannot be read (check its permissions)")
                reading.problems.append(problem)
                reading.folderUnreadable = true
                reading.skipped.append(
                    SkippedMapping(
                        file: display,
                        position: nil,
                        jsonPath: "$",
                        reason: problem.message
                    )
                )
                continue
            }
            do {
                let root = try JSONParser.parse(Array(data))
                var context = base.forFile(display)
                let mappings = WireMockReader.readFile(&context, root)
                reading.files.append(
                    MappingFile(
                        relativePath: prefix + relative,
                        displayPath: display,
                        mappings: mappings
                    )
                )
                reading.problems += context.problems
                reading.skipped += context.skipped
            } catch {
                // WireMock cannot read this file either (it stops at it); here the rest of the
                // folder serves, and the file is named with where its JSON breaks.
                reading.problems.append(
                    StubProblem(
                        .error,
                        file: display,
                        position: error.position,
                        message: error.message
                    )
                )
                reading.skipped.append(
                    SkippedMapping(
                        file: display,
                        position: error.position,
                        jsonPath: "$",
                        reason: "the file is not valid JSON: " + error.message
                    )
                )
            }
        }
        let messages = directory.appendingPathComponent("message-mappings")
        if mappingsFolder != directory, FileManager.default.fileExists(atPath: messages.path) {
            reading.problems.append(
                StubProblem(
                    .warning,
                    file: displayName + "/message-mappings",
                    message: "message (WebSocket) mappings are not supported; this folder is not loaded"
                )
            )
        }
        return reading
    }

    /// The folder's stubs. A mapping with an error is skipped (listed in `skipped`, its errors
    /// in `problems`) and the rest serve. Two mappings with one id are both served, as WireMock
    /// before 3.7 served them: the later one (in path order) keeps answering first among equal
    /// priorities, under an id of its own for the admin API.
    package func load() -> StubLoadResult {
        build(defaultName: { file, index, _ in "\(file.displayPath)#\(index)" }) { _, _, _ in }
    }

    /// Reads every mapping and compiles it into a stub, as serving loads the folder; `each` sees
    /// each stub with the mapping it was built from (`import wiremock` writes stub files of
    /// them). `defaultName` names a mapping that has no name.
    func build(
        defaultName: (MappingFile, Int, WireMockMapping) -> String,
        _ each: (MappingFile, WireMockMapping, Stub) -> Void
    ) -> StubLoadResult {
        let base = context(displayPath: displayName)
        let reading = readMappings(sharing: base)
        var stubs: [Stub] = []
        var problems = reading.problems
        var skipped = reading.skipped
        var ids: [String: String] = [:]
        for file in reading.files {
            var context = base.forFile(file.displayPath)
            for (index, mapping) in file.mappings.enumerated() {
                var id = mapping.id ?? Self.stableID(file.relativePath, index)
                if let other = ids[id] {
                    let own = Self.stableID(file.relativePath, index)
                    let written = (mapping.node["id"] ?? mapping.node["uuid"])?.position
                    context.warning(
                        mapping.path + ".id",
                        written,
                        "id \(id) is also the id of a mapping in \(other); both are served (this one "
                            + "answers first among equal priorities, as it is loaded later), and the admin API "
                            + "knows this one as \(own)"
                    )
                    id = own
                }
                ids[id] = file.displayPath
                let before = context.problems.count
                // Later mappings rank first among equals: WireMock's "most recently added wins".
                let source = StubSource.file(path: file.displayPath, index: index)
                if let stub = WireMockStubBuilder.stub(
                    mapping,
                    &context,
                    source: source,
                    order: -stubs.count,
                    id: id,
                    defaultName: defaultName(file, index, mapping)
                ) {
                    each(file, mapping, stub)
                    stubs.append(stub)
                } else {
                    context.skipIfFailed(mapping.path, mapping.node.position, since: before)
                }
            }
            problems += context.problems
            skipped += context.skipped
        }
        return StubLoadResult(
            stubs: stubs,
            problems: problems,
            fileCount: reading.fileCount,
            skipped: skipped,
            servesWithoutSkipped: !reading.folderUnreadable
        )
    }

    /// The reading context every file of this folder shares (one `__files` cache).
    private func context(displayPath: String) -> WireMockContext {
        WireMockContext(displayPath: displayPath, root: directory, globalTemplating: globalTemplating)
    }

    /// A UUID made from a mapping's file and place: the same across reloads, so the admin API's
    /// ids stay valid while the folder is watched.
    static func stableID(_ file: String, _ index: Int) -> String {
        var (a, b): (UInt64, UInt64) = (0xcbf2_9ce4_8422_2325, 0x8422_2325_cbf2_9ce4)
        for byte in Array("\(file)#\(index)".utf8) {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 &+ a
        }
        // FNV's last multiply moves only the low bits upward, so neighbours (`#0`, `#1`) shared
        // most of their digits; mixing spreads every input bit over the whole id.
        return WireMockIDs.uuid(high: mix(a), low: mix(b ^ a), version: 5)
    }

    /// SplitMix64's finaliser: a bijection, so distinct hashes stay distinct.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// UUID text from two 64-bit halves.
enum WireMockIDs {
    static func uuid(high: UInt64, low: UInt64, version: UInt8) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | (version << 4)
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let digits = Array("0123456789abcdef")
        var text = ""
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { text.append("-") }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }
}
