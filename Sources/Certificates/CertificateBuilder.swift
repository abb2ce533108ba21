/// Writes X.509 v3 certificates (RFC 5280) signed with ECDSA P-256 and SHA-256: the local CA's
/// own, and the leaves it issues. The rules are those Apple and Android enforce for a trusted
/// server certificate: names only in subjectAltName (never a CN-only certificate), EKU
/// serverAuth, at most 397 days for a leaf.
package enum CertificateBuilder {
    /// A leaf's longest life: Apple refuses more than 398 days; one day of margin.
    package static let leafLifetimeSeconds = 397 * 86_400
    /// The CA's life: generated on this machine, replaced with `certs init --force`.
    package static let authorityLifetimeSeconds = 10 * 365 * 86_400
    /// Leaves start an hour back, so a device whose clock is a little behind accepts them.
    static let backdateSeconds = 3_600

    static let ecdsaWithSHA256 = "1.2.840.10045.4.3.2"

    /// A Name with a common name and an organisation.
    package static func name(commonName: String, organisation: String = "stubserver") -> [UInt8] {
        DER.sequence([
            DER.set([DER.sequence([DER.objectIdentifier("2.5.4.10"), DER.utf8String(organisation)])]),
            DER.set([DER.sequence([DER.objectIdentifier("2.5.4.3"), DER.utf8String(commonName)])]),
        ])
    }

    /// The CA's certificate for `key`, self-signed.
    package static func authority(
        commonName: String,
        key: SigningKey,
        now: Int
    ) throws(CertificateError) -> [UInt8] {
        let publicKey = try key.publicKeyInfo()
        let identifier = try keyIdentifier(publicKey)
        let subject = name(commonName: commonName)
        let extensions = [
            extensionField("2.5.29.19", critical: true, DER.sequence([DER.boolean(true), DER.integer(0)])),
            // keyCertSign (5) and cRLSign (6).
            extensionField("2.5.29.15", critical: true, DER.namedBits([5, 6])),
            extensionField("2.5.29.14", critical: false, DER.octetString(identifier)),
        ]
        return try sign(
            subject: subject,
            issuer: subject,
            publicKey: publicKey,
            notBefore: now - backdateSeconds,
            notAfter: now + authorityLifetimeSeconds,
            extensions: extensions,
            key: key
        )
    }

    /// A server certificate for `names` (host names and IP addresses), issued by `authority`.
    package static func leaf(
        names: [String],
        publicKey: [UInt8],
        authority: CertificateInfo,
        authorityKey: SigningKey,
        now: Int
    ) throws(CertificateError) -> [UInt8] {
        guard !names.isEmpty else { throw CertificateError("a server certificate needs at least one name") }
        var alternatives: [[UInt8]] = []
        for name in names {
            if let address = IPAddressText.parse(name) {
                alternatives.append(DER.contextSpecific(7, constructed: false, address))
            } else {
                alternatives.append(DER.contextSpecific(2, constructed: false, Array(name.utf8)))
            }
        }
        var extensions = [
            extensionField("2.5.29.19", critical: true, DER.sequence([])),
            // digitalSignature (0): what an ECDSA key does in a TLS handshake.
            extensionField("2.5.29.15", critical: true, DER.namedBits([0])),
            extensionField(
                "2.5.29.37",
                critical: false,
                DER.sequence([DER.objectIdentifier(CertificateInfo.serverAuthUsage)])
            ),
            extensionField("2.5.29.17", critical: false, DER.sequence(alternatives)),
            extensionField("2.5.29.14", critical: false, DER.octetString(try keyIdentifier(publicKey))),
        ]
        if let authorityIdentifier = authority.subjectKeyIdentifier {
            let value = DER.sequence([DER.contextSpecific(0, constructed: false, authorityIdentifier)])
            extensions.append(extensionField("2.5.29.35", critical: false, value))
        }
        let notBefore = max(now - backdateSeconds, authority.notBefore.epochSeconds)
        let notAfter = min(notBefore + leafLifetimeSeconds, authority.notAfter.epochSeconds)
        return try sign(
            subject: name(commonName: names[0]),
            issuer: authority.subject,
            publicKey: publicKey,
            notBefore: notBefore,
            notAfter: notAfter,
            extensions: extensions,
            key: authorityKey
        )
    }

    private static func sign(
        subject: [UInt8],
        issuer: [UInt8],
        publicKey: [UInt8],
        notBefore: Int,
        notAfter: Int,
        extensions: [[UInt8]],
        key: SigningKey
    ) throws(CertificateError) -> [UInt8] {
        var serial = (0..<16).map { _ in UInt8.random(in: 0...255) }
        serial[0] &= 0x7F
        serial[0] |= 0x40  // positive, and sixteen bytes long as written
        let algorithm = DER.sequence([DER.objectIdentifier(ecdsaWithSHA256)])
        let body = DER.sequence([
            DER.contextSpecific(0, constructed: true, DER.integer(2)),
            DER.integer(unsigned: serial),
            algorithm,
            issuer,
            DER.sequence([DER.time(epochSeconds: notBefore), DER.time(epochSeconds: notAfter)]),
            subject,
            publicKey,
            DER.contextSpecific(3, constructed: true, DER.sequence(extensions)),
        ])
        let signature = try key.sign(body)
        return DER.sequence([body, algorithm, DER.bitString(signature)])
    }

    private static func extensionField(_ identifier: String, critical: Bool, _ value: [UInt8]) -> [UInt8] {
        var parts = [DER.objectIdentifier(identifier)]
        if critical { parts.append(DER.boolean(true)) }
        parts.append(DER.octetString(value))
        return DER.sequence(parts)
    }

    /// A key identifier: the first 20 bytes of SHA-256 of the public key's bits (RFC 7093's
    /// first method).
    private static func keyIdentifier(_ publicKeyInfo: [UInt8]) throws(CertificateError) -> [UInt8] {
        do {
            var reader = DERReader(publicKeyInfo)
            var parts = try reader.children(of: reader.next(DER.sequenceTag, "a public key (SEQUENCE)"))
            _ = try parts.next(DER.sequenceTag, "the algorithm (SEQUENCE)")
            let bits = try parts.next(0x03, "the key (BIT STRING)")
            return Array(SHA256.hash(Array(parts.content(of: bits).dropFirst())).prefix(20))
        } catch {
            throw CertificateError("the public key cannot be read: \(error)")
        }
    }
}
