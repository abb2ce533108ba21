/// What stubserver reads from an X.509 certificate (RFC 5280): enough to check a user's
/// certificate before serving it, to show the CA, and to issue leaves under it. Read from DER
/// that may come from anyone: every field is checked, nothing traps.
package struct CertificateInfo: Sendable, Equatable {
    package let der: [UInt8]
    package let serialNumber: [UInt8]
    /// The issuer's and subject's Name, DER, exactly as written (a leaf's issuer is its CA's
    /// subject byte for byte).
    package let issuer: [UInt8]
    package let subject: [UInt8]
    package let commonName: String?
    package let notBefore: UTCDate
    package let notAfter: UTCDate
    /// SubjectPublicKeyInfo, DER.
    package let publicKeyInfo: [UInt8]
    package let dnsNames: [String]
    /// IP addresses, as text (`127.0.0.1`, `::1`).
    package let ipAddresses: [String]
    package let isCertificateAuthority: Bool
    /// Extended key usages, dotted object identifiers; empty when the extension is absent.
    package let extendedKeyUsages: [String]
    package let subjectKeyIdentifier: [UInt8]?

    static let serverAuthUsage = "1.3.6.1.5.5.7.3.1"

    /// SHA-256 of the whole certificate, `AB:CD:...`.
    package var fingerprint: String { SHA256.fingerprint(der) }

    package var allowsServerAuthentication: Bool {
        extendedKeyUsages.isEmpty || extendedKeyUsages.contains(Self.serverAuthUsage)
    }

    /// Every name the certificate serves: DNS names, then addresses.
    package var names: [String] { dnsNames + ipAddresses }

    package init(der: [UInt8]) throws(DERError) {
        self.der = der
        var outer = DERReader(der)
        let certificate = try outer.next(DER.sequenceTag, "a certificate (SEQUENCE)")
        guard outer.isAtEnd else {
            throw DERError(offset: certificate.whole.upperBound, reason: "bytes after the certificate")
        }
        var parts = try outer.children(of: certificate)
        let tbs = try parts.next(DER.sequenceTag, "the certificate's body (SEQUENCE)")
        _ = try parts.next(DER.sequenceTag, "the signature algorithm (SEQUENCE)")
        _ = try parts.next(0x03, "the signature (BIT STRING)")
        var fields = try parts.children(of: tbs)
        _ = try fields.optional(0xA0)  // version
        serialNumber = Array(fields.content(of: try fields.next(0x02, "the serial number (INTEGER)")))
        _ = try fields.next(DER.sequenceTag, "the signature algorithm (SEQUENCE)")
        let issuerElement = try fields.next(DER.sequenceTag, "the issuer (Name)")
        issuer = Array(der[issuerElement.whole])
        let validity = try fields.next(DER.sequenceTag, "the validity (SEQUENCE)")
        var times = try fields.children(of: validity)
        notBefore = try Self.time(&times)
        notAfter = try Self.time(&times)
        let subjectElement = try fields.next(DER.sequenceTag, "the subject (Name)")
        subject = Array(der[subjectElement.whole])
        commonName = try Self.commonName(fields.children(of: subjectElement))
        publicKeyInfo = Array(der[try fields.next(DER.sequenceTag, "the public key (SEQUENCE)").whole])
        _ = try fields.optional(0x81)
        _ = try fields.optional(0xA1)
        _ = try fields.optional(0x82)
        _ = try fields.optional(0xA2)
        var found = Extensions()
        if let wrapper = try fields.optional(0xA3) {
            var inside = try fields.children(of: wrapper)
            let list = try inside.next(DER.sequenceTag, "the extensions (SEQUENCE)")
            found = try Extensions(inside.children(of: list))
        }
        dnsNames = found.dnsNames
        ipAddresses = found.ipAddresses
        isCertificateAuthority = found.isCertificateAuthority
        extendedKeyUsages = found.extendedKeyUsages
        subjectKeyIdentifier = found.subjectKeyIdentifier
    }

    private static func time(_ reader: inout DERReader) throws(DERError) -> UTCDate {
        let element = try reader.next()
        guard element.tag == 0x17 || element.tag == 0x18,
            let date = UTCDate.parse(reader.content(of: element), generalized: element.tag == 0x18)
        else { throw DERError(offset: element.offset, reason: "not a UTCTime or GeneralizedTime in UTC") }
        return date
    }

    /// The last common name in a Name (SEQUENCE OF SET OF AttributeTypeAndValue).
    private static func commonName(_ name: DERReader) throws(DERError) -> String? {
        var name = name
        var found: String?
        while !name.isAtEnd {
            let set = try name.next(DER.setTag, "a relative distinguished name (SET)")
            var attributes = try name.children(of: set)
            while !attributes.isAtEnd {
                let pair = try attributes.next(DER.sequenceTag, "an attribute (SEQUENCE)")
                var inside = try attributes.children(of: pair)
                let type = try inside.objectIdentifier(inside.next())
                let value = try inside.next()
                if type == "2.5.4.3" { found = String(decoding: inside.content(of: value), as: UTF8.self) }
            }
        }
        return found
    }
}

