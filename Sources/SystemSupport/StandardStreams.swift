#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Writing to stdout and stderr without Foundation's `FileHandle`: the whole buffer, through
/// short writes and interruptions; a closed pipe (the reader went away) drops the rest.
package enum StandardStreams {
    package static func write(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glue.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n > 0 {
                offset += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            return
        }
    }

    package static func out(_ bytes: [UInt8]) { write(bytes, to: 1) }
    package static func err(_ bytes: [UInt8]) { write(bytes, to: 2) }

    private enum Glue {
        #if canImport(Glibc)
        static let write = Glibc.write
        #elseif canImport(Musl)
        static let write = Musl.write
        #else
        static let write = Darwin.write
        #endif
    }
}
