#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// A loopback port nothing listens on, held while the returned descriptor is open: a socket
/// bound to it but never listening, so a connect is refused and no other test's server can be
/// given the port meanwhile (bound-then-closed let a parallel test's listener take it; seen in a
/// full run). Close the descriptor when the test ends.
public func refusedLoopbackPort() -> (port: Int, descriptor: Int32)? {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        return nil
    }
    return (Int(UInt16(bigEndian: address.sin_port)), fd)
}
