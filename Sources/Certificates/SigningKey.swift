#if canImport(Security)
import Security
#else
import CTLS
#endif

/// A private key that signs certificates: ECDSA P-256, made on this machine. Kept as PKCS #8
/// DER (the file format, `-----BEGIN PRIVATE KEY-----`); the platform's crypto makes and uses
/// it: libcrypto loaded at run time on Linux (CTLS), Security on Apple platforms. The
/// certificates themselves are written in Swift (`CertificateBuilder`), the same everywhere.
package struct SigningKey: Sendable {
    package let pkcs8: [UInt8]

    package init(pkcs8: [UInt8]) {
        self.pkcs8 = pkcs8
    }

    package static func generateP256() throws(CertificateError) -> SigningKey {
        SigningKey(pkcs8: try PlatformKeys.generateP256())
    }

    /// SubjectPublicKeyInfo, DER: what a certificate for this key carries.
    package func publicKeyInfo() throws(CertificateError) -> [UInt8] {
        try PlatformKeys.publicKeyInfo(pkcs8)
    }

    /// An ECDSA signature over SHA-256 of `message`, DER (`Ecdsa-Sig-Value`).
    package func sign(_ message: [UInt8]) throws(CertificateError) -> [UInt8] {
        try PlatformKeys.sign(message, with: pkcs8)
    }

    /// The key file's text. Never printed or logged: written only to a 0600 file.
    package var pem: String { PEM.encode(label: "PRIVATE KEY", der: pkcs8) }
}

#if !canImport(Security)
/// libcrypto through CTLS.
private enum PlatformKeys {
    static func generateP256() throws(CertificateError) -> [UInt8] {
        var error = [CChar](repeating: 0, count: 512)
        var out = [UInt8](repeating: 0, count: 512)
        let length = ctls_key_generate_p256(&out, out.count, &error, error.count)
        guard length > 0 else { throw CertificateError("cannot make a key: \(text(error))") }
        return Array(out[0..<length])
    }

    static func publicKeyInfo(_ pkcs8: [UInt8]) throws(CertificateError) -> [UInt8] {
        var error = [CChar](repeating: 0, count: 512)
        var out = [UInt8](repeating: 0, count: 1024)
        let length = ctls_key_public_info(pkcs8, pkcs8.count, &out, out.count, &error, error.count)
        guard length > 0 else { throw CertificateError("cannot read the key: \(text(error))") }
        return Array(out[0..<length])
    }

    static func sign(_ message: [UInt8], with pkcs8: [UInt8]) throws(CertificateError) -> [UInt8] {
        var error = [CChar](repeating: 0, count: 512)
        var out = [UInt8](repeating: 0, count: 1024)
        let length = ctls_key_sign_sha256(
            pkcs8,
            pkcs8.count,
            message,
            message.count,
            &out,
            out.count,
            &error,
            error.count
        )
        guard length > 0 else { throw CertificateError("cannot sign: \(text(error))") }
        return Array(out[0..<length])
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
