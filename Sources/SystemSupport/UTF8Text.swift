/// Bytes as text only when they are valid UTF-8, so writing the text back gives the same bytes
/// (`String(decoding:as:)` would replace what is invalid): the recorder's and the encoder's test
/// of whether a body can be written as text.
package enum UTF8Text {
    /// The text of `bytes`, or nil when they are not valid UTF-8.
    package static func decode(_ bytes: [UInt8]) -> String? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return String(scalars)
            case .error: return nil
            }
        }
    }
}
