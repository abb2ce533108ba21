#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// This machine's addresses on its networks: what a phone on the same Wi-Fi or a device on the
/// LAN dials, so a server certificate for a server listening on every address names them.
package enum NetworkInterfaces {
    /// The IPv4 and IPv6 addresses of the interfaces that are up, loopback and link-local
    /// (fe80::/10, which needs a zone no URL carries) left out, as text, each once.
    package static func addresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0, let address = entry.pointee.ifa_addr
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var raw = v4.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                }
            case AF_INET6:
                let linkLocal = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 -> Bool in
                    var raw = v6.pointee.sin6_addr
                    let isLinkLocal = withUnsafeBytes(of: &raw) { $0[0] == 0xFE && $0[1] & 0xC0 == 0x80 }
                    if !isLinkLocal { _ = inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) }
                    return isLinkLocal
                }
                if linkLocal { continue }
            default:
                continue
            }
            let value = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !value.isEmpty, !found.contains(value) { found.append(value) }
        }
        return found
    }
}
