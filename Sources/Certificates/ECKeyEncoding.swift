/// P-256 keys in the standard encodings: PKCS #8 (RFC 5208) around an ECPrivateKey (RFC 5915),
/// and SubjectPublicKeyInfo (RFC 5480). Used where the platform hands over raw key material
/// (Security on Apple platforms); on Linux libcrypto writes the same forms itself, which the
/// tests compare.
package enum ECKeyEncoding {
    static let ecPublicKey = "1.2.840.10045.2.1"
    static let prime256v1 = "1.2.840.10045.3.1.7"

    private static var algorithm: [UInt8] {
        DER.sequence([DER.objectIdentifier(ecPublicKey), DER.objectIdentifier(prime256v1)])
    }

    /// PKCS #8 for the uncompressed public point (65 bytes) and the 32-byte scalar.
    package static func pkcs8(point: [UInt8], scalar: [UInt8]) -> [UInt8] {
        let inner = DER.sequence([
            DER.integer(1),
            DER.octetString(scalar),
            DER.contextSpecific(1, constructed: true, DER.bitString(point)),
        ])
        return DER.sequence([DER.integer(0), algorithm, DER.octetString(inner)])
    }

    package static func publicKeyInfo(point: [UInt8]) -> [UInt8] {
        DER.sequence([algorithm, DER.bitString(point)])
    }

    /// The public point and the scalar of a P-256 key in PKCS #8.
    package static func read(_ pkcs8: [UInt8]) throws(CertificateError) -> (point: [UInt8], scalar: [UInt8]) {
        let parts: (kind: String, curve: String, scalar: [UInt8], bits: [UInt8]?)
        do {
            parts = try fields(pkcs8)
        } catch {
            throw CertificateError("not a PKCS #8 private key: \(error)")
        }
        guard parts.kind == ecPublicKey, parts.curve == prime256v1 else {
            throw CertificateError(
                "the key is not an EC P-256 key (algorithm \(parts.kind), parameters \(parts.curve))"
            )
        }
        guard let bits = parts.bits else { throw CertificateError("the key does not carry its public point") }
        guard bits.count == 66, bits[0] == 0, bits[1] == 4, parts.scalar.count <= 32 else {
            throw CertificateError("the key's public point or scalar has the wrong size for P-256")
        }
        return (Array(bits.dropFirst()), [UInt8](repeating: 0, count: 32 - parts.scalar.count) + parts.scalar)
    }

    private static func fields(
        _ pkcs8: [UInt8]
    ) throws(DERError) -> (kind: String, curve: String, scalar: [UInt8], bits: [UInt8]?) {
        var outer = DERReader(pkcs8)
        var info = try outer.children(of: outer.next(DER.sequenceTag, "a private key (SEQUENCE)"))
        _ = try info.next(0x02, "the version (INTEGER)")
        var algorithm = try info.children(of: info.next(DER.sequenceTag, "the algorithm (SEQUENCE)"))
        let kind = try algorithm.objectIdentifier(algorithm.next())
        let curve = algorithm.isAtEnd ? "none" : try algorithm.objectIdentifier(algorithm.next())
        var wrapped = DERReader(Array(info.content(of: try info.next(0x04, "the key (OCTET STRING)"))))
        var key = try wrapped.children(of: wrapped.next(DER.sequenceTag, "an EC private key (SEQUENCE)"))
        _ = try key.next(0x02, "the version (INTEGER)")
        let scalar = Array(key.content(of: try key.next(0x04, "the private scalar (OCTET STRING)")))
        _ = try key.optional(0xA0)
        guard let publicElement = try key.optional(0xA1) else { return (kind, curve, scalar, nil) }
        var inside = try key.children(of: publicElement)
        let bits = Array(inside.content(of: try inside.next(0x03, "the public point (BIT STRING)")))
        return (kind, curve, scalar, bits)
    }
}
