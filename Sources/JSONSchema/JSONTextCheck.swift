import JSON

/// A JSON text checked against a compiled schema as it is read, with no tree built: for request
/// bodies checked on every request, where parsing (a node, a string and an array per value)
/// would cost more than the check. It answers only "well-formed and valid": it gives up (false)
/// at the first doubt, whether the text is wrong, the value invalid, or the schema uses keywords
/// it leaves to the tree validator (combinators, `contains`, `uniqueItems`, `patternProperties`,
/// enums of numbers, ...) or the text has escapes or non-ASCII strings. False is then settled the
/// usual way: `JSONParser` and `SchemaValidator.validate`, which say what is wrong and where.
///
/// So true must mean exactly what the parser (with the same limits) and the validator would
/// both say, and every keyword it does not check itself makes it give up.
///
/// It reads the schemas as the validator's `JSONTextPlan` (plain values, no references), and
/// the compiled schema only for a `pattern` or a `format`, whose check needs the text.
struct JSONTextCheck {
    typealias Rule = UnsafePointer<JSONTextPlan.Rule>

    private let bytes: UnsafeBufferPointer<UInt8>
    private let plan: JSONTextPlan.View
    private unowned(unsafe) let validator: SchemaValidator
    private let limits: JSONParser.Limits
    private let checksFormats: Bool
    /// `SchemaValidator.Direction` as the index of `Rule.mandatory`.
    private let direction: Int
    private var index = 0
    private var depth = 0
    private var values = 0

    init(
        bytes: UnsafeBufferPointer<UInt8>,
        plan: JSONTextPlan.View,
        validator: SchemaValidator,
        limits: JSONParser.Limits
    ) {
        self.bytes = bytes
        self.plan = plan
        self.validator = validator
        self.limits = limits
        checksFormats = validator.checksFormats
        direction =
            switch validator.direction {
            case .any: 0
            case .request: 1
            case .response: 2
            }
    }

    mutating func document(_ schema: Int) -> Bool {
        guard bytes.count <= limits.maximumBytes else { return false }
        skipWhitespace()
        guard value(Int32(schema)) else { return false }
        skipWhitespace()
        return index == bytes.count
    }

    // MARK: Values

