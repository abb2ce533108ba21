#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NativeStubs
import StubEngine
import SystemSupport

/// The one writer of stub folders (recordings, every import): a `StubFolderPlan` goes into a
/// folder so that nothing is lost or half-written. The files go first into a hidden staging
/// folder, which must load without errors as the server would load it; only then do they take
/// their place, by rename. What happens to what the folder already holds is the caller's choice
/// (`ExistingFiles`): `--force` on the command line is `.replace`.
package enum StubFolderWriter {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// What the folder's current contents become.
    package enum ExistingFiles: Sendable {
        /// The plan is added beside them and never replaces one (a recording, `import wiremock`):
        /// staged inside the folder, moved in file by file.
        case keep
        /// The folder must be missing or empty (an import without `--force`).
        case refuse
        /// The folder becomes the plan, in one rename (`--force`): a server watching it sees one
        /// change, and a failed write leaves it as it was.
        case replace
    }

    /// What was written and loaded back.
    package struct Written: Sendable {
        /// Relative to the folder, in the plan's order.
        package let paths: [String]
        /// Stubs and stub files the written plan loads as.
        package let stubCount: Int
        package let fileCount: Int
        /// Warnings of the loader (errors stop the write), naming files in the final folder.
        package let problems: [StubProblem]
    }

    /// The names already in `folder` and in its `__files/` (lower-cased), for a planner to
    /// avoid.
    package static func existingNames(in folder: String) -> (stubs: Set<String>, bodies: Set<String>) {
        let files = FileManager.default
        let stubs = (try? files.contentsOfDirectory(atPath: folder)) ?? []
        let bodies = (try? files.contentsOfDirectory(atPath: folder + "/__files")) ?? []
        return (Set(stubs.map { $0.lowercased() }), Set(bodies.map { $0.lowercased() }))
    }

    /// Writes `plan` into `folder` (made if missing).
    @discardableResult
    package static func write(
        _ plan: StubFolderPlan,
        into folder: String,
        existing: ExistingFiles
    ) throws(Failure) -> Written {
        if let status = FileStatus(path: folder), status.kind != .directory {
            throw Failure(description: "\(folder) is a file, not a folder to write stubs into")
        }
        switch existing {
        case .keep:
            return try add(plan, into: folder)
        case .refuse:
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            guard contents.isEmpty else {
                throw Failure(
                    description: "\(folder) is not empty; pick a new folder, "
                        + "or pass --force to replace everything in it"
                )
            }
            return try replaceFolder(folder, with: plan)
        case .replace:
            return try replaceFolder(folder, with: plan)
        }
    }

    /// `.keep`: staged in a hidden folder inside `folder` (the loader skips hidden names), then
    /// moved into place file by file; a name that appeared meanwhile stops the write.
    private static func add(_ plan: StubFolderPlan, into folder: String) throws(Failure) -> Written {
        guard !plan.files.isEmpty else {
            return Written(paths: [], stubCount: 0, fileCount: 0, problems: [])
        }
        // Where the loader would refuse to read, nothing is written: a `__files` (or any folder
        // on the way) that links out of the folder would put the files elsewhere on the disk.
        let containment = FolderContainment(root: URL(fileURLWithPath: folder, isDirectory: true))
        for file in plan.files {
            let target = URL(fileURLWithPath: folder + "/" + file.relativePath)
            guard let outside = containment.escape(target) else { continue }
            throw Failure(
                description: "\(file.relativePath) would be written to \(outside.path), outside \(folder), "
                    + "through a symbolic link; nothing was written (the loader would not read it either)"
            )
        }
        let files = FileManager.default
        let staging = folder + "/.stubserver-staging-\(UUID().uuidString.prefix(8).lowercased())"
        do {
            try files.createDirectory(atPath: staging, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot create \(folder): \(describe(error))")
        }
        defer { try? files.removeItem(atPath: staging) }
        try stage(plan, in: staging, naming: folder)
        let loaded = try loadStaged(staging, as: folder)
        for file in plan.files where files.fileExists(atPath: folder + "/" + file.relativePath) {
            throw Failure(description: "\(folder)/\(file.relativePath) appeared while writing; nothing was written")
        }
        var written: [String] = []
        for file in plan.files {
            let target = folder + "/" + file.relativePath
            do {
                try files.createDirectory(atPath: parentFolder(target), withIntermediateDirectories: true)
                try files.moveItem(atPath: staging + "/" + file.relativePath, toPath: target)
                written.append(file.relativePath)
            } catch {
                throw Failure(
                    description: "cannot move \(file.relativePath) into \(folder) "
                        + "(\(written.count) of \(plan.files.count) files written): \(describe(error))"
                )
            }
        }
        return Written(
            paths: written,
            stubCount: loaded.stubs.count,
            fileCount: loaded.fileCount,
            problems: loaded.problems
        )
    }

    /// `.refuse` and `.replace`: staged in a hidden folder beside `folder`, which then takes its
    /// place; the old contents go only once the new ones are in.
    private static func replaceFolder(_ folder: String, with plan: StubFolderPlan) throws(Failure) -> Written {
        let files = FileManager.default
        let target = URL(fileURLWithPath: folder).standardizedFileURL
        let parent = target.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(target.lastPathComponent).stubserver-\(UUID().uuidString)")
        do {
            try files.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw Failure(description: "cannot write into \(parent.path): \(describe(error))")
        }
        let loaded: StubLoadResult
        do {
            try stage(plan, in: staging.path, naming: folder)
            loaded = try loadStaged(staging.path, as: folder)
        } catch {
            try? files.removeItem(at: staging)
            throw error
        }
        do {
            if FileStatus(path: target.path) != nil {
                let old = parent.appendingPathComponent(".\(target.lastPathComponent).replaced-\(UUID().uuidString)")
                try files.moveItem(at: target, to: old)
                try files.moveItem(at: staging, to: target)
                try? files.removeItem(at: old)
            } else {
                try files.moveItem(at: staging, to: target)
            }
        } catch {
            try? files.removeItem(at: staging)
            throw Failure(description: "cannot move the stubs into \(folder): \(describe(error))")
        }
        return Written(
            paths: plan.files.map(\.relativePath),
            stubCount: loaded.stubs.count,
            fileCount: loaded.fileCount,
            problems: loaded.problems
        )
    }

    /// Writes every file of `plan` below `staging` (without `fsync`: a write can be run again).
    private static func stage(_ plan: StubFolderPlan, in staging: String, naming folder: String) throws(Failure) {
        for file in plan.files {
            let path = staging + "/" + file.relativePath
            do {
                try FileManager.default.createDirectory(atPath: parentFolder(path), withIntermediateDirectories: true)
                try FileWriting.write(file.bytes, to: path)
            } catch {
                throw Failure(description: "cannot write \(file.relativePath) in \(folder): \(describe(error))")
            }
        }
    }

    /// Loads the staged files as the server would; any error stops the write. Problems name
    /// files as they will be in `folder`.
    private static func loadStaged(_ staging: String, as folder: String) throws(Failure) -> StubLoadResult {
        let loaded = StubLoader(directory: staging).load()
        let problems = loaded.problems.map { problem in
            let file = problem.file.hasPrefix(staging) ? folder + problem.file.dropFirst(staging.count) : problem.file
            return StubProblem(
                problem.severity,
                file: file,
                position: problem.position,
                jsonPath: problem.jsonPath,
                message: problem.message
            )
        }
        let errors = problems.filter { $0.severity == .error }
        guard errors.isEmpty else {
            let first = errors.prefix(5).map(\.description).joined(separator: "\n")
            throw Failure(
                description: "the stubs written would not load, so nothing was written "
                    + "(this is a bug in stubserver; please report it with the input):\n\(first)"
            )
        }
        return StubLoadResult(stubs: loaded.stubs, problems: problems, fileCount: loaded.fileCount)
    }
}

/// `a/b/c.json` → `a/b`.
private func parentFolder(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
