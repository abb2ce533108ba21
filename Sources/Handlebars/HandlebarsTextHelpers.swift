#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// The string, number and list helpers: Handlebars.java's `StringHelpers` as WireMock ships
/// them (`upper`, `capitalize`, `abbreviate`, `join`...) and WireMock's own (`trim`, `base64`,
/// `urlEncode`, `math`, `array`, `pickRandom`, `size`, `formData`).
enum HandlebarsTextHelpers {
    static func evaluate(
        _ helper: HandlebarsHelper,
        _ args: [HandlebarsValue],
        _ hash: (String) -> HandlebarsValue?,
        _ r: inout HandlebarsRenderer
    ) -> HandlebarsValue {
        switch helper {
        case .size:
            if case .string(let s) = args[0] { return .number(s.count) }
            let count = args[0].iterationItems?.count ?? args[0].text.count
            r.charge(count)
            return .number(count)
        case .array:
            r.charge(args.count)
            return .list(args)
        case .pickRandom:
            return pickRandom(args, count: hash("count")?.integer, &r)
        case .randomInt:
            let lower = hash("lower")?.integer ?? Int(Int32.min)
            let upper = hash("upper")?.integer ?? Int(Int32.max)
            return upper > lower ? .number(Int.random(in: lower..<upper)) : .number(lower)
        case .randomDecimal:
            let lower = hash("lower")?.numeric ?? -Double(Int32.max)
            let upper = hash("upper")?.numeric ?? Double(Int32.max)
            let value = upper > lower ? Double.random(in: lower..<upper) : lower
            return .number(value, text: String(value))
        case .math:
            return math(args[0], args[1].text, args[2])
        case .split:
            let separator = args.count > 1 ? args[1].text : ","
            guard !separator.isEmpty else { return .list(args[0].text.map { .string(String($0)) }) }
            let parts = args[0].text.split(separator: separator, omittingEmptySubsequences: false)
            r.charge(parts.count)
            return .list(parts.map { .string(String($0)) })
        case .join:
            return .string(join(args, prefix: hash("prefix")?.text ?? "", suffix: hash("suffix")?.text ?? ""))
        default:
            return .string(transform(helper, args[0].text, args.dropFirst().map(\.text), hash))
        }
    }

    /// A helper over one text (also a block's rendered body: `{{#trim}}...{{/trim}}`).
    static func transform(
        _ helper: HandlebarsHelper,
        _ text: String,
        _ rest: [String],
        _ hash: (String) -> HandlebarsValue?
    ) -> String {
        switch helper {
        case .upper: return text.uppercased()
        case .lower: return text.lowercased()
        case .capitalize:
            let fully = hash("fully")?.isTruthy == true
            return words(text) { word in
                (word.first.map { String($0).uppercased() } ?? "")
                    + (fully ? word.dropFirst().lowercased() : String(word.dropFirst()))
            }
        case .capitalizeFirst: return (text.first.map { String($0).uppercased() } ?? "") + text.dropFirst()
        case .trim: return text.trimmingSpaces()
        case .substring:
            let chars = Array(text)
            let start = max(0, min(Int(rest.first ?? "") ?? 0, chars.count))
            let end = rest.count > 1 ? max(start, min(Int(rest[1]) ?? chars.count, chars.count)) : chars.count
            return String(chars[start..<end])
        case .replace:
            guard rest.count >= 2, !rest[0].isEmpty else { return text }
            return text.split(separator: rest[0], omittingEmptySubsequences: false).joined(separator: rest[1])
        case .abbreviate:
            // Commons Lang's abbreviate: at most `width` characters, "..." included.
            let width = Int(rest.first ?? "") ?? 0
            guard text.count > width, width >= 4 else { return text }
            return String(text.prefix(width - 3)) + "..."
        case .base64:
            if hash("decode")?.isTruthy == true {
                var encoded = text.trimmingSpaces()
                while encoded.count % 4 != 0 { encoded += "=" }
                return Data(base64Encoded: encoded).map { String(decoding: $0, as: UTF8.self) } ?? ""
            }
            let encoded = Base64.encode(Array(text.utf8))
            return hash("padding")?.isTruthy == false ? String(encoded.prefix { $0 != "=" }) : encoded
        case .urlEncode:
            return hash("decode")?.isTruthy == true ? PercentDecoding.decodeForm(text) : formEncode(text)
        default: return text
        }
    }

