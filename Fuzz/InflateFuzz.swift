// libFuzzer target for the content decoding behind recordings (Sources/HTTP1/Inflate.swift and
// ContentDecoding.swift). Not part of the package (SwiftPM ignores this folder): scripts/fuzz
// compiles it together with those sources.
//
// Each input is read as compressed data, and:
//  1. decoding never traps, and never returns more than its limit (a small and a large one);
//  2. decoding is deterministic, and an output within the small limit is the large one's too;
//  3. the input taken as plain data and written by this harness's own encoders, as stored
//     blocks and as fixed-Huffman literals, each wrapped as gzip (CRC-32 and length) and as
//     zlib (Adler-32), decodes back to exactly that data;
//  4. a gzip member whose CRC-32 or length is wrong is refused.
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.

/// Bits written least significant first, as DEFLATE packs them.
private struct BitWriter {
    var bytes: [UInt8] = []
    var buffer = 0
    var count = 0

    mutating func write(_ value: Int, _ length: Int) {
        buffer |= value << count
        count += length
        while count >= 8 {
            bytes.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            count -= 8
        }
    }

    /// A Huffman code goes most significant bit first.
    mutating func writeCode(_ code: Int, _ length: Int) {
        for shift in stride(from: length - 1, through: 0, by: -1) { write((code >> shift) & 1, 1) }
    }

    mutating func flush() -> [UInt8] {
        if count > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        buffer = 0
        count = 0
        return bytes
    }
}

private func stored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    repeat {
        let end = min(start + 65535, data.count)
        out.append(end == data.count ? 1 : 0)
        let length = end - start
        out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
        out += data[start..<end]
        start = end
    } while start < data.count
    return out
}

private func fixedLiterals(_ data: [UInt8]) -> [UInt8] {
    var writer = BitWriter()
    writer.write(1, 1)
    writer.write(1, 2)
    for byte in data {
        if byte < 144 { writer.writeCode(0x30 + Int(byte), 8) } else { writer.writeCode(0x190 + Int(byte) - 144, 9) }
    }
    writer.writeCode(0, 7)
    return writer.flush()
}

private func gzip(_ deflated: [UInt8], of data: [UInt8], crc: UInt32? = nil) -> [UInt8] {
    let sum = crc ?? CRC32.checksum(data)
    let size = UInt32(truncatingIfNeeded: data.count)
    return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255] + deflated + littleEndian(sum) + littleEndian(size)
}

private func zlib(_ deflated: [UInt8], of data: [UInt8]) -> [UInt8] {
    let sum = ContentDecoding.adler32(data)
    return [0x78, 0x01] + deflated + [
        UInt8(sum >> 24), UInt8((sum >> 16) & 0xFF), UInt8((sum >> 8) & 0xFF), UInt8(sum & 0xFF),
    ]
}

private func littleEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
}

private func fuzzInflate(_ input: [UInt8]) {
    let small = 1 << 12
    let large = 1 << 20
    let first = try? Inflate.decode(input, limit: large)
    let second = try? Inflate.decode(input, limit: large)
    precondition(first?.output == second?.output && first?.end == second?.end, "not deterministic")
    if let first {
        precondition(first.output.count <= large && first.end <= input.count, "past the limit or the input")
    }
    if let bounded = try? Inflate.decode(input, limit: small) {
        precondition(bounded.output.count <= small, "past the small limit")
        precondition(bounded.output == first?.output, "a small limit changed the output")
    }
    for coding in ["gzip", "deflate", "gzip, deflate"] {
        if let decoded = ContentDecoding.decode(input, contentEncoding: coding, limit: small) {
            precondition(decoded.count <= small, "\(coding) past its limit")
        }
    }
    for (name, deflated) in [("stored", stored(input)), ("fixed", fixedLiterals(input))] {
        precondition(try! Inflate.decode(deflated, limit: large).output == input, "\(name) blocks do not round-trip")
        let wrapped = gzip(deflated, of: input)
        precondition(ContentDecoding.decode(wrapped, contentEncoding: "gzip", limit: large) == input, "gzip \(name)")
        precondition(
            ContentDecoding.decode(zlib(deflated, of: input), contentEncoding: "deflate", limit: large) == input,
            "zlib \(name)"
        )
        let twice = gzip(deflated, of: input) + gzip(deflated, of: input)
        precondition(
            ContentDecoding.decode(twice, contentEncoding: "x-gzip", limit: large) == input + input,
            "two members"
        )
        let damaged = gzip(deflated, of: input, crc: CRC32.checksum(input) ^ 1)
        precondition(
            ContentDecoding.decode(damaged, contentEncoding: "gzip", limit: large) == nil,
            "a wrong CRC passed"
        )
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    fuzzInflate(input)
    return 0
}
