/// Syntax of `uri-host [ ":" port ]` (RFC 3986 §3.2.2-3.2.3 with the zone IDs of RFC 6874), as it
/// appears in the Host field (RFC 9110 §7.2) and in an absolute-form or authority-form
/// request-target (RFC 9112 §3.2.2-3.2.3). Only syntax: a reg-name is not resolved, and any
/// well-formed name is accepted (a mock server answers for every host).
package enum Authority {
    /// True when `host` (without port or brackets) is an IPv4 or IPv6 address rather than a name.
    /// An address cannot be rebound by DNS, which is why the admin API's host check trusts it.
    package static func isIPAddress(_ host: String) -> Bool {
        let bytes = ArraySlice(Array(host.utf8))
        return isIPv4(bytes) || isIPLiteralContent(bytes)
    }

    /// True when `bytes` is `uri-host [ ":" port ]`.
    /// - `allowEmptyHost`: the Host field may be empty (RFC 9110 §7.2); an `http` URI may not
    ///   (RFC 9110 §4.2.1, "MUST reject it as invalid").
    /// - `requirePort`: authority-form (CONNECT) needs `host:port` (RFC 9112 §3.2.3).
    ///
    /// A port must be digits; stricter than the grammar's `*DIGIT`, a non-empty port must also
    /// name a TCP port, 1-65535: no connection can have been addressed to anything else.
    static func isValid<C: Collection>(_ bytes: C, allowEmptyHost: Bool, requirePort: Bool = false) -> Bool
    where C.Element == UInt8 {
        // Over the bytes in place when they are contiguous (a native String's UTF-8): every
        // request's Host passes here, and copying it into an array showed in the profile.
        if let result = bytes.withContiguousStorageIfAvailable({
            isValid(buffer: $0, allowEmptyHost: allowEmptyHost, requirePort: requirePort)
        }) {
            return result
        }
        return Array(bytes).withUnsafeBufferPointer {
            isValid(buffer: $0, allowEmptyHost: allowEmptyHost, requirePort: requirePort)
        }
    }

    private static func isValid(buffer a: UnsafeBufferPointer<UInt8>, allowEmptyHost: Bool, requirePort: Bool) -> Bool {
        var i = 0
        if a.first == UInt8(ascii: "[") {
            guard let close = a.firstIndex(of: UInt8(ascii: "]")),
                isIPLiteralContent(ArraySlice(a[1..<close]))
            else { return false }
            i = close + 1
        } else {
            // Through the table's storage: indexing the array checked its bounds at each byte
            // of every request's Host (callgrind).
            let valid = Self.regNameByte.withUnsafeBufferPointer { regNameByte in
                while i < a.count, a[i] != UInt8(ascii: ":") {
                    let b = a[i]
                    if b == UInt8(ascii: "%") {
                        guard i + 2 < a.count, ByteClass.hexValue(a[i + 1]) != nil, ByteClass.hexValue(a[i + 2]) != nil
                        else {
                            return false
                        }
                        i += 3
                        continue
                    }
                    guard regNameByte[Int(b)] else { return false }
                    i += 1
                }
                return true
            }
            guard valid else { return false }
            if i == 0 && !allowEmptyHost { return false }
        }
        if i == a.count { return !requirePort }
        guard a[i] == UInt8(ascii: ":") else { return false }
        return isValidPort(UnsafeBufferPointer(rebasing: a[(i + 1)...]), required: requirePort)
    }

    /// `*DIGIT`, and when present 1...65535.
    static func isValidPort<Digits: Collection<UInt8>>(_ digits: Digits, required: Bool) -> Bool {
        if digits.isEmpty { return !required }
        var value = 0
        for b in digits {
            guard ByteClass.isDigit(b) else { return false }
            value = value * 10 + Int(b - 48)
            if value > 65_535 { return false }
        }
        return value > 0
    }

    /// What sits between `[` and `]`: IPv6address [ "%25" ZoneID ] or IPvFuture.
    static func isIPLiteralContent(_ s: ArraySlice<UInt8>) -> Bool {
        guard let first = s.first else { return false }
        if first == UInt8(ascii: "v") || first == UInt8(ascii: "V") { return isIPvFuture(s.dropFirst()) }
        // RFC 6874: a zone ID follows "%25" (a percent-encoded "%").
        if let pct = s.firstIndex(of: UInt8(ascii: "%")) {
            let zone = s[pct...]
            guard zone.count > 3, zone.starts(with: Array("%25".utf8)), isZoneID(zone.dropFirst(3)) else {
                return false
            }
            return isIPv6(s[..<pct])
        }
        return isIPv6(s)
    }

    /// RFC 3986 §3.2.2 IPv6address: eight 16-bit hex groups, `::` standing for one or more zero
    /// groups at most once, the last two groups optionally written as an IPv4 address.
    static func isIPv6(_ s: ArraySlice<UInt8>) -> Bool {
        let colon = UInt8(ascii: ":")
        var halves: [ArraySlice<UInt8>] = []
        var rest = s
        var sawDouble = false
        // Split at the only "::", if any.
        var k = rest.startIndex
        while k < rest.endIndex {
            if rest[k] == colon, k + 1 < rest.endIndex, rest[k + 1] == colon {
                if sawDouble { return false }
                sawDouble = true
                halves.append(rest[rest.startIndex..<k])
                rest = rest[(k + 2)...]
                k = rest.startIndex
                continue
            }
            k += 1
        }
        halves.append(rest)
        var groups = 0
        for (h, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: colon, omittingEmptySubsequences: false)
            for (p, part) in parts.enumerated() {
                let isLastOverall = h == halves.count - 1 && p == parts.count - 1
                if isLastOverall && part.contains(UInt8(ascii: ".")) {
                    guard isIPv4(part) else { return false }
                    groups += 2
                    continue
                }
                guard (1...4).contains(part.count), part.allSatisfy({ ByteClass.hexValue($0) != nil }) else {
                    return false
                }
                groups += 1
            }
        }
        return sawDouble ? groups <= 7 : groups == 8
    }

    /// dec-octet "." dec-octet "." dec-octet "." dec-octet, no leading zeros (RFC 3986 §3.2.2).
    static func isIPv4(_ s: ArraySlice<UInt8>) -> Bool {
        let parts = s.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(ByteClass.isDigit) else { return false }
            if part.count > 1 && part.first == UInt8(ascii: "0") { return false }
            guard part.reduce(0, { $0 * 10 + Int($1 - 48) }) <= 255 else { return false }
        }
        return true
    }

    /// "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ), the "v" already dropped.
    static func isIPvFuture(_ s: ArraySlice<UInt8>) -> Bool {
        guard let dot = s.firstIndex(of: UInt8(ascii: ".")) else { return false }
        let version = s[..<dot]
        let rest = s[(dot + 1)...]
        return !version.isEmpty && version.allSatisfy({ ByteClass.hexValue($0) != nil })
            && !rest.isEmpty && rest.allSatisfy({ $0 == UInt8(ascii: ":") || regNameByte[Int($0)] })
    }

    /// ZoneID = 1*( unreserved / pct-encoded ) (RFC 6874).
    static func isZoneID(_ s: ArraySlice<UInt8>) -> Bool {
        var i = s.startIndex
        while i < s.endIndex {
            if s[i] == UInt8(ascii: "%") {
                guard i + 2 < s.endIndex, ByteClass.hexValue(s[i + 1]) != nil, ByteClass.hexValue(s[i + 2]) != nil
                else {
                    return false
                }
                i += 3
                continue
            }
            guard unreservedByte[Int(s[i])] else { return false }
            i += 1
        }
        return true
    }

    /// unreserved: ALPHA DIGIT "-" "." "_" "~".
    static let unreservedByte: [Bool] = {
        var t = [Bool](repeating: false, count: 256)
        for b in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(b)] = true }
        for b in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(b)] = true }
        for b in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(b)] = true }
        for c in "-._~".utf8 { t[Int(c)] = true }
        return t
    }()

    /// reg-name bytes other than pct-encoded: unreserved and sub-delims.
    static let regNameByte: [Bool] = {
        var t = unreservedByte
        for c in "!$&'()*+,;=".utf8 { t[Int(c)] = true }
        return t
    }()
}
