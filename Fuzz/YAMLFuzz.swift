// libFuzzer target for the YAML reader. Not part of the package (SwiftPM ignores this folder):
// scripts/fuzz compiles this file together with Sources/YAML/*.swift and
// Sources/JSON/*.swift as one module (their `import JSON` lines blanked in the copies it compiles).
//
// Each input is read as YAML, and:
//  1. reading never traps, and a refusal's position lies within the input (a line that exists,
//     a column at most one past that line's last character);
//  2. an accepted document serialises (JSONSerializer) to JSON that JSONParser accepts and that
//     equals it; every value's and key's position lies within the input; reading that JSON
//     again as YAML gives the same data;
//     the same JSON laid out over lines (LF, CRLF or CR; indented with spaces or tabs; spaces
//     around ':' and ','), as people and tools write it, reads the same too;
//  3. differential: JSON is YAML 1.2, so any input JSONParser accepts is accepted by the YAML
//     reader with equal data. Two documented exceptions: JSONParser accepts invalid UTF-8
//     inside strings (YAML text must be UTF-8, so the reader refuses it) and repeated keys
//     (the reader refuses them, as stub files do: the check uses rejectDuplicateKeys).
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.

/// The number of characters of each line, split at LF, CR and CRLF as the reader splits them.
private func lineLengths(_ input: [UInt8]) -> [Int] {
    var lengths: [Int] = []
    var count = 0
    var i = input.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while i < input.count {
        let b = input[i]
        if b == 0x0A || b == 0x0D {
            lengths.append(count)
            count = 0
            i += (b == 0x0D && i + 1 < input.count && input[i + 1] == 0x0A) ? 2 : 1
            continue
        }
        if b & 0xC0 != 0x80 { count += 1 }
        i += 1
    }
    lengths.append(count)
    return lengths
}

private func within(_ p: SourcePosition, _ lengths: [Int]) -> Bool {
    p.line >= 1 && p.line <= lengths.count && p.column >= 1 && p.column <= lengths[p.line - 1] + 1
}

/// Every position in the tree, up to a budget (aliases may expand to a million values).
private func checkPositions(_ node: JSONNode, _ lengths: [Int], _ budget: inout Int) {
    guard budget > 0 else { return }
    budget -= 1
    precondition(within(node.position, lengths), "value position \(node.position) outside the input")
    switch node.value {
    case .array(let elements):
        for element in elements { checkPositions(element, lengths, &budget) }
    case .object(let members):
        for member in members {
            precondition(within(member.keyPosition, lengths), "key position \(member.keyPosition) outside the input")
            checkPositions(member.value, lengths, &budget)
        }
    default: break
    }
}

private func isValidUTF8(_ input: [UInt8]) -> Bool {
    var iterator = input.makeIterator()
    var decoder = UTF8()
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue: continue
        case .emptyInput: return true
        case .error: return false
        }
    }
}

/// JSON over several lines, laid out as `style` (taken from the input) says.
private func layOut(_ node: JSONNode, style: UInt8, level: Int, into out: inout [UInt8]) {
    let newline: [UInt8] = [[0x0A], [0x0D, 0x0A], [0x0D], [0x0A]][Int(style & 3)]
    let unit: [UInt8] = style & 4 == 0 ? [0x20, 0x20] : [0x09]
    func breakLine(_ level: Int) {
        out += newline
        for _ in 0..<level { out += unit }
    }
    switch node.value {
    case .array(let elements) where !elements.isEmpty:
        out.append(UInt8(ascii: "["))
        for (i, element) in elements.enumerated() {
            if i > 0 {
                out.append(UInt8(ascii: ","))
                if style & 8 != 0 { out.append(0x20) }
            }
            breakLine(level + 1)
            layOut(element, style: style, level: level + 1, into: &out)
        }
        breakLine(level)
        out.append(UInt8(ascii: "]"))
    case .object(let members) where !members.isEmpty:
        out.append(UInt8(ascii: "{"))
        for (i, member) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            breakLine(level + 1)
            JSONSerializer.writeString(member.key, into: &out)
            if style & 16 != 0 { out.append(0x20) }
            out.append(UInt8(ascii: ":"))
            if style & 32 != 0 { breakLine(level + 2) } else if style & 8 != 0 { out.append(0x20) }
            layOut(member.value, style: style, level: level + 1, into: &out)
        }
        breakLine(level)
        out.append(UInt8(ascii: "}"))
    default:
        JSONSerializer.write(node, into: &out)
    }
}

private func read(_ input: [UInt8]) -> Result<JSONNode, YAMLSyntaxError> {
    Result { () throws(YAMLSyntaxError) -> JSONNode in try YAMLReader.parse(input) }
}

private func fuzzYAML(_ input: [UInt8]) {
    let lengths = lineLengths(input)
    let result = read(input)
    switch result {
    case .failure(let error):
        precondition(
            within(error.position, lengths),
            "error position \(error.position) outside the input: \(error.message)"
        )
        precondition(!error.message.isEmpty, "an error without a message")
    case .success(let node):
        var budget = 10_000
        checkPositions(node, lengths, &budget)
        // Aliases may expand to a million values; walking those on every run would make the
        // fuzzer crawl, and small trees exercise the same code.
        guard budget > 0 else { break }
        let json = JSONSerializer.bytes(node)
        guard let back = try? JSONParser.parse(json) else {
            preconditionFailure("the serialised document is not JSON: \(String(decoding: json, as: UTF8.self))")
        }
        precondition(back.equals(node), "the serialised document reads back differently")
        // JSON out is YAML in: the same data again.
        switch read(json) {
        case .success(let again): precondition(again.equals(node), "the serialised document reads differently as YAML")
        case .failure(let error): preconditionFailure("the serialised document is refused as YAML: \(error)")
        }
        var laidOut: [UInt8] = []
        layOut(node, style: input.last ?? 0, level: 0, into: &laidOut)
        switch read(laidOut) {
        case .success(let again): precondition(again.equals(node), "the laid-out JSON reads differently as YAML")
        case .failure(let error):
            preconditionFailure(
                "the laid-out JSON is refused as YAML: \(error)\n\(String(decoding: laidOut, as: UTF8.self))"
            )
        }
    }
    // Differential: every JSON text is a YAML document with the same data.
    if let expected = try? JSONParser.parse(input, rejectDuplicateKeys: true), isValidUTF8(input) {
        switch result {
        case .success(let node): precondition(node.equals(expected), "JSON read as YAML differs from JSONParser")
        case .failure(let error): preconditionFailure("JSON refused by the YAML reader: \(error)")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    fuzzYAML(input)
    return 0
}
