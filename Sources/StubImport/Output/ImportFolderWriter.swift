#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StubEngine
import SystemSupport

/// Writes an import plan into its folder and proves it loads. The files go into a hidden folder
/// beside the target first; only when `StubLoader` reads that back without errors does it take
/// the target's place, so a failed import never leaves half a folder, and a running server
/// watching the target sees one change.
package enum ImportFolderWriter {
    /// What loading the written folder found.
    package struct Written: Sendable {
        package let stubCount: Int
        package let fileCount: Int
        /// Warnings of the loader (errors stop the write), naming files in the final folder.
        package let problems: [StubProblem]
    }

    /// What was written and loaded back; or why nothing was written.
    package static func write(_ plan: ImportPlan, to folder: String, replace: Bool) -> Result<Written, ImportFailure> {
        let fileManager = FileManager.default
        let target = URL(fileURLWithPath: folder).standardizedFileURL
        let status = FileStatus(path: target.path)
        let exists = status != nil
        if let status, status.kind != .directory {
            return .failure(ImportFailure("\(folder) is a file; --out names the folder to write the stubs into"))
        }
        if exists && !replace, let contents = try? fileManager.contentsOfDirectory(atPath: target.path),
            !contents.isEmpty
        {
            return .failure(
                ImportFailure(
                    """
                    \(folder) is not empty; pick a new folder, or pass --force to replace everything in it with \
                    the import
                    """
                )
            )
        }
        let parent = target.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(target.lastPathComponent).import-\(UUID().uuidString)")
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
            for file in plan.files {
                let url = staging.appendingPathComponent(file.relativePath)
                try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileWriting.write(file.bytes, to: url.path)
            }
        } catch {
            try? fileManager.removeItem(at: staging)
            return .failure(ImportFailure("cannot write into \(parent.path): \(describe(error))"))
        }
        let loaded = StubLoader(directory: staging.path).load()
        let problems = loaded.problems.map { rename($0, from: staging.path, to: folder) }
        guard loaded.isServable else {
            try? fileManager.removeItem(at: staging)
            let lines = problems.filter { $0.severity == .error }.prefix(5).map(\.description).joined(separator: "\n")
            return .failure(
                ImportFailure(
                    """
                    the import made stubs that do not load, so nothing was written (this is a bug in \
                    stubserver; please report it with the input):\n\(lines)
                    """
                )
            )
        }
        do {
            if exists {
                let old = parent.appendingPathComponent(".\(target.lastPathComponent).replaced-\(UUID().uuidString)")
                try fileManager.moveItem(at: target, to: old)
                try fileManager.moveItem(at: staging, to: target)
                try? fileManager.removeItem(at: old)
            } else {
                try fileManager.moveItem(at: staging, to: target)
            }
        } catch {
            try? fileManager.removeItem(at: staging)
            return .failure(ImportFailure("cannot move the import into \(folder): \(describe(error))"))
        }
        return .success(Written(stubCount: loaded.stubs.count, fileCount: loaded.fileCount, problems: problems))
    }

    private static func rename(_ problem: StubProblem, from staging: String, to folder: String) -> StubProblem {
        let file = problem.file.hasPrefix(staging) ? folder + problem.file.dropFirst(staging.count) : problem.file
        return StubProblem(
            problem.severity,
            file: file,
            position: problem.position,
            jsonPath: problem.jsonPath,
            message: problem.message
        )
    }
}