    /// Each run of letters and digits changed by `change`, the rest kept (WordUtils.capitalize).
    private static func words(_ text: String, _ change: (Substring) -> String) -> String {
        var out = ""
        var word = Substring()
        var start = text.startIndex
        for index in text.indices {
            if text[index].isWhitespace {
                word = text[start..<index]
                out += change(word) + String(text[index])
                start = text.index(after: index)
            }
        }
        return out + change(text[start...])
    }

    /// Java's `URLEncoder.encode(text, UTF-8)`: letters, digits and `.-*_` kept, space as `+`.
    static func formEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "): out += "+"
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }

    /// `{{join list ', '}}` or `{{join 'a' 'b' 'c' ', '}}`: the last argument separates.
    private static func join(_ args: [HandlebarsValue], prefix: String, suffix: String) -> String {
        guard args.count > 1 else {
            return prefix + (args.first?.iterationItems?.map(\.value.text) ?? []).joined() + suffix
        }
        let separator = args[args.count - 1].text
        var items: [String] = []
        for arg in args.dropLast() {
            if let list = arg.iterationItems { items += list.map(\.value.text) } else { items.append(arg.text) }
        }
        return prefix + items.joined(separator: separator) + suffix
    }

    private static func pickRandom(
        _ args: [HandlebarsValue],
        count: Int?,
        _ r: inout HandlebarsRenderer
    ) -> HandlebarsValue {
        var items: [HandlebarsValue] = []
        for arg in args {
            if let list = arg.iterationItems { items += list.map(\.value) } else { items.append(arg) }
        }
        r.charge(items.count)
        guard !items.isEmpty else { return .null }
        guard let count else { return items.randomElement()! }
        return .list(Array(items.shuffled().prefix(max(0, count))))
    }

    /// WireMock's `math`: whole numbers stay whole (`10 / 4` is 2.5, `8 / 2` is 4).
    static func math(_ left: HandlebarsValue, _ op: String, _ right: HandlebarsValue) -> HandlebarsValue {
        guard let a = left.numeric, let b = right.numeric else { return .null }
        let result: Double
        switch op {
        case "+": result = a + b
        case "-": result = a - b
        case "*": result = a * b
        case "/": result = b == 0 ? .nan : a / b
        case "%": result = b == 0 ? .nan : a.truncatingRemainder(dividingBy: b)
        default: return .null
        }
        guard result.isFinite else { return .null }
        if result == result.rounded(), abs(result) < 9e15 { return .number(Int(result)) }
        return .number(result, text: String(result))
    }

    /// `formData`: the form's fields by name, several values of one name as a list.
    static func formData(_ body: String, urlDecode: Bool) -> HandlebarsValue {
        var fields: [(name: String, values: [String])] = []
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = urlDecode ? PercentDecoding.decodeForm(parts[0]) : String(parts[0])
            let raw = parts.count > 1 ? parts[1] : ""
            let value = urlDecode ? PercentDecoding.decodeForm(raw) : String(raw)
            if let i = fields.firstIndex(where: { $0.name == name }) {
                fields[i].values.append(value)
            } else {
                fields.append((name, [value]))
            }
        }
        return .object(FormDataModel(fields: fields))
    }
}

/// A form's fields (`{{form.name}}`, `{{form.name.1}}`, `{{form.name.last}}`).
struct FormDataModel: HandlebarsObject {
    let fields: [(name: String, values: [String])]

    var text: String {
        "{"
            + fields.map {
                "\($0.name)=\($0.values.count == 1 ? $0.values[0] : "[" + $0.values.joined(separator: ", ") + "]")"
            }.joined(separator: ", ") + "}"
    }

    func member(_ name: String) -> HandlebarsValue {
        guard let field = fields.first(where: { $0.name == name }) else { return .null }
        return .object(HandlebarsValueList(values: field.values))
    }
}

/// One value or several, as WireMock's `ListOrSingle`: writes as the value, or as `[a, b]`;
/// `.[n]`, `first` and `last` pick one either way.
package struct HandlebarsValueList: HandlebarsObject {
    package let values: [String]

    package init(values: [String]) {
        self.values = values
    }

    package var text: String { values.count == 1 ? values[0] : "[" + values.joined(separator: ", ") + "]" }
    package var elements: [HandlebarsValue]? { values.map { .string($0) } }

    package func member(_ name: String) -> HandlebarsValue {
        if let i = Int(name), values.indices.contains(i) { return .string(values[i]) }
        if let i = Int(name), i < 0, values.count + i >= 0 { return .string(values[values.count + i]) }
        if name == "first", let first = values.first { return .string(first) }
        if name == "last", let last = values.last { return .string(last) }
        if name == "size" { return .number(values.count) }
        return .null
    }
}
