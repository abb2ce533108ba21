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
