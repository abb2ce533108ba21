import JSON

/// YAML 1.2's core schema for plain scalars: null, booleans, integers (decimal, `0o` octal,
/// `0x` hex) and floats; anything else is a string. Numbers become `JSONNumber`s whose text is
/// valid JSON (`+1` → `1`, `.5` → `0.5`, `0x1F` → `31`); a number already written as JSON
/// keeps its text. `.inf` and `.nan` have no JSON form and are refused rather than guessed.
enum YAMLCoreSchema {
    enum Resolution {
        case value(JSONNode.Value)
        case refused(String)
    }

    static func resolve(_ text: String) -> Resolution {
        switch text {
        case "", "~", "null", "Null", "NULL": return .value(.null)
        case "true", "True", "TRUE": return .value(.bool(true))
        case "false", "False", "FALSE": return .value(.bool(false))
        default: break
        }
        let b = Array(text.utf8)
        guard let first = b.first,
            first == UInt8(ascii: "+") || first == Ch.dash || first == Ch.dot || Ch.isDigit(first)
        else {
            return .value(.string(text))
        }
        if b.count > 2 && b[0] == UInt8(ascii: "0") && (b[1] == UInt8(ascii: "o") || b[1] == UInt8(ascii: "x")) {
            let octal = b[1] == UInt8(ascii: "o")
            var value: UInt64 = 0
            for c in b[2...] {
                let digit: UInt64
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "7"): digit = UInt64(c - UInt8(ascii: "0"))
                case UInt8(ascii: "8")...UInt8(ascii: "9") where !octal: digit = UInt64(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where !octal: digit = UInt64(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where !octal: digit = UInt64(c - UInt8(ascii: "A") + 10)
                default: return .value(.string(text))
                }
                let (shifted, overflow) = value.multipliedReportingOverflow(by: octal ? 8 : 16)
                if overflow {
                    return .refused(
                        "the number \(text) is too large (more than 64 bits); quote it to keep it as a string"
                    )
                }
                value = shifted | digit
            }
            return .value(.number(JSONNumber(text: String(value), value: Double(value))))
        }
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN":
            return .refused(
                """
                \(text) (\(text.hasSuffix("n") || text.hasSuffix("N") ? "not a number" : "infinity")) has no \
                JSON equivalent; quote it to keep it as a string
                """
            )
        default: break
        }
        return decimal(b).map { .value(.number($0)) } ?? .value(.string(text))
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, as JSON number text.
    private static func decimal(_ b: [UInt8]) -> JSONNumber? {
        var i = 0
        var negative = false
        if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == Ch.dash) {
            negative = b[i] == Ch.dash
            i += 1
        }
        let integerStart = i
        while i < b.count && Ch.isDigit(b[i]) { i += 1 }
        let integer = b[integerStart..<i]
        var fraction = b[i..<i]
        if i < b.count && b[i] == Ch.dot {
            i += 1
            let fractionStart = i
            while i < b.count && Ch.isDigit(b[i]) { i += 1 }
            fraction = b[fractionStart..<i]
            if integer.isEmpty && fraction.isEmpty { return nil }
        } else if integer.isEmpty {
            return nil
        }
        var exponent = b[i..<i]
        if i < b.count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
            let exponentStart = i
            i += 1
            if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == Ch.dash) { i += 1 }
            let digitsStart = i
            while i < b.count && Ch.isDigit(b[i]) { i += 1 }
            if i == digitsStart { return nil }
            exponent = b[exponentStart..<i]
        }
        guard i == b.count else { return nil }
        var json: [UInt8] = negative ? [Ch.dash] : []
        let significant = integer.drop { $0 == UInt8(ascii: "0") }
        json.append(contentsOf: significant.isEmpty ? [UInt8(ascii: "0")] : Array(significant))
        if !fraction.isEmpty {
            json.append(Ch.dot)
            json.append(contentsOf: fraction)
        }
        json.append(contentsOf: exponent)
        let text = String(decoding: json, as: UTF8.self)
        return JSONNumber(text: text, value: Double(text) ?? .nan)
    }
}
