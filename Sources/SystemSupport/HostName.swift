#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// This machine's names as other devices on the network call it: the host name, and its mDNS
/// form (`name.local`, what a phone on the same Wi-Fi resolves for a Mac).
package enum HostName {
    package static func own() -> [String] {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return [] }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
        guard !name.isEmpty else { return [] }
        let short = name.split(separator: ".").first.map(String.init) ?? name
        var names = [name]
        for candidate in [short, short + ".local"] where !names.contains(candidate) { names.append(candidate) }
        return names
    }
}
