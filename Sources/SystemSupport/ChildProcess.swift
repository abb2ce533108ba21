#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Runs another program and waits for it (`xcrun simctl` for `certs trust ios-simulator`):
/// `posix_spawnp` with this process's standard streams and environment.
package enum ChildProcess {
    /// The program's exit status, or nil when it could not be started.
    package static func run(_ arguments: [String]) -> Int32? {
        guard !arguments.isEmpty else { return nil }
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        var pid = pid_t()
        let started = posix_spawnp(&pid, arguments[0], nil, nil, pointers, environ)
        guard started == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        // WIFEXITED / WEXITSTATUS, written out: the macros are not imported.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
