// libFuzzer target for the JSON parser (stub files and request bodies). Not part of the package
// (SwiftPM ignores this folder): scripts/fuzz compiles this file together with
// Sources/JSON/*.swift as one module.
//
// Each input is parsed as JSON, and:
//  1. parsing never traps, with the file limits and with the request-body limits; a refusal's
//     position lies within the input; the body limits only ever refuse more;
//  2. an accepted document prints (JSONSerializer, JSONPrettyPrinter) to text that parses back to
//     the same value, and every value's position lies within the input;
//  3. differential against Foundation's JSONSerialization on inputs both are meant to read alike
//     (valid UTF-8, no byte order mark, nesting within both limits): the two accept the same
//     inputs and read the same values (numbers by value, objects with the last of repeated keys).
//     Documented divergences, filtered: JSONSerialization reads UTF-16 and UTF-32 (we read
//     UTF-8 only: stub files and bodies are UTF-8); it may accept a lone surrogate escape
//     ("\ud800"), which we refuse because it is not a character; on Linux it accepts a
//     trailing comma ("[1,]", "{"a":1,}"), which RFC 8259 does not allow and we refuse with a
//     message saying so; it refuses numbers out of Double's range (1e999), which we read (as
//     written, for serving) with an infinite value; it drops U+FEFF characters inside strings.
// A violated invariant is a precondition failure, which libFuzzer reports and saves as a crash.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    checkParsing(input)
    return 0
}

private func checkParsing(_ input: [UInt8]) {
    let file: JSONNode
    do {
        file = try JSONParser.parse(input)
    } catch {
        checkPosition(error.position, in: input)
        // The request-body limits are stricter: what files refuse, bodies refuse too.
        precondition(
            (try? JSONParser.parse(input, limits: .requestBody)) == nil,
            "the body limits accepted what the file limits refused"
        )
        compareWithFoundation(input, ours: nil)
        return
    }
    walk(file) { checkPosition($0, in: input) }
    if let body = try? JSONParser.parse(input, limits: .requestBody) {
        precondition(body.equals(file), "the body limits read a different value")
    }
    let compact = JSONSerializer.bytes(file)
    let pretty = JSONPrettyPrinter.bytes(file)
    for printed in [compact, pretty] {
        guard let again = try? JSONParser.parse(printed) else {
            preconditionFailure("printed JSON does not parse: \(String(decoding: printed, as: UTF8.self))")
        }
        precondition(again.equals(file), "printed JSON reads a different value")
    }
    precondition(JSONSerializer.bytes(try! JSONParser.parse(compact)) == compact, "compact printing is not stable")
    compareWithFoundation(input, ours: file)
}

// MARK: - positions

private func checkPosition(_ position: SourcePosition, in input: [UInt8]) {
    let lines = input.split(separator: 0x0A, omittingEmptySubsequences: false)
    precondition(position.line >= 1 && position.line <= lines.count, "line \(position.line) of \(lines.count)")
    precondition(
        position.column >= 1 && position.column <= lines[position.line - 1].count + 1,
        "column \(position.column) past line \(position.line)"
    )
}

private func walk(_ node: JSONNode, _ visit: (SourcePosition) -> Void) {
    visit(node.position)
    switch node.value {
    case .array(let elements): elements.forEach { walk($0, visit) }
    case .object(let members):
        for member in members {
            visit(member.keyPosition)
            walk(member.value, visit)
        }
    default: break
    }
}

// MARK: - differential

private func compareWithFoundation(_ input: [UInt8], ours: JSONNode?) {
    // Inputs both parsers are meant to read alike.
    guard String(validating: input, as: UTF8.self) != nil,
        !input.starts(with: [0xEF, 0xBB, 0xBF]),
        !input.contains(0),
        maximumNesting(input) < 100
    else { return }
    let text = String(decoding: input, as: UTF8.self)
    let lowered = text.lowercased()
    if lowered.contains("\\ud8") || lowered.contains("\\ud9") || lowered.contains("\\uda") || lowered.contains("\\udb")
        || lowered.contains("\\udc") || lowered.contains("\\udd") || lowered.contains("\\ude")
        || lowered.contains("\\udf")
    {
        return  // surrogate escapes: see the header
    }
    let theirs = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])
    // U+FEFF: Foundation drops it inside strings and keys (so two keys may even merge).
    let hasBOM = text.unicodeScalars.contains("\u{FEFF}") || lowered.contains("\\ufeff")
    switch (ours, theirs) {
    case (nil, nil):
        return
    case (let ours?, let theirs?):
        precondition(hasBOM || same(ours, theirs), "JSONSerialization reads a different value for \(text.prefix(200))")
    case (nil, _?):
        // (U+FEFF again: Foundation drops it, so keys that differ only by it merge; found by a
        // ten-minute run with a trailing comma and a U+FEFF in a key, now a seed.)
        if let cleaned = try? JSONParser.parse(withoutTrailingCommas(input)), hasBOM || same(cleaned, theirs!) {
            return
        }
        preconditionFailure("JSONSerialization accepts what we refuse: \(text.prefix(200))")
    case (let ours?, nil):
        var infinite = false
        walkNumbers(ours) { if !$0.isFinite { infinite = true } }
        if infinite { return }
        preconditionFailure("we accept what JSONSerialization refuses: \(text.prefix(200))")
    }
}