    /// A value that `schema` (a rule's number, or `JSONTextPlan.anything`) applies to.
    private mutating func value(_ schema: Int32) -> Bool {
        values += 1
        guard index < bytes.count, values <= limits.maximumValues else { return false }
        var rule: Rule?
        if schema >= 0 {
            let applied = plan.rules[Int(schema)].applied
            if applied == JSONTextPlan.giveUp { return false }
            if applied >= 0 { rule = plan.rules.baseAddress! + Int(applied) }
        }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(rule)
        case UInt8(ascii: "["): return array(rule)
        case UInt8(ascii: "\""): return string(rule)
        case UInt8(ascii: "t"): return literal("true", SchemaTypes.boolean, rule)
        case UInt8(ascii: "f"): return literal("false", SchemaTypes.boolean, rule)
        case UInt8(ascii: "n"): return literal("null", SchemaTypes.null, rule)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number(rule)
        default: return false
        }
    }

    private mutating func literal(_ word: StaticString, _ type: UInt8, _ rule: Rule?) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] { return false }
        index += count
        guard let rule else { return true }
        if type == SchemaTypes.null && rule.pointee.nullable { return true }
        guard !rule.pointee.hasEnum else { return false }
        return rule.pointee.types & type != 0
    }

    // MARK: Strings

    /// A string with neither escapes nor bytes above ASCII, or false. Its value is made only
    /// when a keyword needs it.
    private mutating func string(_ rule: Rule?) -> Bool {
        guard let text = stringBytes() else { return false }
        guard let rule else { return true }
        guard rule.pointee.types & SchemaTypes.string != 0 else { return false }
        // ASCII: one byte is one code point.
        guard text.count <= rule.pointee.maxLength, text.count >= rule.pointee.minLength else { return false }
        // Equal bytes are equal strings; no equal bytes may still be an equal string (a
        // canonical equivalent), which the validator decides.
        if rule.pointee.hasEnum, !plan.isEnumText(rule, text) { return false }
        let checksFormat = checksFormats && rule.pointee.hasFormat
        guard rule.pointee.hasPattern || checksFormat else { return true }
        let schema = validator.compiled[rule - plan.rules.baseAddress!]
        let string = String(decoding: text, as: UTF8.self)
        if let regex = schema.string?.pattern?.regex, regex.firstMatch(in: string) == nil { return false }
        if checksFormat, let format = schema.format, SchemaFormats.check(string: string, format: format) != nil {
            return false
        }
        return true
    }

    /// A string's bytes (quotes excluded), when it has neither escapes nor bytes above ASCII
    /// (then its bytes are its value); nil otherwise. Keys are read the same way.
    private mutating func stringBytes() -> UnsafeBufferPointer<UInt8>? {
        // A local index and one range test per byte: this loop reads most of a body's bytes.
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            guard byte &- 0x20 < 0x60, byte != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        index = end + 1
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    // MARK: Numbers

    private mutating func number(_ rule: Rule?) -> Bool {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return false }
        var whole = true
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            whole = false
            guard digits() > 0 else { return false }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            whole = false
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard digits() > 0 else { return false }
        }
        guard let rule else { return true }
        guard !rule.pointee.hasEnum, rule.pointee.numberTypes != .none else { return false }
        let checksFormat = checksFormats && rule.pointee.hasFormat
        let needsInteger = rule.pointee.numberTypes == .integer
        guard rule.pointee.number != nil || checksFormat || needsInteger else { return true }
        // Whole numbers of up to 15 digits are exact in a Double; others are read as the parser does.
        let n: Double
        if whole && integerDigits <= 15 {
            var magnitude = 0
            for i in integerStart..<index { magnitude = magnitude * 10 + Int(bytes[i] - UInt8(ascii: "0")) }
            n = Double(bytes[start] == UInt8(ascii: "-") ? -magnitude : magnitude)
        } else {
            n = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)) ?? .nan
        }
        if needsInteger && !(n.isFinite && n.rounded() == n) { return false }
        if let rules = rule.pointee.number, !Self.admits(n, rules) { return false }
        if checksFormat {
            let schema = validator.compiled[rule - plan.rules.baseAddress!]
            if let format = schema.format, SchemaFormats.check(number: n, format: format) != nil { return false }
        }
        return true
    }

    /// The number keywords, as `SchemaRun.checkNumber` reads them.
    private static func admits(_ n: Double, _ rules: NumberRules) -> Bool {
        if let divisor = rules.multipleOf {
            let quotient = n / divisor
            if !quotient.isFinite || abs(quotient - quotient.rounded()) > 1e-9 * max(1, abs(quotient)) { return false }
        }
        if let bound = rules.maximum, rules.maximumIsExclusive ? n >= bound : n > bound { return false }
        if let bound = rules.minimum, rules.minimumIsExclusive ? n <= bound : n < bound { return false }
        if let bound = rules.exclusiveMaximum, n >= bound { return false }
        if let bound = rules.exclusiveMinimum, n <= bound { return false }
        return true
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    // MARK: Arrays and objects

    private mutating func array(_ rule: Rule?) -> Bool {
        if let rule {
            guard !rule.pointee.hasEnum, rule.pointee.types & SchemaTypes.array != 0, !rule.pointee.arrayGivesUp
            else { return false }
        }
        guard enter() else { return false }
        index += 1
        var count = 0
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                var sub = JSONTextPlan.anything
                if let rule {
                    let prefix = rule.pointee.prefix
                    sub = count < prefix.count ? plan.prefixes[Int(prefix.start) + count] : rule.pointee.rest
                }
                guard value(sub) else { return false }
                count += 1
                guard let another = separator(closing: UInt8(ascii: "]")) else { return false }
                if another { continue }
                break
            }
        }
        depth -= 1
        guard let rule else { return true }
        return count <= rule.pointee.maxItems && count >= rule.pointee.minItems
    }

    private mutating func object(_ rule: Rule?) -> Bool {
        if let rule {
            guard !rule.pointee.hasEnum, rule.pointee.types & SchemaTypes.object != 0, !rule.pointee.objectGivesUp
            else { return false }
        }
        guard enter() else { return false }
        index += 1
        var count = 0
        var present: UInt64 = 0
        // Bodies mostly list the properties in the schema's order: the key after the one found
        // last is tried first.
        var expected = 0
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let name = stringBytes() else {
                    return false
                }
                var sub = JSONTextPlan.anything
                if let rule {
                    sub = rule.pointee.additional
                    if let key = plan.key(rule, name, expected: &expected) {
                        present |= key.pointee.requiredBits
                        if key.pointee.schema != JSONTextPlan.anything { sub = key.pointee.schema }
                    }
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                skipWhitespace()
                guard value(sub) else { return false }
                count += 1
                guard let another = separator(closing: UInt8(ascii: "}")) else { return false }
                if another { continue }
                break
            }
        }
        depth -= 1
        guard let rule else { return true }
        let mandatory =
            switch direction {
            case 0: rule.pointee.mandatory.0
            case 1: rule.pointee.mandatory.1
            default: rule.pointee.mandatory.2
            }
        guard present & mandatory == mandatory else { return false }
        return count <= rule.pointee.maxProperties && count >= rule.pointee.minProperties
    }

    private mutating func enter() -> Bool {
        depth += 1
        return depth <= limits.maximumDepth
    }

    /// After an element of an array or object: true when a comma follows (another element
    /// comes), false when `close` ends the collection, nil for anything else. Both are consumed.
    private mutating func separator(closing close: UInt8) -> Bool? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: ",") {
            index += 1
            return true
        }
        guard bytes[index] == close else { return nil }
        index += 1
        return false
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D, 0x0A: index += 1
            default: return
            }
        }
    }
}

extension SchemaValidator {
    /// Whether a JSON text is well-formed (as `JSONParser` reads it within `limits`) and valid
    /// against `schema`, decided as it is read, with no tree built. False means only "not known
    /// to be": parse it and `validate` the value for what is wrong. Template strings, which
    /// only a parsed value can show, always take that way.
    package func acceptsText(_ bytes: [UInt8], against schema: CompiledSchemaID, limits: JSONParser.Limits) -> Bool {
        guard !acceptsTemplateStrings else { return false }
        return textCheckPlan().withView { plan in
            bytes.withUnsafeBufferPointer { buffer in
                var check = JSONTextCheck(bytes: buffer, plan: plan, validator: self, limits: limits)
                return check.document(schema.index)
            }
        }
    }

    /// Makes the text check's plan of every schema compiled so far: a contract calls it once
    /// its schemas are compiled, so no request pays for it.
    package func prepareTextChecks() {
        _ = textCheckPlan()
    }

    /// The plan of every schema compiled so far, extended first if schemas were compiled since.
    func textCheckPlan() -> JSONTextPlan {
        if textPlan.rules.count < compiled.count { textPlan = textPlan.extended(with: compiled) }
        return textPlan
    }
}
