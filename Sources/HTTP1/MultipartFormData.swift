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
    package typealias Failure = MultipartBody.Failure

    /// The boundary of a `multipart/form-data` Content-Type, or nil for any other type.
    package static func boundary(contentType: String) -> String? {
        guard mediaParameters(contentType).type.lowercased() == "multipart/form-data" else { return nil }
        return MultipartBody.boundary(contentType: contentType)
    }

    /// The parts, in order. A preamble before the first delimiter and an epilogue after the last
    /// are ignored, as RFC 2046 asks.
    package static func parts(of body: [UInt8], boundary: String) throws(Failure) -> [Part] {
        try formParts(MultipartBody.parts(of: body, boundary: boundary))
    }

    /// Parts read by `MultipartBody` as form fields and files: each must be `form-data` with a name.
    package static func formParts(_ parts: [MultipartBody.Part]) throws(Failure) -> [Part] {
        var fields: [Part] = []
        for (index, part) in parts.enumerated() {
            guard let disposition = part.values("Content-Disposition").last else {
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
            let contentType = part.values("Content-Type").last
            fields.append(Part(name: name, filename: filename, contentType: contentType, body: part.body))
        }
        return fields
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
}
