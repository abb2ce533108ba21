#if canImport(Security)
import Security

/// Security on Apple platforms: the key made by `SecKeyCreateRandomKey` and used by
/// `SecKeyCreateSignature`. Security's external form of a P-256 private key is the public point
/// followed by the scalar (`04 || X || Y || D`); PKCS #8 around it is written and read here,
/// with the one DER reader. CoreFoundation calls only, so nothing needs Foundation's bridging.
/// Compiled on Apple platforms only: not built or run on the Linux machine this was written on.
enum PlatformKeys {
    static func generateP256() throws(CertificateError) -> [UInt8] {
        var bits: Int32 = 256
        let size = CFNumberCreate(nil, .sInt32Type, &bits)!
        let attributes = dictionary([(kSecAttrKeyType, kSecAttrKeyTypeECSECPrimeRandom), (kSecAttrKeySizeInBits, size)])
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(attributes, &error) else {
            throw CertificateError("cannot make a key: \(describe(error))")
        }
        guard let external = SecKeyCopyExternalRepresentation(key, &error) else {
            throw CertificateError("cannot export the key: \(describe(error))")
        }
        let raw = bytes(external)
        guard raw.count == 97, raw[0] == 4 else { throw CertificateError("Security made a key of an unexpected form") }
        return ECKeyEncoding.pkcs8(point: Array(raw[0..<65]), scalar: Array(raw[65...]))
    }

    static func publicKeyInfo(_ pkcs8: [UInt8]) throws(CertificateError) -> [UInt8] {
        let (point, _) = try ECKeyEncoding.read(pkcs8)
        return ECKeyEncoding.publicKeyInfo(point: point)
    }

    static func sign(_ message: [UInt8], with pkcs8: [UInt8]) throws(CertificateError) -> [UInt8] {
        let (point, scalar) = try ECKeyEncoding.read(pkcs8)
        let raw = point + scalar
        let data = CFDataCreate(nil, raw, raw.count)!
        let attributes = dictionary([
            (kSecAttrKeyType, kSecAttrKeyTypeECSECPrimeRandom), (kSecAttrKeyClass, kSecAttrKeyClassPrivate),
        ])
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateWithData(data, attributes, &error) else {
            throw CertificateError("cannot use the key: \(describe(error))")
        }
        let input = CFDataCreate(nil, message, message.count)!
        guard let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, input, &error) else {
            throw CertificateError("cannot sign: \(describe(error))")
        }
        return bytes(signature)
    }

    private static func dictionary(_ pairs: [(CFString, CFTypeRef)]) -> CFDictionary {
        var keyCallBacks = kCFTypeDictionaryKeyCallBacks
        var valueCallBacks = kCFTypeDictionaryValueCallBacks
        let dictionary = CFDictionaryCreateMutable(nil, pairs.count, &keyCallBacks, &valueCallBacks)!
        for (key, value) in pairs {
            CFDictionarySetValue(
                dictionary,
                unsafeBitCast(key, to: UnsafeRawPointer.self),
                unsafeBitCast(value, to: UnsafeRawPointer.self)
            )
        }
        return dictionary
    }

    private static func bytes(_ data: CFData) -> [UInt8] {
        let count = CFDataGetLength(data)
        guard count > 0, let start = CFDataGetBytePtr(data) else { return [] }
        return Array(UnsafeBufferPointer(start: start, count: count))
    }

    private static func describe(_ error: Unmanaged<CFError>?) -> String {
        guard let error = error?.takeRetainedValue(), let text = CFErrorCopyDescription(error) else {
            return "unknown error"
        }
        var buffer = [CChar](repeating: 0, count: 512)
        guard CFStringGetCString(text, &buffer, buffer.count, CFStringBuiltInEncodings.UTF8.rawValue) else {
            return "unknown error"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
