import HTTP1
import SystemSupport

/// `br` and `zstd`, which URLSession on Linux decodes through libcurl, decoded here by the same
/// libraries: libcurl links libbrotlidec and libzstd when it was built with them, so they are
/// in the process already (nothing is loaded), and a coding libcurl lacks is left as it came,
/// as over a socket. Apple platforms have neither function loaded: the codings stay as sent
/// there (docs/testing.md lists it).
enum LoadedDecoders {
    private typealias BrotliDecompress =
        @convention(c) (
            Int, UnsafePointer<UInt8>?, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<UInt8>?
        ) -> Int32
    private typealias ZstdDecompress = @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeRawPointer?, Int) -> Int
    private typealias ZstdIsError = @convention(c) (Int) -> UInt32

    private static let brotli = ProcessFacts.loadedFunction("BrotliDecoderDecompress")
        .map { unsafeBitCast($0, to: BrotliDecompress.self) }
    private static let zstd = ProcessFacts.loadedFunction("ZSTD_decompress").map {
        unsafeBitCast($0, to: ZstdDecompress.self)
    }
    private static let zstdIsError = ProcessFacts.loadedFunction("ZSTD_isError").map {
        unsafeBitCast($0, to: ZstdIsError.self)
    }

    /// The codings these libraries undo in this process.
    static var available: Set<String> {
        var codings: Set<String> = []
        if brotli != nil { codings.insert("br") }
        if zstd != nil, zstdIsError != nil { codings.insert("zstd") }
        return codings
    }

    /// Neither function says how large the output is before it is made: the buffer doubles
    /// until it is enough, up to the limit on decoded bodies.
    static func decode(_ body: [UInt8], coding: String, limit: Int = URLSessionImitation.decodedLimit) -> [UInt8]? {
        var capacity = max(4096, body.count * 4)
        while true {
            var output = [UInt8](repeating: 0, count: capacity)
            var produced: Int?
            switch coding {
            case "br":
                guard let brotli else { return nil }
                var size = capacity
                // 1: success; 3: needs more output; anything else: not br.
                let result = output.withUnsafeMutableBufferPointer { brotli(body.count, body, &size, $0.baseAddress) }
                if result == 1 { produced = size } else if result != 3 { return nil }
            case "zstd":
                guard let zstd, let zstdIsError else { return nil }
                let result = body.withUnsafeBytes { input in
                    output.withUnsafeMutableBytes { zstd($0.baseAddress, capacity, input.baseAddress, input.count) }
                }
                if zstdIsError(result) == 0 { produced = result }
            default:
                return nil
            }
            if let produced { return Array(output[0..<produced]) }
            guard capacity < limit else { return nil }
            capacity = min(limit, capacity * 2)
        }
    }
}
