#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The one walk over a folder tree, used by the stub loader (which files to load) and by the
/// reload watcher (whether anything changed), so the two always agree on what the folder holds.
///
/// Symbolic links to folders are followed (teams link a shared stub folder in), but each real
/// folder (device and inode) is entered once, so `x -> .` loops cannot make the walk endless or
/// load a file twice, and the depth is bounded. Hidden entries (a leading dot: editor swap files,
/// `.git`) are skipped. `readdir` and `lstat`/`stat` directly: Foundation's `attributesOfItem`
/// costs about 30 times more per file (it looks up owner names), which at four polls a second
/// over a thousand stub files was 7% of a core.
package enum FolderWalk {
    package struct Entry: Sendable, Equatable {
        /// Relative to the root, `/`-separated, as reached (through links by their link name).
        package let path: String
        package let isDirectory: Bool
        /// A regular file (or a link to one); false for FIFOs, sockets and devices.
        package let isRegularFile: Bool
        package let size: Int64
        /// Modification time, seconds and nanoseconds.
        package let modified: (seconds: Int, nanoseconds: Int)
        /// Reached through a symbolic link somewhere on its path.
        package let viaLink: Bool

        package static func == (a: Entry, b: Entry) -> Bool {
            a.path == b.path && a.isDirectory == b.isDirectory && a.isRegularFile == b.isRegularFile && a.size == b.size
                && a.modified.seconds == b.modified.seconds && a.modified.nanoseconds == b.modified.nanoseconds
                && a.viaLink == b.viaLink
        }
    }

    /// A folder that could not be listed (`opendir` or `readdir` failed): out of descriptors
    /// (EMFILE), no permission, an I/O error. The walk goes on without it, and says so: a walk
    /// that silently returned fewer names unloaded every stub when descriptors ran out.
    package struct ReadFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Relative to the root, `/`-separated; empty for the root itself.
        package let path: String
        package let code: Int32

        package init(path: String, code: Int32) {
            self.path = path
            self.code = code
        }

        package var description: String {
            let folder = path.isEmpty ? "the folder" : "folder \(path)"
            return "\(folder) cannot be listed: \(SystemErrors.message(code))"
        }
    }

    /// What a walk found, and the folders it could not list.
    package struct Listing: Sendable {
        package var entries: [Entry] = []
        package var failures: [ReadFailure] = []
    }

    package static let maximumDepth = 32

    /// Every entry below `root` (not `root` itself), directories before their contents, each
    /// directory's entries in byte order of their names, and every folder that could not be read.
    /// `skipDirectory` is asked about each folder before it is entered (its entry is still
    /// reported).
    package static func walk(
        _ root: String,
        skipDirectory: (_ relativePath: String, _ name: String) -> Bool = { _, _ in false }
    ) -> Listing {
        var result = Listing()
        var visited = Set<FileID>()
        if let id = fileID(root, follow: true) { visited.insert(id) }
        // The real tree first, links to folders afterwards: a folder reached both directly and
        // through a link is walked under its own name, whichever name sorts first.
        var links: [Pending] = []
        walk(
            Pending(path: root, relative: "", depth: 0),
            viaLink: false,
            visited: &visited,
            links: &links,
            skip: skipDirectory,
            into: &result
        )
        while !links.isEmpty {
            let link = links.removeFirst()
            guard let id = fileID(link.path, follow: true), visited.insert(id).inserted else { continue }
            walk(link, viaLink: true, visited: &visited, links: &links, skip: skipDirectory, into: &result)
        }
        return result
    }

    /// Path to `size@seconds.nanoseconds` for every file: a cheap fingerprint that changes
    /// whenever a reload could change what is served. Throws when a folder cannot be listed:
    /// a partial fingerprint would look like deleted files.
    package static func fingerprint(_ root: String) throws(ReadFailure) -> [String: String] {
        let listing = walk(root)
        if let failure = listing.failures.first { throw failure }
        var result: [String: String] = [:]
        for entry in listing.entries where !entry.isDirectory {
            result[entry.path] = "\(entry.size)@\(entry.modified.seconds).\(entry.modified.nanoseconds)"
        }
        return result
    }

    private struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static func fileID(_ path: String, follow: Bool) -> FileID? {
        var status = stat()
        guard (follow ? stat(path, &status) : lstat(path, &status)) == 0 else { return nil }
        return FileID(
            device: UInt64(truncatingIfNeeded: status.st_dev),
            inode: UInt64(truncatingIfNeeded: status.st_ino)
        )
    }

    /// The folder's visible names, or the error that stopped listing them. A folder that went
    /// away since its parent was listed (ENOENT, ENOTDIR) has no names and is no failure.
    private static func names(in path: String) -> (names: [String], error: Int32?) {
        guard let directory = opendir(path) else {
            let code = errno
            return ([], code == ENOENT || code == ENOTDIR ? nil : code)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            // readdir returns nil both at the end and on an error; only errno tells them apart.
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { return ([], errno) }
                break
            }
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(cString: $0)
                }
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        // Byte order, not locale order: the same on every machine.
        return (names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, nil)
    }

    private struct Pending {
        let path: String
        let relative: String
        let depth: Int
    }

    private static func walk(
        _ folder: Pending,
        viaLink: Bool,
        visited: inout Set<FileID>,
        links: inout [Pending],
        skip: (String, String) -> Bool,
        into result: inout Listing
    ) {
        guard folder.depth < maximumDepth else { return }
        let listed = names(in: folder.path)
        if let code = listed.error {
            result.failures.append(ReadFailure(path: folder.relative, code: code))
            return
        }
        for name in listed.names {
            let childPath = folder.path + "/" + name
            let childRelative = folder.relative.isEmpty ? name : folder.relative + "/" + name
            var linkStatus = stat()
            guard lstat(childPath, &linkStatus) == 0 else { continue }
            let isLink = Int(linkStatus.st_mode) & Int(S_IFMT) == Int(S_IFLNK)
            var status = linkStatus
            // A dangling link is skipped: there is nothing to load or watch behind it.
            if isLink { guard stat(childPath, &status) == 0 else { continue } }
            // mode_t is 16 bits on Darwin and 32 on Linux, and S_IFMT imports as Int32: widen all three.
            let type = Int(status.st_mode) & Int(S_IFMT)
            #if canImport(Darwin)
            let modified = status.st_mtimespec
            #else
            let modified = status.st_mtim
            #endif
            let entry = Entry(
                path: childRelative,
                isDirectory: type == Int(S_IFDIR),
                isRegularFile: type == Int(S_IFREG),
                size: Int64(status.st_size),
                modified: (Int(modified.tv_sec), Int(modified.tv_nsec)),
                viaLink: viaLink || isLink
            )
            guard entry.isDirectory else {
                result.entries.append(entry)
                continue
            }
            guard !skip(childRelative, name) else {
                result.entries.append(entry)
                continue
            }
            let child = Pending(path: childPath, relative: childRelative, depth: folder.depth + 1)
            if isLink {
                // Walked after the real tree, if its folder was not reached directly.
                links.append(child)
                continue
            }
            result.entries.append(entry)
            let id = FileID(
                device: UInt64(truncatingIfNeeded: status.st_dev),
                inode: UInt64(truncatingIfNeeded: status.st_ino)
            )
            // Each real folder once (hard-linked folders do not exist, but bind mounts do).
            guard visited.insert(id).inserted else { continue }
            walk(child, viaLink: viaLink, visited: &visited, links: &links, skip: skip, into: &result)
        }
    }
}
