/// DEFLATE decoding (RFC 1951), the compression inside the `gzip` and `deflate` content codings:
/// stored, fixed-Huffman and dynamic-Huffman blocks. Written for recorded bodies rather than
/// speed (canonical codes decoded a bit at a time); every count is checked, so hostile input
/// gives a `Failure`, never a trap, and the output never grows past the caller's limit.
package enum Inflate {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The input ended inside the compressed data.
        case truncated
        /// The data breaks the format (says where and how).
        case invalid(String)
        /// The output would pass the limit.
        case tooLarge

        package var description: String {
            switch self {
            case .truncated: "the compressed data ends early"
            case .invalid(let why): "not valid DEFLATE data: \(why)"
            case .tooLarge: "decompresses to more than the limit"
            }
        }
    }

    /// Decodes the DEFLATE stream that starts at `start`; returns the output and the index of
    /// the first byte after the stream (where a wrapper's trailer starts).
    package static func decode(
        _ input: [UInt8],
        from start: Int = 0,
        limit: Int
    ) throws(Failure) -> (output: [UInt8], end: Int) {
        var state = State(input: input, position: start, limit: limit)
        var last = false
        while !last {
            last = try state.bits(1) == 1
            switch try state.bits(2) {
            case 0: try state.stored()
            case 1: try state.codes(Huffman.fixedLengths, Huffman.fixedDistances)
            case 2: try state.dynamic()
            default: throw .invalid("block type 3")
            }
        }
        return (state.output, state.position)
    }

    /// A canonical Huffman code: how many codes of each length, and the symbols in code order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int]

        /// `unused` is the code space left over (0: complete); negative: over-subscribed.
        private(set) var unused = 0

        init(lengths: ArraySlice<Int>) {
            symbols = [Int](repeating: 0, count: lengths.count)
            for length in lengths { counts[length] += 1 }
            if counts[0] == lengths.count { return }
            var left = 1
            for length in 1...15 {
                left = (left << 1) - counts[length]
                if left < 0 {
                    unused = left
                    return
                }
            }
            unused = left
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            for (symbol, length) in zip(0..., lengths) where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }

        /// Usable: complete, or a single code of one bit (RFC 1951 allows one distance code).
        func isUsable(codes: Int) -> Bool {
            unused == 0 || (unused > 0 && codes - counts[0] == 1 && counts[1] == 1)
        }

        static let fixedLengths: Huffman = {
            var lengths = [Int](repeating: 8, count: 288)
            for symbol in 144..<256 { lengths[symbol] = 9 }
            for symbol in 256..<280 { lengths[symbol] = 7 }
            return Huffman(lengths: lengths[...])
        }()
        static let fixedDistances = Huffman(lengths: [Int](repeating: 5, count: 30)[...])
    }

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]
    /// The order in which a dynamic block sends the code lengths of its code-length code.
    static let lengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    struct State {
        let input: [UInt8]
        var position: Int
        let limit: Int
        var output: [UInt8] = []
        var bitBuffer = 0
        var bitCount = 0

        init(input: [UInt8], position: Int, limit: Int) {
            self.input = input
            self.position = position
            self.limit = limit
        }

        /// The next `count` bits, least significant first.
        mutating func bits(_ count: Int) throws(Failure) -> Int {
            while bitCount < count {
                guard position < input.count else { throw .truncated }
                bitBuffer |= Int(input[position]) << bitCount
                position += 1
                bitCount += 8
            }
            let value = bitBuffer & ((1 << count) - 1)
            bitBuffer >>= count
            bitCount -= count
            return value
        }

        mutating func stored() throws(Failure) {
            // A stored block starts at a byte boundary: the bits left in the buffer are padding.
            bitBuffer = 0
            bitCount = 0
            guard position + 4 <= input.count else { throw .truncated }
            let length = Int(input[position]) | Int(input[position + 1]) << 8
            let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
            guard length == ~complement & 0xFFFF else {
                throw .invalid("a stored block's length and its complement differ")
            }
            position += 4
            guard position + length <= input.count else { throw .truncated }
            guard output.count + length <= limit else { throw .tooLarge }
            output.append(contentsOf: input[position..<position + length])
            position += length
        }

        mutating func decode(_ code: Huffman) throws(Failure) -> Int {
            var value = 0
            var first = 0
            var index = 0
            for length in 1...15 {
                value |= try bits(1)
                let count = code.counts[length]
                if value - count < first { return code.symbols[index + value - first] }
                index += count
                first = (first + count) << 1
                value <<= 1
            }
            throw .invalid("a code that the block's table does not have")
        }

        mutating func codes(_ lengths: Huffman, _ distances: Huffman) throws(Failure) {
            while true {
                let symbol = try decode(lengths)
                if symbol < 256 {
                    guard output.count < limit else { throw .tooLarge }
                    output.append(UInt8(symbol))
                    continue
                }
                if symbol == 256 { return }
                let lengthIndex = symbol - 257
                guard lengthIndex < 29 else { throw .invalid("length symbol \(symbol)") }
                let length = Inflate.lengthBase[lengthIndex] + (try bits(Inflate.lengthExtra[lengthIndex]))
                let distanceIndex = try decode(distances)
                guard distanceIndex < 30 else { throw .invalid("distance symbol \(distanceIndex)") }
                let distance = Inflate.distanceBase[distanceIndex] + (try bits(Inflate.distanceExtra[distanceIndex]))
                guard distance <= output.count else { throw .invalid("a distance back past the start of the data") }
                guard output.count + length <= limit else { throw .tooLarge }
                // Byte by byte: a copy may overlap what it writes (distance 1 repeats a byte).
                let from = output.count - distance
                for offset in 0..<length { output.append(output[from + offset]) }
            }
        }

        mutating func dynamic() throws(Failure) {
            let literalCount = try bits(5) + 257
            let distanceCount = try bits(5) + 1
            let codeLengthCount = try bits(4) + 4
            guard literalCount <= 286, distanceCount <= 30 else { throw .invalid("too many codes in a dynamic block") }
            var lengths = [Int](repeating: 0, count: 19)
            for index in 0..<codeLengthCount { lengths[Inflate.lengthOrder[index]] = try bits(3) }
            let lengthCode = Huffman(lengths: lengths[...])
            guard lengthCode.unused == 0 else { throw .invalid("an incomplete code-length code") }
            lengths = [Int](repeating: 0, count: literalCount + distanceCount)
            var index = 0
            while index < literalCount + distanceCount {
                var symbol = try decode(lengthCode)
                if symbol < 16 {
                    lengths[index] = symbol
                    index += 1
                    continue
                }
                var repeated = 0
                if symbol == 16 {
                    guard index > 0 else { throw .invalid("a repeat with no length before it") }
                    repeated = lengths[index - 1]
                    symbol = 3 + (try bits(2))
                } else if symbol == 17 {
                    symbol = 3 + (try bits(3))
                } else {
                    symbol = 11 + (try bits(7))
                }
                guard index + symbol <= literalCount + distanceCount else {
                    throw .invalid("code lengths past the end")
                }
                for _ in 0..<symbol {
                    lengths[index] = repeated
                    index += 1
                }
            }
            guard lengths[256] != 0 else { throw .invalid("no end-of-block code") }
            let literals = Huffman(lengths: lengths[..<literalCount])
            guard literals.isUsable(codes: literalCount) else { throw .invalid("a malformed literal/length code") }
            let distances = Huffman(lengths: lengths[literalCount...])
            guard distances.isUsable(codes: distanceCount) else { throw .invalid("a malformed distance code") }
            try codes(literals, distances)
        }
    }
}