/// The extensions stubserver reads.
private struct Extensions {
    var dnsNames: [String] = []
    var ipAddresses: [String] = []
    var isCertificateAuthority = false
    var extendedKeyUsages: [String] = []
    var subjectKeyIdentifier: [UInt8]?

    init() {}

    init(_ list: DERReader) throws(DERError) {
        var list = list
        while !list.isAtEnd {
            let element = try list.next(DER.sequenceTag, "an extension (SEQUENCE)")
            var parts = try list.children(of: element)
            let identifier = try parts.objectIdentifier(parts.next())
            _ = try parts.optional(0x01)  // critical
            let value = try parts.next(0x04, "the extension's value (OCTET STRING)")
            var inner = DERReader(Array(parts.content(of: value)))
            switch identifier {
            case "2.5.29.17": try readNames(&inner)
            case "2.5.29.19": try readBasicConstraints(&inner)
            case "2.5.29.37": try readUsages(&inner)
            case "2.5.29.14": subjectKeyIdentifier = Array(inner.content(of: try inner.next(0x04, "a key identifier")))
            default: break
            }
        }
    }

    private mutating func readNames(_ reader: inout DERReader) throws(DERError) {
        let sequence = try reader.next(DER.sequenceTag, "the alternative names (SEQUENCE)")
        var names = try reader.children(of: sequence)
        while !names.isAtEnd {
            let name = try names.next()
            let bytes = Array(names.content(of: name))
            switch name.tag {
            case 0x82: dnsNames.append(String(decoding: bytes, as: UTF8.self))
            case 0x87:
                guard let text = IPAddressText.format(bytes) else {
                    throw DERError(offset: name.offset, reason: "an IP address of \(bytes.count) bytes")
                }
                ipAddresses.append(text)
            default: break
            }
        }
    }

    private mutating func readBasicConstraints(_ reader: inout DERReader) throws(DERError) {
        let sequence = try reader.next(DER.sequenceTag, "the basic constraints (SEQUENCE)")
        var inside = try reader.children(of: sequence)
        if let flag = try inside.optional(0x01) { isCertificateAuthority = inside.content(of: flag).first != 0 }
    }

    private mutating func readUsages(_ reader: inout DERReader) throws(DERError) {
        let sequence = try reader.next(DER.sequenceTag, "the extended key usages (SEQUENCE)")
        var usages = try reader.children(of: sequence)
        while !usages.isAtEnd { extendedKeyUsages.append(try usages.objectIdentifier(usages.next())) }
    }
}

/// IP addresses as certificates carry them (4 or 16 bytes) and as people write them.
package enum IPAddressText {
    package static func format(_ bytes: [UInt8]) -> String? {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        guard bytes.count == 16 else { return nil }
        let groups = (0..<8).map { Int(bytes[$0 * 2]) << 8 | Int(bytes[$0 * 2 + 1]) }
        // The longest run of two or more zero groups becomes "::" (RFC 5952).
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, groups[end] == 0 { end += 1 }
            if end - index > best.length, end - index >= 2 { best = (index, end - index) }
            index = end
        }
        let text = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return text.joined(separator: ":") }
        let head = text[0..<best.start].joined(separator: ":")
        let tail = text[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    /// The bytes of an IPv4 or IPv6 address written as text; nil for anything else (a name).
    package static func parse(_ text: String) -> [UInt8]? {
        if let v4 = parseIPv4(Substring(text)) { return v4 }
        return parseIPv6(text)
    }

    private static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCII), let value = UInt8(part),
                part == "0" || !part.hasPrefix("0")
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func parseIPv6(_ text: String) -> [UInt8]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        let characters = Array(text.utf8)
        var gap: Int?
        for index in 0..<(characters.count - 1) where characters[index] == 0x3A && characters[index + 1] == 0x3A {
            guard gap == nil else { return nil }
            gap = index
        }
        let halves: [String] =
            if let gap {
                [
                    String(decoding: characters[..<gap], as: UTF8.self),
                    String(decoding: characters[(gap + 2)...], as: UTF8.self),
                ]
            } else {
                [text]
            }
        func groups(_ part: String) -> [[UInt8]]? {
            guard !part.isEmpty else { return [] }
            var out: [[UInt8]] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseIPv4(piece) {
                    out.append([v4[0], v4[1]])
                    out.append([v4[2], v4[3]])
                    continue
                }
                guard !piece.isEmpty, piece.count <= 4, piece.allSatisfy(\.isHexDigit),
                    let value = UInt16(piece, radix: 16)
                else { return nil }
                out.append([UInt8(value >> 8), UInt8(value & 0xFF)])
            }
            return out
        }
        guard let head = groups(halves[0]) else { return nil }
        let tail = halves.count == 2 ? groups(halves[1]) : []
        guard let tail else { return nil }
        let missing = 8 - head.count - tail.count
        guard halves.count == 2 ? missing >= 1 : missing == 0 else { return nil }
        let zeros = [[UInt8]](repeating: [0, 0], count: missing)
        return (head + zeros + tail).flatMap { $0 }
    }
}
