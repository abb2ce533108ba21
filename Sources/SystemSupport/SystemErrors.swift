#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The system's words for an error number ("No such file or directory"), for messages built
/// without Foundation's `localizedDescription` (which FoundationEssentials lacks).
package enum SystemErrors {
    package static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
