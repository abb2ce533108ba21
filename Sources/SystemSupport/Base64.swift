/// Base64 (RFC 4648 §4: the standard alphabet, padded), without Foundation: the admin API's
/// binary bodies, PEM and the WebSocket handshake all write it.
package enum Base64 {
    package static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let a = bytes[index]
            let b = index + 1 < bytes.count ? bytes[index + 1] : 0
            let c = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(a >> 2)])
            out.append(alphabet[Int((a & 0x03) << 4 | b >> 4)])
            out.append(index + 1 < bytes.count ? alphabet[Int((b & 0x0F) << 2 | c >> 6)] : UInt8(ascii: "="))
            out.append(index + 2 < bytes.count ? alphabet[Int(c & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
