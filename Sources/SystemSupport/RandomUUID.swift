/// Random identifiers for templates and request IDs.
package enum RandomUUID {
    /// A version 4 UUID, lower case, from the system generator: Foundation's `UUID().uuidString`
    /// plus `lowercased()` cost more than the rest of a template's rendering.
    package static func lowercase() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw -> String in
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
            let hex = Array("0123456789abcdef".utf8)
            var out = [UInt8]()
            out.reserveCapacity(36)
            for (i, byte) in raw.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
