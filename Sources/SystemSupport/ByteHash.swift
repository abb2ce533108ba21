/// FNV-1a over bytes: the hash of the byte-keyed tables built at load and looked up on every
/// request (a JSON text's property names, an OpenAPI document's literal paths), where
/// `String`'s hashing (SipHash, over the canonical form) costs more than the lookup it serves.
public enum ByteHash {
    @inlinable
    public static func fnv1a(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
