/// `multipart/form-data` bodies (RFC 7578, framed as RFC 2046 says): the fields and files of a
/// form a browser or an app uploads. Bytes in, parts out; nothing here knows what asks.
package enum MultipartFormData {
    /// One part: a field, or a file when it carries a file name.
    package struct Part: Sendable, Equatable {
        /// The `name` of its `Content-Disposition: form-data`.
        package var name: String
        /// The `filename` (or the RFC 8187 `filename*`), for a file.
        package var filename: String?
        /// Its `Content-Type` field, as sent (nil: none, which means text/plain).
        package var contentType: String?
        package var body: [UInt8]
    }

    /// Why a body is not one this reads.
    package enum Failure: Error, Equatable, Sendable {
        case noBoundary
        case noFirstDelimiter
        case unterminatedPart(index: Int)
        case badPartHead(index: Int, reason: String)
    }

    /// The boundary of a `multipart/form-data` Content-Type, or nil for any other type.
    package static func boundary(contentType: String) -> String? {
        let parameters = mediaParameters(contentType)
        guard parameters.type.lowercased() == "multipart/form-data" else { return nil }
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
        var disposition: String?
        var contentType: String?
        let head = String(decoding: bytes[0..<headEnd], as: UTF8.self)
        for line in head.split(separator: "\r\n", omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: ":") else {
                throw .badPartHead(index: index, reason: "a header line without a colon")
            }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...].trimmingOWS())
            if name == "content-disposition" { disposition = value }
            if name == "content-type" { contentType = value }
        }
        guard let disposition else {
            throw .badPartHead(index: index, reason: "no Content-Disposition field")
        }
        let parameters = mediaParameters(disposition)
        guard parameters.type.lowercased() == "form-data" else {
            throw .badPartHead(index: index, reason: "a Content-Disposition that is not form-data")
        }
        guard let name = parameters.values.first(where: { $0.name == "name" })?.value else {
            throw .badPartHead(index: index, reason: "a Content-Disposition without a name")
        }
        let extended = parameters.values.first { $0.name == "filename*" }.flatMap { extendedValue($0.value) }
        let filename = extended ?? parameters.values.first { $0.name == "filename" }?.value
        return Part(name: name, filename: filename, contentType: contentType, body: Array(bytes[bodyStart...]))
    }

    /// `type; name=value; name="quoted \" value"`: the type and the parameters, names lowercased.
    static func mediaParameters(_ field: String) -> (type: String, values: [(name: String, value: String)]) {
        var scalars = Substring(field).unicodeScalars[...]
        var type = ""
        while let first = scalars.first, first != ";" {
            type.unicodeScalars.append(first)
            scalars.removeFirst()
        }
        var values: [(name: String, value: String)] = []
        while scalars.first == ";" {
            scalars.removeFirst()
            var name = ""
            while let first = scalars.first, first != "=", first != ";" {
                name.unicodeScalars.append(first)
                scalars.removeFirst()
            }
            guard scalars.first == "=" else { continue }
            scalars.removeFirst()
            while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
            var value = ""
            if scalars.first == "\"" {
                scalars.removeFirst()
                while let first = scalars.first, first != "\"" {
                    scalars.removeFirst()
                    if first == "\\", let escaped = scalars.first {
                        value.unicodeScalars.append(escaped)
                        scalars.removeFirst()
                    } else {
                        value.unicodeScalars.append(first)
                    }
                }
                if scalars.first == "\"" { scalars.removeFirst() }
                while let first = scalars.first, first != ";" { scalars.removeFirst() }
            } else {
                while let first = scalars.first, first != ";" {
                    value.unicodeScalars.append(first)
                    scalars.removeFirst()
                }
                value = String(Substring(value).trimmingOWS())
            }
            values.append((String(Substring(name).trimmingOWS()).lowercased(), value))
        }
        return (String(Substring(type).trimmingOWS()), values)
    }

    /// RFC 8187: `UTF-8''percent%20encoded` (the only charset it requires); nil otherwise.
    static func extendedValue(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces[0].lowercased() == "utf-8" else { return nil }
        var bytes: [UInt8] = []
        var utf8 = pieces[2].utf8[...]
        while let byte = utf8.popFirst() {
            if byte == 37, utf8.count >= 2, let high = hexValue(utf8[utf8.startIndex]),
                let low = hexValue(utf8[utf8.index(after: utf8.startIndex)])
            {
                bytes.append(high << 4 | low)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
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

extension Substring {
    /// Without the spaces and tabs HTTP allows around a value.
    fileprivate func trimmingOWS() -> Substring {
        var result = self
        while result.first == " " || result.first == "\t" { result.removeFirst() }
        while result.last == " " || result.last == "\t" { result.removeLast() }
        return result
    }
}
