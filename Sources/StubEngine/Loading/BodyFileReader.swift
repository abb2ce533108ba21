#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Reads `bodyFile`s at load, refusing any path that leaves the stub folder, by `..` or by a
/// symbolic link (`FolderContainment`). WireMock's `__files` cache reads through it too, so a
/// file a template names passes the same check as one a stub names.
package struct BodyFileReader: Sendable {
    package struct Failure: Error {
        package let message: String
        /// The file is not there (a WireMock folder serves the mapping anyway; see
        /// `WireMockResponse.Body.missingFile`).
        package var isMissing = false
    }

    let containment: FolderContainment

    package init(root: URL) {
        containment = FolderContainment(root: root)
    }

    package func read(_ relative: String, from stubFile: URL) -> Result<[UInt8], Failure> {
        if relative.isEmpty {
            return .failure(Failure(message: "bodyFile is empty; give a path relative to this stub file"))
        }
        if relative.hasPrefix("/") {
            return .failure(
                Failure(message: "bodyFile must be relative to the stub file's folder, not absolute (\"\(relative)\")")
            )
        }
        let candidate = stubFile.deletingLastPathComponent().appendingPathComponent(relative).standardizedFileURL
        guard containment.holdsByName(candidate) else {
            return .failure(
                Failure(
                    message:
                        """
                        bodyFile \"\(relative)\" points outside the stub folder; keep body files inside it (for \
                        example in __files/)
                        """
                )
            )
        }
        guard let found = FileStatus(path: candidate.path) else {
            let message = "bodyFile \"\(relative)\" does not exist (looked for \(candidate.path))"
            return .failure(Failure(message: message, isMissing: true))
        }
        if found.kind == .directory {
            return .failure(Failure(message: "bodyFile \"\(relative)\" is a folder, not a file"))
        }
        if let outside = containment.escape(candidate) {
            let message = "bodyFile \"\(relative)\" is a symbolic link to \(outside.path), outside the stub folder"
            return .failure(Failure(message: message))
        }
        let resolved = candidate.resolvingSymlinksInPath().standardizedFileURL
        // Only regular files, checked before reading: a FIFO would block the loader (or the
        // loop that reloads) forever, and a device never ends.
        let status = FileStatus(path: resolved.path)
        guard let status, status.kind == .regular else {
            let kind = status.map { Self.describe($0.kind) } ?? "a symbolic link that leads nowhere"
            return .failure(Failure(message: "bodyFile \"\(relative)\" is \(kind); a body file must be a regular file"))
        }
        let size = status.size
        guard size <= Self.maximumBytes else {
            return .failure(
                Failure(
                    message:
                        """
                        bodyFile \"\(relative)\" is \(size) bytes, over the \(Self.maximumBytes / (1 << 20)) \
                        MiB limit for body files (bodies are held in memory)
                        """
                )
            )
        }
        guard let data = FileManager.default.contents(atPath: resolved.path) else {
            return .failure(Failure(message: "bodyFile \"\(relative)\" cannot be read (check its permissions)"))
        }
        return .success(Array(data))
    }

    /// Body files are read into memory once at load; this bounds what one stub can cost.
    package static let maximumBytes = 64 << 20

    private static func describe(_ kind: FileStatus.Kind) -> String {
        switch kind {
        case .regular: "a regular file"
        case .directory: "a folder"
        case .device: "a device"
        case .socket: "a socket"
        case .fifo: "a FIFO (named pipe)"
        case .other: "a special file"
        }
    }
}
