/// Multipart bodies of any `multipart/*` type (RFC 2046: `form-data`, `mixed`, `related`, ...):
/// the parts, each with its header fields and bytes. The framing only; `MultipartFormData`
/// reads form fields and files from these parts. Bytes in, parts out; nothing here knows what asks.
package enum MultipartBody {
    /// One part: its header fields as sent (in order, names as written) and its bytes.
    package struct Part: Sendable, Equatable {
        package var headers: [Field]
        package var body: [UInt8]

        package struct Field: Sendable, Equatable {
            package var name: String
            package var value: String
        }

        /// The values of the fields named `name` (compared ignoring case), in order.
        package func values(_ name: String) -> [String] {
            let lowered = name.lowercased()
            return headers.compactMap { $0.name.lowercased() == lowered ? $0.value : nil }
        }
    }

    /// Why a body is not one this reads.
    package enum Failure: Error, Equatable, Sendable {
        case noBoundary
        case noFirstDelimiter
        case unterminatedPart(index: Int)
        case badPartHead(index: Int, reason: String)
    }

    /// The boundary of a `multipart/*` Content-Type, or nil for any other type.
    package static func boundary(contentType: String) -> String? {
        let parameters = MultipartFormData.mediaParameters(contentType)
        guard parameters.type.lowercased().hasPrefix("multipart/") else { return nil }
        guard let boundary = parameters.values.first(where: { $0.name == "boundary" })?.value,
            !boundary.isEmpty, boundary.utf8.count <= 200
        else { return nil }
        return boundary
    }

    /// The parts, in order. A preamble before the first delimiter and an epilogue after the last
    /// are ignored, as RFC 2046 asks.
    package static func parts(of body: [UInt8], boundary: String) throws(Failure) -> [Part] {
        guard !boundary.isEmpty else { throw .noBoundary }
        let dashBoundary = Array("--\(boundary)".utf8)
        let delimiter = [13, 10] + dashBoundary
        // The first delimiter may open the body (no CRLF before it) or follow a preamble.
        var position: Int
        if body.starts(with: dashBoundary) {
            position = dashBoundary.count
        } else if let found = find(delimiter, in: body, from: 0) {
            position = found + delimiter.count
        } else {
            throw .noFirstDelimiter
        }
        var parts: [Part] = []
        while true {
            // After a delimiter: "--" closes, else optional padding and CRLF open a part.
            if body[position...].starts(with: [45, 45]) { return parts }
            while position < body.count, body[position] == 32 || body[position] == 9 { position += 1 }
            guard body[position...].starts(with: [13, 10]) else { throw .unterminatedPart(index: parts.count) }
            position += 2
            guard let end = find(delimiter, in: body, from: position) else {
                throw .unterminatedPart(index: parts.count)
            }
            parts.append(try part(Array(body[position..<end]), index: parts.count))
            position = end + delimiter.count
        }
    }

    /// A part's head (fields up to an empty line) and its bytes.
    private static func part(_ bytes: [UInt8], index: Int) throws(Failure) -> Part {
        let headEnd: Int
        let bodyStart: Int
        if bytes.starts(with: [13, 10]) {
            (headEnd, bodyStart) = (0, 2)
        } else if let blank = find([13, 10, 13, 10], in: bytes, from: 0) {
            (headEnd, bodyStart) = (blank, blank + 4)
        } else {
            throw .badPartHead(index: index, reason: "no empty line ends the part's header fields")
        }
        var fields: [Part.Field] = []
        let head = String(decoding: bytes[0..<headEnd], as: UTF8.self)
        for line in head.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else {
                throw .badPartHead(index: index, reason: "a header line without a colon")
            }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...].trimmingOWS())
            fields.append(Part.Field(name: name, value: value))
        }
        return Part(headers: fields, body: Array(bytes[bodyStart...]))
    }

    /// Where `needle` first occurs in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
