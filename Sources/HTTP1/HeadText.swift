/// Strings for the text of a request head: the method, field names and values, the target.
///
/// Making a `String` from bytes costs about 170 instructions even when it is short enough to be
/// kept inline (callgrind: `_fromUTF8Repairing` and `_uncheckedFromUTF8` for each of the four
/// strings of a small GET). The methods and field names nearly every request sends are answered
/// with a literal instead, matched on the exact bytes (names keep the case they came in), which
/// needs no building at all; other short text goes through the cheaper of the two builders.
enum HeadText {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// The bytes as a `String`, invalid UTF-8 (obs-text in a field value) repaired as
    /// `String(decoding:as:)` does.
    static func string(_ bytes: Bytes) -> String {
        // Up to 15 bytes a string is inline: filling it in place and checking it costs about
        // 110 instructions where decoding costs 170-200. Longer text decodes faster than it
        // validates in place (callgrind, 3 to 31 bytes).
        guard bytes.count <= 15 else { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count) { $0.initialize(fromContentsOf: bytes) }
    }

    /// A method as a literal when it is one of RFC 9110's (§9.3) or PATCH, else built.
    static func method(_ bytes: Bytes) -> String {
        switch bytes.count {
        case 3:
            if bytes.holds("GET") { return "GET" }
            if bytes.holds("PUT") { return "PUT" }
        case 4:
            if bytes.holds("POST") { return "POST" }
            if bytes.holds("HEAD") { return "HEAD" }
        case 5:
            if bytes.holds("PATCH") { return "PATCH" }
            if bytes.holds("TRACE") { return "TRACE" }
        case 6:
            if bytes.holds("DELETE") { return "DELETE" }
        case 7:
            if bytes.holds("OPTIONS") { return "OPTIONS" }
            if bytes.holds("CONNECT") { return "CONNECT" }
        default:
            break
        }
        return string(bytes)
    }

    /// A field name as a literal when it is a common one in the case browsers, curl and HTTP
    /// libraries send it (Title-Case or lower case), else built.
    static func fieldName(_ bytes: Bytes) -> String {
        switch bytes.count {
        case 4:
            if bytes.holds("Host") { return "Host" }
            if bytes.holds("host") { return "host" }
        case 6:
            if bytes.holds("Accept") { return "Accept" }
            if bytes.holds("accept") { return "accept" }
            if bytes.holds("Cookie") { return "Cookie" }
            if bytes.holds("cookie") { return "cookie" }
            if bytes.holds("Origin") { return "Origin" }
            if bytes.holds("origin") { return "origin" }
            if bytes.holds("Expect") { return "Expect" }
        case 7:
            if bytes.holds("Referer") { return "Referer" }
            if bytes.holds("referer") { return "referer" }
        case 10:
            if bytes.holds("User-Agent") { return "User-Agent" }
            if bytes.holds("user-agent") { return "user-agent" }
            if bytes.holds("Connection") { return "Connection" }
            if bytes.holds("connection") { return "connection" }
        case 12:
            if bytes.holds("Content-Type") { return "Content-Type" }
            if bytes.holds("content-type") { return "content-type" }
        case 13:
            if bytes.holds("Authorization") { return "Authorization" }
            if bytes.holds("authorization") { return "authorization" }
            if bytes.holds("Cache-Control") { return "Cache-Control" }
            if bytes.holds("cache-control") { return "cache-control" }
        case 14:
            if bytes.holds("Content-Length") { return "Content-Length" }
            if bytes.holds("content-length") { return "content-length" }
        case 15:
            if bytes.holds("Accept-Encoding") { return "Accept-Encoding" }
            if bytes.holds("accept-encoding") { return "accept-encoding" }
            if bytes.holds("Accept-Language") { return "Accept-Language" }
            if bytes.holds("accept-language") { return "accept-language" }
        case 17:
            if bytes.holds("Transfer-Encoding") { return "Transfer-Encoding" }
            if bytes.holds("transfer-encoding") { return "transfer-encoding" }
        default:
            break
        }
        return string(bytes)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are exactly `text`'s (case-sensitive).
    @inline(__always)
    fileprivate func holds(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for i in 0..<count where self[i] != expected[i] { return false }
        return true
    }
}
