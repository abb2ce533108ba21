#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Writes whole files with `open`/`write`/`close` and no `fsync`. Foundation's `Data.write`
/// syncs every file to the disk, which made writing an import of eight thousand stub files
/// spend more time waiting for the disk than building them; an import can be run again, so it
/// needs no durability beyond what closing the file gives.
package enum FileWriting {
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Creates or truncates `path` (mode 0644) and writes `bytes`, retrying short writes and EINTR.
    package static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        try write(bytes, to: fd, path)
    }

    /// Writes a secret (a private key) to a new file only its owner can read (mode 0600): an
    /// existing file is removed first, so its mode is never inherited, and the file is created
    /// exclusively, so it is never readable by others even for a moment.
    package static func writePrivate(_ bytes: [UInt8], to path: String) throws(Failure) {
        if unlink(path) != 0, errno != ENOENT {
            throw Failure(description: "cannot replace \(path): \(String(cString: strerror(errno)))")
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        try write(bytes, to: fd, path)
    }

    /// Creates `path` and its parents (mode 0700: the folder holds a private key) unless it exists.
    package static func createPrivateFolder(_ path: String) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw Failure(description: "cannot create the folder \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func write(_ bytes: [UInt8], to fd: Int32, _ path: String) throws(Failure) {
        defer { close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                #if canImport(Darwin)
                Darwin.write(fd, buffer.baseAddress! + written, buffer.count - written)
                #elseif canImport(Glibc)
                Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                #else
                Musl.write(fd, buffer.baseAddress! + written, buffer.count - written)
                #endif
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            written += n
        }
    }
}
