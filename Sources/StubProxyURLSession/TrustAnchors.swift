import Foundation
#if canImport(Security)
import Security
#endif

/// Certificates from a PEM file (`--proxy-ca`), for the platforms where URLSession lets a
/// delegate decide whom to trust.
enum PEM {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The DER bytes of every `CERTIFICATE` block in the file.
    static func certificates(in path: String) throws -> [Data] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(description: "cannot read CA file \(path)")
        }
        var certificates: [Data] = []
        var base64: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                base64 = ""
            } else if trimmed == "-----END CERTIFICATE-----", let collected = base64 {
                guard let der = Data(base64Encoded: collected) else {
                    throw Failure(
                        description: "CA file \(path): certificate \(certificates.count + 1) is not valid base64"
                    )
                }
                certificates.append(der)
                base64 = nil
            } else if base64 != nil {
                base64! += trimmed
            }
        }
        guard !certificates.isEmpty else { throw Failure(description: "CA file \(path) holds no PEM certificate") }
        return certificates
    }
}

#if canImport(Security)
/// Trust a server whose chain ends at the system's roots or at one of `anchors`.
enum TrustEvaluation {
    static func evaluate(_ trust: SecTrust, anchors: [Data]) -> Bool {
        let certificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        guard SecTrustSetAnchorCertificates(trust, certificates as CFArray) == errSecSuccess,
            SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess
        else { return false }
        return SecTrustEvaluateWithError(trust, nil)
    }
}
#endif
