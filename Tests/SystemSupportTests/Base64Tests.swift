import Foundation
import SystemSupport
import Testing

/// The one base64 writer gives what Foundation's `base64EncodedString()` gives (the stub
/// encoder, WireMock's admin API and templates used Foundation's before): the standard
/// alphabet, padded to a multiple of four, no line breaks.
@Suite struct Base64Tests {
    @Test(
        arguments: [
            ([], ""),
            ([0xFF], "/w=="),
            ([0xFF, 0xFE], "//4="),
            ([0xFF, 0xFE, 0xFD], "//79"),
            ([0x00, 0x01, 0x02, 0xFF], "AAEC/w=="),
            (Array("anyone:s3cret".utf8), "YW55b25lOnMzY3JldA=="),
        ] as [([UInt8], String)]
    )
    func encodesWithPadding(bytes: [UInt8], expected: String) {
        #expect(Base64.encode(bytes) == expected)
    }

    /// Random bytes of every length from 0 to 200 (each padding, and lines longer than the 64
    /// and 76 columns other writers break at), and every byte value.
    @Test func agreesWithFoundationOnEveryLengthAndByte() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString(), "\(bytes)")
        }
        let everyByte = (0...255).map(UInt8.init)
        #expect(Base64.encode(everyByte) == Data(everyByte).base64EncodedString())
    }
}
