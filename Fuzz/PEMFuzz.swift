// libFuzzer target for the certificate parsers behind --https: PEM (with line and column in its
// errors), DER (DERReader), X.509 (CertificateInfo), PKCS #8 P-256 keys (ECKeyEncoding) and IP
// address text. Not part of the package: scripts/fuzz builds SystemSupport, CTLS and
// Certificates as instrumented static libraries and links this file against them.
//
// Checked on every input:
// - PEM.decode either gives blocks or an error whose line is within the text (1 to its line
//   count plus one) and whose column is at least 1; decoding twice gives the same answer; each
//   block written back with PEM.encode decodes to exactly that block (label and bytes).
// - The input as DER, and every PEM block's bytes: DERReader walks every element without
//   trapping, each element inside its parent, nesting bounded; CertificateInfo either refuses
//   with an offset inside the bytes or reads a certificate whose issuer, subject and public key
//   are slices of it, and reading it again gives an equal value; ECKeyEncoding.read either
//   refuses or gives a 65-byte point and a 32-byte scalar that encode back to a key reading the
//   same.
// - The input as text: an IP address that parses formats to text that parses to the same bytes.
// A violated check is a precondition failure, which libFuzzer reports and saves.

import Certificates

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    checkPEM(input)
    checkDER(input)
    checkAddress(input)
    return 0
}

private func checkPEM(_ input: [UInt8]) {
    let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    let first = Result { () throws(PEMError) in try PEM.decode(input) }
    let second = Result { () throws(PEMError) in try PEM.decode(input) }
    switch (first, second) {
    case (.success(let a), .success(let b)):
        precondition(a == b, "PEM decoding is not deterministic")
        for block in a {
            precondition(block.line >= 1 && block.line <= lines, "block line \(block.line) outside 1...\(lines)")
            let again = try? PEM.decode(Array(PEM.encode(label: block.label, der: block.der).utf8))
            precondition(again?.count == 1, "an encoded block does not decode to one block")
            precondition(again?[0].label == block.label && again?[0].der == block.der, "PEM round trip lost bytes")
            checkDER(block.der)
        }
    case (.failure(let a), .failure(let b)):
        precondition(a == b, "PEM errors are not deterministic")
        precondition(a.line >= 1 && a.line <= lines + 1, "error line \(a.line) outside 1...\(lines + 1)")
        precondition(a.column >= 1, "error column \(a.column)")
        precondition(!a.reason.isEmpty, "an error without a reason")
    default:
        preconditionFailure("PEM decoding succeeded once and failed once")
    }
}

private func walk(_ reader: DERReader, within range: Range<Int>, depth: Int) {
    var reader = reader
    while !reader.isAtEnd {
        guard let element = try? reader.next() else { return }
        precondition(range.contains(element.offset), "an element outside its parent")
        precondition(element.whole.upperBound <= range.upperBound, "an element runs past its parent")
        precondition(element.content.lowerBound >= element.whole.lowerBound, "content before its element")
        if element.isConstructed, let children = try? reader.children(of: element) {
            precondition(depth < 40, "nesting not bounded")
            walk(children, within: element.content, depth: depth + 1)
        }
    }
}

private func checkDER(_ bytes: [UInt8]) {
    walk(DERReader(bytes), within: 0..<max(bytes.count, 1), depth: 0)
    do {
        let info = try CertificateInfo(der: bytes)
        for part in [info.issuer, info.subject, info.publicKeyInfo] {
            precondition(contains(bytes, part), "a certificate field is not a slice of the certificate")
        }
        precondition((try? CertificateInfo(der: bytes)) == info, "reading a certificate twice differs")
        _ = info.fingerprint
        _ = info.names
    } catch {
        precondition(error.offset >= 0 && error.offset <= bytes.count, "DER error offset \(error.offset) outside")
    }
    if let key = try? ECKeyEncoding.read(bytes) {
        precondition(key.point.count == 65 && key.scalar.count == 32, "a P-256 key of the wrong size")
        let again = try? ECKeyEncoding.read(ECKeyEncoding.pkcs8(point: key.point, scalar: key.scalar))
        precondition(again?.point == key.point && again?.scalar == key.scalar, "PKCS #8 round trip differs")
    }
}

private func contains(_ whole: [UInt8], _ part: [UInt8]) -> Bool {
    guard part.count <= whole.count else { return false }
    if part.isEmpty { return true }
    for start in 0...(whole.count - part.count) where whole[start] == part[0] {
        if whole[start..<(start + part.count)].elementsEqual(part) { return true }
    }
    return false
}

private func checkAddress(_ input: [UInt8]) {
    guard input.count <= 64 else { return }
    let text = String(decoding: input, as: UTF8.self)
    guard let bytes = IPAddressText.parse(text) else { return }
    precondition(bytes.count == 4 || bytes.count == 16, "an address of \(bytes.count) bytes")
    guard let written = IPAddressText.format(bytes) else { preconditionFailure("a parsed address does not format") }
    precondition(IPAddressText.parse(written) == bytes, "\(text) -> \(written) does not parse back")
}