/// The input with every comma that is followed (after whitespace) by `]` or `}` removed,
/// outside strings: what Foundation's trailing-comma leniency reads.
private func withoutTrailingCommas(_ input: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var inString = false
    var escaped = false
    var i = 0
    while i < input.count {
        let b = input[i]
        if inString {
            if escaped {
                escaped = false
            } else if b == UInt8(ascii: "\\") {
                escaped = true
            } else if b == UInt8(ascii: "\"") {
                inString = false
            }
            out.append(b)
        } else if b == UInt8(ascii: ",") {
            var j = i + 1
            while j < input.count, [0x20, 0x09, 0x0A, 0x0D].contains(input[j]) { j += 1 }
            if j < input.count, input[j] == UInt8(ascii: "]") || input[j] == UInt8(ascii: "}") {
                i += 1
                continue
            }
            out.append(b)
        } else {
            if b == UInt8(ascii: "\"") { inString = true }
            out.append(b)
        }
        i += 1
    }
    return out
}

private func walkNumbers(_ node: JSONNode, _ visit: (Double) -> Void) {
    switch node.value {
    case .number(let n): visit(n.value)
    case .array(let elements): elements.forEach { walkNumbers($0, visit) }
    case .object(let members): members.forEach { walkNumbers($0.value, visit) }
    default: break
    }
}

/// Nesting depth by bracket counting outside strings (an upper bound is enough here).
private func maximumNesting(_ input: [UInt8]) -> Int {
    var depth = 0
    var deepest = 0
    var inString = false
    var escaped = false
    for b in input {
        if inString {
            if escaped {
                escaped = false
            } else if b == UInt8(ascii: "\\") {
                escaped = true
            } else if b == UInt8(ascii: "\"") {
                inString = false
            }
            continue
        }
        switch b {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            depth += 1
            deepest = max(deepest, depth)
        case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
        default: break
        }
    }
    return deepest
}

/// JSONSerialization's booleans are NSNumbers of a class of their own on both platforms
/// (`0` and `1` bridge to Bool too, so `is Bool` cannot tell them apart).
private func isBoolean(_ value: Any) -> Bool {
    String(describing: type(of: value)).contains("Boolean")
}

private func same(_ node: JSONNode, _ value: Any) -> Bool {
    switch node.value {
    case .null:
        return value is NSNull
    case .bool(let b):
        return isBoolean(value) && (value as? Bool) == b
    case .number(let n):
        guard !isBoolean(value), let theirs = value as? NSNumber else { return false }
        let d = theirs.doubleValue
        if !n.value.isFinite || !d.isFinite { return true }
        // Foundation reads integers past 2^53 as decimals whose double value may differ in the
        // last digits; we keep the number as written (for serving) and compare by value.
        let tolerance = abs(n.value) > 9.007e15 ? 1e-6 : 1e-15
        return n.value == d || abs(n.value - d) <= abs(n.value) * tolerance
    case .string(let s):
        // Foundation on Linux drops U+FEFF inside strings (its byte-order-mark handling); we
        // keep the character as written. Compared without it.
        guard let theirs = value as? String else { return false }
        let bom: Unicode.Scalar = "\u{FEFF}"
        return theirs == s
            || theirs.unicodeScalars.filter({ $0 != bom }).elementsEqual(s.unicodeScalars.filter { $0 != bom })
    case .array(let elements):
        guard let theirs = value as? [Any], theirs.count == elements.count else { return false }
        return zip(elements, theirs).allSatisfy { same($0, $1) }
    case .object(let members):
        guard let theirs = value as? [String: Any] else { return false }
        var last: [String: JSONNode] = [:]
        for member in members { last[member.key] = member.value }
        guard last.count == theirs.count else { return false }
        return last.allSatisfy { key, node in theirs[key].map { same(node, $0) } ?? false }
    }
}
