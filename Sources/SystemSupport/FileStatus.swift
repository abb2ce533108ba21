#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// What is at a path, by `stat` (links followed): the same answer on every platform, without
/// Foundation's `fileExists(atPath:isDirectory:)`, whose flag is an `ObjCBool` on Apple
/// platforms and a `Bool` in FoundationEssentials.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case regular, directory, fifo, device, socket, other
    }

    package let kind: Kind
    package let size: Int

    /// nil when nothing is there (or a link leads nowhere).
    package init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFCHR, S_IFBLK: kind = .device
        case S_IFSOCK: kind = .socket
        default: kind = .other
        }
        size = Int(status.st_size)
    }
}
