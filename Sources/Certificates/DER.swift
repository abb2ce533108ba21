/// DER (ITU-T X.690), written: the few types X.509 certificates and keys need. Every value is
/// a whole TLV, so values nest by concatenation.
package enum DER {
    package static let sequenceTag: UInt8 = 0x30
    package static let setTag: UInt8 = 0x31

    /// One element: tag, the definite length (short or long form), the content.
    package static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        if content.count < 0x80 {
            out.append(UInt8(content.count))
        } else {
            var length = content.count
            var digits: [UInt8] = []
            while length > 0 {
                digits.insert(UInt8(length & 0xFF), at: 0)
                length >>= 8
            }
            out.append(0x80 | UInt8(digits.count))
            out += digits
        }
        return out + content
    }

    package static func sequence(_ parts: [[UInt8]]) -> [UInt8] {
        element(sequenceTag, parts.flatMap { $0 })
    }

    package static func set(_ parts: [[UInt8]]) -> [UInt8] {
        element(setTag, parts.flatMap { $0 })
    }

    /// An INTEGER from unsigned big-endian magnitude bytes: leading zeros dropped, one added
    /// when the top bit is set (DER integers are signed).
    package static func integer(unsigned magnitude: [UInt8]) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return element(0x02, bytes)
    }

    package static func integer(_ value: Int) -> [UInt8] {
        precondition(value >= 0, "only non-negative integers are written")
        var bytes: [UInt8] = []
        var rest = value
        repeat {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        } while rest > 0
        return integer(unsigned: bytes)
    }

    package static func boolean(_ value: Bool) -> [UInt8] {
        element(0x01, [value ? 0xFF : 0x00])
    }

    /// An OBJECT IDENTIFIER from its dotted form (`2.5.29.17`); the arcs are the caller's
    /// constants, so a malformed one is a programming error.
    package static func objectIdentifier(_ dotted: String) -> [UInt8] {
        let arcs = dotted.split(separator: ".").map { Int($0)! }
        precondition(arcs.count >= 2 && arcs[0] <= 2, "bad object identifier \(dotted)")
        var content = base128(arcs[0] * 40 + arcs[1])
        for arc in arcs.dropFirst(2) { content += base128(arc) }
        return element(0x06, content)
    }

    private static func base128(_ value: Int) -> [UInt8] {
        var digits: [UInt8] = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            digits.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
            rest >>= 7
        }
        return digits
    }

    package static func utf8String(_ text: String) -> [UInt8] {
        element(0x0C, Array(text.utf8))
    }

    package static func ia5String(_ text: String) -> [UInt8] {
        element(0x16, Array(text.utf8))
    }

    package static func octetString(_ bytes: [UInt8]) -> [UInt8] {
        element(0x04, bytes)
    }

    /// A BIT STRING of whole bytes (no unused bits).
    package static func bitString(_ bytes: [UInt8]) -> [UInt8] {
        element(0x03, [0] + bytes)
    }

    /// Named bits (`KeyUsage`): bit 0 is the most significant bit of the first byte; trailing
    /// zero bits are left out, as DER requires.
    package static func namedBits(_ bits: [Int]) -> [UInt8] {
        guard let highest = bits.max() else { return element(0x03, [0]) }
        var bytes = [UInt8](repeating: 0, count: highest / 8 + 1)
        for bit in bits { bytes[bit / 8] |= 0x80 >> UInt8(bit % 8) }
        let unused = 7 - highest % 8
        return element(0x03, [UInt8(unused)] + bytes)
    }

    /// `[n]` around `content`: constructed (EXPLICIT, or IMPLICIT of a constructed type) or
    /// primitive (IMPLICIT of a primitive type).
    package static func contextSpecific(_ number: UInt8, constructed: Bool, _ content: [UInt8]) -> [UInt8] {
        element(0x80 | (constructed ? 0x20 : 0) | number, content)
    }

    /// A time as X.509 wants it: UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280
    /// 4.1.2.5), always in UTC with seconds.
    package static func time(epochSeconds: Int) -> [UInt8] {
        let date = UTCDate(epochSeconds: epochSeconds)
        let digits = date.digits
        if date.year >= 1950 && date.year < 2050 {
            return element(0x17, Array((String(digits.dropFirst(2)) + "Z").utf8))
        }
        return element(0x18, Array((digits + "Z").utf8))
    }
}
