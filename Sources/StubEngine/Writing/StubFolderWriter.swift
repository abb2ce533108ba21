#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a `StubFolderPlan` into a folder so that nothing is lost or half-written: the files go
/// first into a hidden staging folder inside it (the loader skips hidden names), which must load
/// without errors as the server would load it; then each moves into place by rename. A file that
/// exists is never replaced.
package enum StubFolderWriter {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The names already in `folder` and in its `__files/` (lower-cased), for the planner to
    /// avoid.
    package static func existingNames(in folder: String) -> (stubs: Set<String>, bodies: Set<String>) {
        let files = FileManager.default
        let stubs = (try? files.contentsOfDirectory(atPath: folder)) ?? []
        let bodies = (try? files.contentsOfDirectory(atPath: folder + "/__files")) ?? []
        return (Set(stubs.map { $0.lowercased() }), Set(bodies.map { $0.lowercased() }))
    }

    /// Writes `plan` into `folder` (made if missing). Returns the relative paths written, in
    /// the plan's order.
    @discardableResult
    package static func write(_ plan: StubFolderPlan, into folder: String) throws(Failure) -> [String] {
        guard !plan.files.isEmpty else { return [] }
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
        for file in plan.files {
            let path = staging + "/" + file.relativePath
            do {
                try files.createDirectory(atPath: parentFolder(path), withIntermediateDirectories: true)
                try Data(file.bytes).write(to: URL(fileURLWithPath: path))
            } catch {
                throw Failure(description: "cannot write \(file.relativePath) in \(folder): \(describe(error))")
            }
        }
        let loaded = StubLoader(directory: staging).load()
        guard loaded.errors.isEmpty else {
            let first = loaded.errors.prefix(3).map { $0.description.replacing(staging + "/", with: "") }
            throw Failure(
                description: "the stubs written would not load (nothing was written): " + first.joined(separator: "; ")
            )
        }
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
                    description:
                        """
                        cannot move \(file.relativePath) into \(folder) (\(written.count) of \
                        \(plan.files.count) files written): \(describe(error))
                        """
                )
            }
        }
        return written
    }
}

/// `a/b/c.json` → `a/b`.
private func parentFolder(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
