import Foundation

/// Reads `bodyFile`s at load, refusing any path that leaves the stub folder, by `..` or by a
/// symbolic link: a stub folder shared in a repository must not serve `~/.ssh` by accident.
struct BodyFileReader {
    struct Failure: Error { let message: String }

    /// The stub folder as given, and with symbolic links resolved.
    let root: URL
    let resolvedRoot: URL

    init(root: URL) {
        self.root = root.standardizedFileURL
        self.resolvedRoot = root.resolvingSymlinksInPath().standardizedFileURL
    }

    func read(_ relative: String, from stubFile: URL) -> Result<[UInt8], Failure> {
        if relative.isEmpty { return .failure(Failure(message: "bodyFile is empty; give a path relative to this stub file")) }
        if relative.hasPrefix("/") {
            return .failure(Failure(message: "bodyFile must be relative to the stub file's folder, not absolute (\"\(relative)\")"))
        }
        let candidate = stubFile.deletingLastPathComponent().appendingPathComponent(relative).standardizedFileURL
        guard Self.isInside(candidate, root) else {
            return .failure(Failure(message: "bodyFile \"\(relative)\" points outside the stub folder; keep body files inside it (for example in __files/)"))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory) else {
            return .failure(Failure(message: "bodyFile \"\(relative)\" does not exist (looked for \(candidate.path))"))
        }
        if isDirectory.boolValue {
            return .failure(Failure(message: "bodyFile \"\(relative)\" is a folder, not a file"))
        }
        let resolved = candidate.resolvingSymlinksInPath().standardizedFileURL
        guard Self.isInside(resolved, resolvedRoot) else {
            return .failure(Failure(message: "bodyFile \"\(relative)\" is a symbolic link to \(resolved.path), outside the stub folder"))
        }
        // Only regular files, checked before reading: a FIFO would block the loader (or the
        // loop that reloads) forever, and a device never ends.
        let attributes = try? FileManager.default.attributesOfItem(atPath: resolved.path)
        let type = attributes?[.type] as? FileAttributeType
        guard type == .typeRegular else {
            let kind = type.map(Self.describe) ?? "not a regular file"
            return .failure(Failure(message: "bodyFile \"\(relative)\" is \(kind); a body file must be a regular file"))
        }
        let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.maximumBytes else {
            return .failure(Failure(message: "bodyFile \"\(relative)\" is \(size) bytes, over the \(Self.maximumBytes / (1 << 20)) MiB limit for body files (bodies are held in memory)"))
        }
        guard let data = FileManager.default.contents(atPath: resolved.path) else {
            return .failure(Failure(message: "bodyFile \"\(relative)\" cannot be read (check its permissions)"))
        }
        return .success(Array(data))
    }

    /// Body files are read into memory once at load; this bounds what one stub can cost.
    static let maximumBytes = 64 << 20

    private static func describe(_ type: FileAttributeType) -> String {
        switch type {
        case .typeDirectory: "a folder"
        case .typeCharacterSpecial, .typeBlockSpecial: "a device"
        case .typeSocket: "a socket"
        case .typeSymbolicLink: "a symbolic link that leads nowhere"
        // Foundation has no FIFO type: a named pipe comes back as unknown.
        default: "a FIFO (named pipe) or another special file, not a regular file"
        }
    }

    private static func isInside(_ url: URL, _ folder: URL) -> Bool {
        let folderComponents = folder.pathComponents
        let components = url.pathComponents
        return components.count > folderComponents.count && Array(components.prefix(folderComponents.count)) == folderComponents
    }
}
