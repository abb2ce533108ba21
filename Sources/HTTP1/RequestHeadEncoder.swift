/// Serialises the head of a request the proxy sends upstream: request line, fields in order
/// (repeats and name casing kept), empty line.
///
/// Whatever reaches it came from a client, a stub file or the proxy's own rewriting, and the
/// upstream parses the result: a CR or LF smuggled into a value would add fields or a whole
/// request (request smuggling), and ambiguous framing fields would let the upstream and us
/// disagree on where the body ends. So the encoder refuses: a method that is not a token, a
/// target with bytes outside RFC 3986, a field name that is not a token, and a value with CR,
/// LF, NUL or another control byte (RFC 9110 §5.5); `.replaceWithSpace` turns unsafe value
/// bytes into SP instead, as RFC 9110 §5.5 allows for CR, LF and NUL. It also refuses framing
/// the upstream could read two ways: both `Content-Length` and `Transfer-Encoding`, a
/// `Content-Length` that is not one decimal number, and a `Transfer-Encoding` whose final coding
/// is not `chunked` (RFC 9112 §6.1: a request body must end with chunked).
package struct RequestHeadEncoder: Sendable {
    package enum UnsafeValues: Sendable, Equatable {
        /// Throw `RequestEncodingError` (the default: the proxy answers 502 or 400).
        case refuse
        /// Replace each CR, LF, NUL, other control byte and DEL in a value with SP.
        case replaceWithSpace
    }

    package var unsafeValues: UnsafeValues

    package init(unsafeValues: UnsafeValues = .refuse) {
        self.unsafeValues = unsafeValues
    }

    /// The complete head, `HTTP/1.1`, ending with the empty line.
    package func encode(method: String, target: String, headers: HeaderFields) throws(RequestEncodingError) -> [UInt8] {
        var out: [UInt8] = []
        try append(method: method, target: target, headers: headers, to: &out)
        return out
    }

    /// Appends the head to `out` (say, before the first body bytes, for one write). On a throw
    /// `out` is unchanged.
    package func append(
        method: String,
        target: String,
        headers: HeaderFields,
        to out: inout [UInt8]
    ) throws(RequestEncodingError) {
        guard HTTPToken.isToken(method) else {
            throw RequestEncodingError("method is not a token")
        }
        guard !target.isEmpty, target.utf8.allSatisfy({ ByteClass.target[Int($0)] }) else {
            throw RequestEncodingError("request-target has bytes outside RFC 3986")
        }
        try Self.checkFraming(headers)
        // Straight into `out` (no second buffer), taken back on a throw; a value with no unsafe
        // byte, the usual case, is copied whole rather than byte by byte.
        let start = out.count
        out.reserveCapacity(start + 32 + method.utf8.count + target.utf8.count + headers.count * 40)
        out.append(contentsOf: method.utf8)
        out.append(ByteClass.space)
        out.append(contentsOf: target.utf8)
        out.append(contentsOf: " HTTP/1.1\r\n".utf8)
        for field in headers {
            guard HTTPToken.isToken(field.name) else {
                out.removeSubrange(start...)
                throw RequestEncodingError("field name is not a token")
            }
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: ": ".utf8)
            if field.value.utf8.allSatisfy({ ByteClass.fieldValue[Int($0)] }) {
                out.append(contentsOf: field.value.utf8)
            } else if unsafeValues == .replaceWithSpace {
                for b in field.value.utf8 { out.append(ByteClass.fieldValue[Int(b)] ? b : ByteClass.space) }
            } else {
                out.removeSubrange(start...)
                throw RequestEncodingError("control byte (CR, LF, NUL or other) in the value of \(field.name)")
            }
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
    }

    private static func checkFraming(_ headers: HeaderFields) throws(RequestEncodingError) {
        let lengths = headers.values("Content-Length")
        let codings = headers.values("Transfer-Encoding")
        guard lengths.isEmpty || codings.isEmpty else {
            throw RequestEncodingError("both Content-Length and Transfer-Encoding")
        }
        guard lengths.count <= 1 else { throw RequestEncodingError("repeated Content-Length") }
        if let length = lengths.first {
            guard !length.isEmpty, length.utf8.count <= 18, length.utf8.allSatisfy(ByteClass.isDigit) else {
                throw RequestEncodingError("invalid Content-Length")
            }
        }
        if !codings.isEmpty {
            let last = codings.joined(separator: ",").split(separator: ",").last?.trimmingOWS()
            guard let last, asciiCaseInsensitiveEquals(last, "chunked") else {
                throw RequestEncodingError("Transfer-Encoding must end with chunked")
            }
        }
    }
}

/// Why a request head could not be encoded.
package struct RequestEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
    package var description: String { reason }
}

/// The chunked transfer coding for bodies the proxy streams (RFC 9112 §7.1), one piece at a time.
///
/// `sizeLine` + data + `chunkEnd` lets a writer send the data without copying it (three
/// writes, or one `writev`); `chunk` builds one buffer with a single copy. An empty piece
/// gives no bytes at all: a chunk of size 0 is the last chunk and would end the body early.
package enum ChunkedEncoder {
    /// `0` CRLF, then the empty trailer section: the end of a chunked body.
    package static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
    /// The CRLF after a chunk's data.
    package static let chunkEnd: [UInt8] = [ByteClass.cr, ByteClass.lf]

    /// The size line for `count` bytes of data: lowercase hex, CRLF. Empty for 0.
    package static func sizeLine(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "negative chunk size")
        guard count > 0 else { return [] }
        return Array(String(count, radix: 16).utf8) + chunkEnd
    }

    /// Size line, the data, CRLF; empty for empty data.
    package static func chunk(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        appendChunk(data, to: &out)
        return out
    }

    package static func chunk(_ data: [UInt8]) -> [UInt8] {
        data.withUnsafeBufferPointer { chunk($0) }
    }

    /// Appends one chunk to `out`; nothing for empty data.
    package static func appendChunk(_ data: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard data.count > 0 else { return }
        out.reserveCapacity(out.count + data.count + 20)
        out.append(contentsOf: sizeLine(data.count))
        out.append(contentsOf: data)
        out.append(contentsOf: chunkEnd)
    }
}
