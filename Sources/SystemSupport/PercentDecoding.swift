// Percent-decoding lives here, below HTTP1, because request targets, form bodies and the
// urlDecode template helper (the Handlebars module, which knows nothing of HTTP) all need it.

/// Percent-decoding (RFC 3986 §2.1). `+` is left alone: it means space only in HTML form bodies,
/// and a mobile client's query `phone=+44` must arrive as sent.
package enum PercentDecoding {
    /// nil when `strict` and a `%` is not followed by two hex digits.
    package static func decode<S: StringProtocol>(_ s: S, strict: Bool) -> String? {
        guard s.utf8.contains(UInt8(ascii: "%")) else { return String(s) }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%") {
                if it.count >= 2, let h = hexValue(it[it.startIndex]), let l = hexValue(it[it.startIndex + 1]) {
                    out.append(UInt8(h * 16 + l))
                    it.removeFirst(2)
                    continue
                }
                if strict { return nil }
            }
            out.append(b)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// Decodes what is well formed and keeps the rest as sent.
    package static func decodeLenient<S: StringProtocol>(_ s: S) -> String {
        decode(s, strict: false) ?? String(s)
    }

    /// Form decoding (`application/x-www-form-urlencoded`): `+` is a space.
    package static func decodeForm<S: StringProtocol>(_ s: S) -> String {
        decodeLenient(s.replacingOccurrences(of: "+", with: " "))
    }
}

extension StringProtocol {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
