#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Certificate and key files as users give them (`--cert`, `--key`) and as the CA is kept: PEM
/// (or a single DER certificate), read with errors that name the file and the place in it.
package enum CertificateFiles {
    /// The certificates in a file, the first being the server's (or the CA's) own.
    package static func certificates(in path: String) throws(CertificateError) -> [CertificateInfo] {
        let bytes = try read(path)
        var ders: [(der: [UInt8], line: Int?)] = []
        if bytes.first == DER.sequenceTag {
            ders = [(bytes, nil)]
        } else {
            let blocks = try blocks(bytes, path)
            ders = blocks.filter { $0.label == "CERTIFICATE" || $0.label == "X509 CERTIFICATE" }.map {
                ($0.der, $0.line)
            }
            guard !ders.isEmpty else {
                let found = blocks.map(\.label)
                let what = found.isEmpty ? "no PEM block" : "only \(found.joined(separator: ", "))"
                throw CertificateError("\(path): no certificate in it (\(what); expected -----BEGIN CERTIFICATE-----)")
            }
        }
        var certificates: [CertificateInfo] = []
        for (der, line) in ders {
            do {
                certificates.append(try CertificateInfo(der: der))
            } catch {
                let place = line.map { "\(path):\($0)" } ?? path
                throw CertificateError("\(place): the certificate is not valid DER: \(error)")
            }
        }
        return certificates
    }

    /// The private key in a file, DER (PKCS #8, or the traditional RSA or EC form).
    package static func key(in path: String) throws(CertificateError) -> [UInt8] {
        let bytes = try read(path)
        if bytes.first == DER.sequenceTag { return bytes }
        let blocks = try blocks(bytes, path)
        if let encrypted = blocks.first(where: { $0.label == "ENCRYPTED PRIVATE KEY" }) {
            throw CertificateError(
                "\(path):\(encrypted.line): the key is encrypted, which stubserver cannot use; "
                    + "decrypt it: openssl pkey -in \(path) -out key.pem"
            )
        }
        let labels = ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"]
        guard let block = blocks.first(where: { labels.contains($0.label) }) else {
            let found = blocks.map(\.label)
            let what = found.isEmpty ? "no PEM block" : "only \(found.joined(separator: ", "))"
            throw CertificateError("\(path): no private key in it (\(what); expected -----BEGIN PRIVATE KEY-----)")
        }
        do {
            var reader = DERReader(block.der)
            let element = try reader.next(DER.sequenceTag, "a private key (SEQUENCE)")
            guard reader.isAtEnd else {
                throw DERError(offset: element.whole.upperBound, reason: "bytes after the key")
            }
        } catch {
            throw CertificateError("\(path):\(block.line): the key is not valid DER: \(error)")
        }
        return block.der
    }

    /// The server's chain and key from the user's files, checked: readable, a certificate
    /// valid now and usable for a server. Whether the key matches is checked by the TLS library
    /// when the server's context is made.
    package static func serverCredentials(
        certificate certificatePath: String,
        key keyPath: String,
        now: Int = LocalAuthority.currentTime()
    ) throws(CertificateError) -> ServerCredentials {
        let chain = try certificates(in: certificatePath)
        let leaf = chain[0]
        if leaf.notAfter.epochSeconds < now {
            throw CertificateError("\(certificatePath): the certificate expired on \(leaf.notAfter)")
        }
        if leaf.notBefore.epochSeconds > now {
            throw CertificateError("\(certificatePath): the certificate is not valid until \(leaf.notBefore)")
        }
        if !leaf.allowsServerAuthentication {
            throw CertificateError(
                "\(certificatePath): the certificate's extended key usage does not include serverAuth"
            )
        }
        return ServerCredentials(chain: chain.map(\.der), key: try key(in: keyPath), leaf: leaf)
    }

    private static func read(_ path: String) throws(CertificateError) -> [UInt8] {
        guard let status = FileStatus(path: path) else { throw CertificateError("cannot read \(path): no such file") }
        guard status.kind == .regular else { throw CertificateError("cannot read \(path): not a file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CertificateError("cannot read \(path): permission denied")
        }
        guard !data.isEmpty else { throw CertificateError("\(path) is empty") }
        return Array(data)
    }

    private static func blocks(_ bytes: [UInt8], _ path: String) throws(CertificateError) -> [PEMBlock] {
        do {
            return try PEM.decode(bytes)
        } catch {
            throw CertificateError("\(path):\(error)")
        }
    }
}
