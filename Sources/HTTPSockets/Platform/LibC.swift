// The only file outside Platform/ that may not import libc. Everything the server needs from
// the C library is re-exported through `Posix` (Posix.swift) with one signature on every platform.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#else
#error("stubserver supports Linux (Glibc, Musl) and Darwin")
#endif

/// Constants whose imported types differ between libcs, normalised to Int32.
enum LibC {
    #if canImport(Glibc)
    static let sockStream = Int32(SOCK_STREAM.rawValue)
    static let msgNoSignal = Int32(MSG_NOSIGNAL)
    static let ipprotoTCP = Int32(IPPROTO_TCP)
    static let ipprotoIPv6 = Int32(IPPROTO_IPV6)
    #elseif canImport(Musl)
    static let sockStream = Int32(SOCK_STREAM)
    static let msgNoSignal = Int32(MSG_NOSIGNAL)
    static let ipprotoTCP = Int32(IPPROTO_TCP)
    static let ipprotoIPv6 = Int32(IPPROTO_IPV6)
    #else
    static let sockStream = SOCK_STREAM
    static let msgNoSignal: Int32 = 0  // Darwin has no MSG_NOSIGNAL: SO_NOSIGPIPE is set per socket
    static let ipprotoTCP = IPPROTO_TCP
    static let ipprotoIPv6 = IPPROTO_IPV6
    #endif
}
