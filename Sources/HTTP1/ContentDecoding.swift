/// Bodies sent with a `Content-Encoding` turned back into what the codings were applied to:
/// `gzip` (RFC 1952, members checked by CRC-32 and length) and `deflate` (RFC 1950's zlib
/// stream, checked by Adler-32; raw DEFLATE too, which some servers send under that name).
/// Other codings (`br`, `zstd`, `compress`) are not decoded.
package enum ContentDecoding {
    /// The codings of a `Content-Encoding` value, in the order they were applied, lower-cased,
    /// `identity` left out.
    package static func codings(_ contentEncoding: String) -> [String] {
        contentEncoding.split(separator: ",").map { Substring($0).trimmingOWS().lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
    }

    /// Whether `decode` can undo every coding of the value.
    package static func canDecode(_ contentEncoding: String) -> Bool {
        codings(contentEncoding).allSatisfy { ["gzip", "x-gzip", "deflate"].contains($0) }
    }

    /// The body with every coding undone, last applied first; nil when a coding is not one this
    /// decodes, the data is damaged, or the result passes `limit` bytes.
    package static func decode(_ body: [UInt8], contentEncoding: String, limit: Int) -> [UInt8]? {
        guard canDecode(contentEncoding) else { return nil }
        var bytes = body
        for coding in codings(contentEncoding).reversed() {
            switch coding {
            case "deflate":
                guard let decoded = zlib(bytes, limit: limit) else { return nil }
                bytes = decoded
            default:
                guard let decoded = gzip(bytes, limit: limit) else { return nil }
                bytes = decoded
            }
        }
        return bytes
    }

    /// One or more gzip members, one after another (RFC 1952 allows several).
    static func gzip(_ input: [UInt8], limit: Int) -> [UInt8]? {
        var output: [UInt8] = []
        var position = 0
        repeat {
            guard let start = gzipHeaderEnd(input, from: position),
                let decoded = try? Inflate.decode(input, from: start, limit: limit - output.count),
                decoded.end + 8 <= input.count
            else { return nil }
            let (member, end) = decoded
            let crc = littleEndian32(input, end)
            let size = littleEndian32(input, end + 4)
            guard crc == CRC32.checksum(member), size == UInt32(truncatingIfNeeded: member.count) else { return nil }
            output += member
            position = end + 8
        } while position < input.count
        return output
    }

    /// Where the DEFLATE data of the member at `start` begins, past its header and optional fields.
    private static func gzipHeaderEnd(_ input: [UInt8], from start: Int) -> Int? {
        guard input.count >= start + 10, input[start] == 0x1F, input[start + 1] == 0x8B, input[start + 2] == 8 else {
            return nil
        }
        let flags = input[start + 3]
        var position = start + 10
        if flags & 0x04 != 0 {
            guard position + 2 <= input.count else { return nil }
            position += 2 + (Int(input[position]) | Int(input[position + 1]) << 8)
        }
        // File name, then comment: each ends with a zero byte.
        for flag: UInt8 in [0x08, 0x10] where flags & flag != 0 {
            while position < input.count, input[position] != 0 { position += 1 }
            position += 1
        }
        if flags & 0x02 != 0 { position += 2 }
        return position <= input.count ? position : nil
    }

    /// A zlib stream, or raw DEFLATE when there is no zlib header.
    static func zlib(_ input: [UInt8], limit: Int) -> [UInt8]? {
        let hasHeader =
            input.count >= 2 && input[0] & 0x0F == 8 && input[1] & 0x20 == 0
            && (Int(input[0]) << 8 | Int(input[1])) % 31 == 0
        guard hasHeader else { return try? Inflate.decode(input, limit: limit).output }
        guard let decoded = try? Inflate.decode(input, from: 2, limit: limit), decoded.end + 4 <= input.count else {
            return nil
        }
        let (output, end) = decoded
        let expected =
            UInt32(input[end]) << 24 | UInt32(input[end + 1]) << 16 | UInt32(input[end + 2]) << 8
            | UInt32(input[end + 3])
        return adler32(output) == expected ? output : nil
    }

    private static func littleEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}

/// The CRC-32 of gzip (and zip, PNG): polynomial 0xEDB88320, reflected.
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    package static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
