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

/// How a folder of stubs is written: stub files (the `NativeStubs` module's `NativeStubFolder`),
/// or a dialect's folder (the `WireMock` module's `WireMockFolderFormat`), each plugged in from
/// outside the engine. The engine knows no format: whoever makes the loader (the command line,
/// StubKit) names the format, and `StubFolderFormats` lists the ones `--dir` recognises.
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

/// The folder formats a server knows: the dialects plugged in from outside the engine, asked in
/// order, and the format of any other folder (stub files). A new dialect (a Mockoon folder, say)
/// is a `StubFolderFormat` in its own module, added to the list where the command line makes it
/// (`ServingOptions`).
package struct StubFolderFormats: Sendable {
    package let dialects: [any StubFolderFormat]
    /// The format of a folder no dialect recognises.
    package let otherwise: any StubFolderFormat

    package init(_ dialects: [any StubFolderFormat], otherwise: any StubFolderFormat) {
        self.dialects = dialects
        self.otherwise = otherwise
    }

    /// The first dialect that recognises the folder; `otherwise` when none does.
    package func format(of directory: String) -> any StubFolderFormat {
        dialects.first { $0.recognises(directory) } ?? otherwise
    }
}

/// Loads a folder in its format; `strict` makes every warning an error, whatever the format.
/// (`NativeStubs` adds `StubLoader(directory:)`, for a folder of stub files.)
package struct StubLoader: Sendable {
    package let directory: URL
    /// How the folder is named in messages: as the user typed it.
    package let displayName: String
    package let format: any StubFolderFormat
    package let strict: Bool

    package init(directory: String, format: any StubFolderFormat, strict: Bool = false) {
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

    /// A cheap summary of the folder (every file's path, size and modification time, body files
    /// included) that changes whenever a reload could change what is served. Throws when a
    /// folder cannot be listed, rather than report its files as gone.
    package func fingerprint() throws(FolderWalk.ReadFailure) -> [String: String] {
        try FolderWalk.fingerprint(directory.path)
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
