import Foundation
import HTTP1
import Testing

/// The content decoding behind recordings: gzip and deflate from a real compressor (Python's
/// zlib, every level and strategy it has), and damaged data refused rather than trusted.
@Suite struct ContentDecodingTests {
    /// Runs python3 to compress `data` every way; nil when python3 is missing.
    func compressed(_ data: [UInt8]) throws -> [String: [UInt8]]? {
        let script = """
            import gzip, sys, zlib
            data = sys.stdin.buffer.read()
            out = []
            for level in (0, 1, 6, 9):
                out.append(("gzip-%d" % level, gzip.compress(data, compresslevel=level)))
                out.append(("zlib-%d" % level, zlib.compress(data, level)))
                raw = zlib.compressobj(level, zlib.DEFLATED, -15)
                out.append(("raw-%d" % level, raw.compress(data) + raw.flush()))
            for strategy in (zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED):
                one = zlib.compressobj(9, zlib.DEFLATED, 31, 9, strategy)
                out.append(("gzip-strategy-%d" % strategy, one.compress(data) + one.flush()))
            for name, blob in out:
                sys.stdout.buffer.write(b"%s %d\\n" % (name.encode(), len(blob)) + blob)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do { try process.run() } catch { return nil }
        input.fileHandleForWriting.write(Data(data))
        try input.fileHandleForWriting.close()
        let bytes = Array(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        var result: [String: [UInt8]] = [:]
        var index = 0
        while let newline = bytes[index...].firstIndex(of: 0x0A) {
            let head = String(decoding: bytes[index..<newline], as: UTF8.self).split(separator: " ")
            let length = Int(head[1])!
            result[String(head[0])] = Array(bytes[(newline + 1)..<(newline + 1 + length)])
            index = newline + 1 + length
        }
        return result
    }

    @Test(arguments: [0, 1, 100, 70_000])
    func decodesWhatARealCompressorWrites(size: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let words = ["item", "name", "{\"id\":", "},", "price", " ", "\n"]
        // Half text that compresses well, half noise that does not.
        let data =
            (0..<size / 2).map { _ in Array(words.randomElement(using: &generator)!.utf8) }.joined().prefix(size / 2)
            + (0..<(size - size / 2)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        guard let forms = try compressed(Array(data)) else {
            Issue.record("python3 is needed to compress the test data")
            return
        }
        #expect(forms.count == 16)
        for (name, bytes) in forms.sorted(by: { $0.key < $1.key }) {
            let coding = name.hasPrefix("gzip") ? "gzip" : "deflate"
            #expect(ContentDecoding.decode(bytes, contentEncoding: coding, limit: 1 << 20) == Array(data), "\(name)")
        }
        if let gzip = forms["gzip-6"], let zlib = forms["zlib-6"] {
            #expect(
                ContentDecoding.decode(gzip + gzip, contentEncoding: "x-gzip", limit: 1 << 20) == Array(data + data)
            )
            #expect(ContentDecoding.decode(zlib, contentEncoding: "Deflate , identity", limit: 1 << 20) == Array(data))
        }
    }

    @Test func damagedOrUnknownDataIsRefused() throws {
        let data = Array(String(repeating: "recorded body ", count: 200).utf8)
        guard let forms = try compressed(data), let gzip = forms["gzip-9"], let zlib = forms["zlib-9"] else {
            Issue.record("python3 is needed to compress the test data")
            return
        }
        #expect(ContentDecoding.decode(Array(gzip.dropLast(3)), contentEncoding: "gzip", limit: 1 << 20) == nil)
        var flipped = gzip
        flipped[gzip.count - 6] ^= 0x01  // the CRC-32
        #expect(ContentDecoding.decode(flipped, contentEncoding: "gzip", limit: 1 << 20) == nil)
        var adler = zlib
        adler[zlib.count - 1] ^= 0x01
        #expect(ContentDecoding.decode(adler, contentEncoding: "deflate", limit: 1 << 20) == nil)
        #expect(ContentDecoding.decode(gzip, contentEncoding: "gzip", limit: data.count - 1) == nil, "over the limit")
        #expect(ContentDecoding.decode(gzip, contentEncoding: "br", limit: 1 << 20) == nil)
        #expect(!ContentDecoding.canDecode("gzip, br"))
        #expect(ContentDecoding.codings("gzip, identity,BR") == ["gzip", "br"])
    }

    @Test func hostileDeflateStreamsFailWithAReason() throws {
        // Block type 3 (reserved), a stored block whose length disagrees with its complement,
        // a fixed block that copies from before the start, and one that ends early.
        #expect(throws: Inflate.Failure.invalid("block type 3")) { try Inflate.decode([0x07], limit: 100) }
        #expect(throws: Inflate.Failure.invalid("a stored block's length and its complement differ")) {
            try Inflate.decode([0x01, 0x05, 0x00, 0x00, 0x00], limit: 100)
        }
        #expect(throws: Inflate.Failure.invalid("a distance back past the start of the data")) {
            try Inflate.decode([0x03, 0x02], limit: 100)
        }
        #expect(throws: Inflate.Failure.truncated) {
            try Inflate.decode([0x01, 0x05, 0x00, 0xFA, 0xFF, 0x61], limit: 100)
        }
        #expect(try Inflate.decode([0x01, 0x01, 0x00, 0xFE, 0xFF, 0x61], limit: 100).output == [0x61])
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }
}
