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
struct JSONTextCheck {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let schemas: [CompiledSchema]
    private let limits: JSONParser.Limits
    private let checksFormats: Bool
    private let direction: SchemaValidator.Direction
    private var index = 0
    private var depth = 0
    private var values = 0

    init(
        bytes: UnsafeBufferPointer<UInt8>,
        validator: SchemaValidator,
        limits: JSONParser.Limits
    ) {
        self.bytes = bytes
        schemas = validator.compiled
        self.limits = limits
        checksFormats = validator.checksFormats
        direction = validator.direction
    }

    mutating func document(_ schema: Int) -> Bool {
        guard bytes.count <= limits.maximumBytes else { return false }
        skipWhitespace()
        guard value(schema) else { return false }
        skipWhitespace()
        return index == bytes.count
    }

    // MARK: Values

    /// The schema that applies, `$ref`s followed; nil when anything goes (syntax only). Gives up
    /// (`.giveUp`) on what it does not check itself.
    private enum Applied {
        case anything
        case schema(CompiledSchema)
        case giveUp
    }

    private func applied(_ index: Int?) -> Applied {
        guard var index else { return .anything }
        for _ in 0..<32 {
            let schema = schemas[index]
            if let flag = schema.constant { return flag ? .anything : .giveUp }
            if schema.acceptsAnything { return .anything }
            guard schema.combinators == nil, schema.constValue == nil, schema.unevaluatedItems == nil,
                schema.unevaluatedProperties == nil
            else { return .giveUp }
            guard let reference = schema.reference else { return .schema(schema) }
            // A reference with keywords beside it (2020-12) applies two schemas to one value.
            guard schema.referenceReplacesSiblings || !schema.hasRulesBesideReference else { return .giveUp }
            guard let target = reference else { return .anything }
            index = target
        }
        return .giveUp
    }

    private mutating func value(_ schemaIndex: Int?) -> Bool {
        values += 1
        guard index < bytes.count, values <= limits.maximumValues else { return false }
        let schema: CompiledSchema?
        switch applied(schemaIndex) {
        case .anything: schema = nil
        case .schema(let found): schema = found
        case .giveUp: return false
        }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(schema)
        case UInt8(ascii: "["): return array(schema)
        case UInt8(ascii: "\""): return string(schema)
        case UInt8(ascii: "t"): return literal("true", SchemaTypes.boolean, schema)
        case UInt8(ascii: "f"): return literal("false", SchemaTypes.boolean, schema)
        case UInt8(ascii: "n"): return literal("null", SchemaTypes.null, schema)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number(schema)
        default: return false
        }
    }

    private mutating func literal(_ word: StaticString, _ type: UInt8, _ schema: CompiledSchema?) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for i in 0..<count where bytes[index + i] != word.utf8Start[i] { return false }
        index += count
        guard let schema else { return true }
        if type == SchemaTypes.null && schema.nullable { return true }
        guard schema.enumValues == nil else { return false }
        return schema.types?.admits(type) ?? true
    }

    // MARK: Strings

    /// A string with neither escapes nor bytes above ASCII, or false. Its value is made only
    /// when a keyword needs it.
    private mutating func string(_ schema: CompiledSchema?) -> Bool {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return false }
            index += 1
        }
        guard index < bytes.count else { return false }
        let end = index
        index += 1
        guard let schema else { return true }
        if let types = schema.types, !types.admits(SchemaTypes.string) { return false }
        let rules = schema.string
        let format = checksFormats ? schema.format : nil
        guard rules != nil || format != nil || schema.enumValues != nil else { return true }
        // ASCII: one byte is one code point.
        let length = end - start
        if let bound = rules?.maxLength, length > bound { return false }
        if let bound = rules?.minLength, length < bound { return false }
        if schema.enumValues != nil {
            // Equal bytes are equal strings; no equal bytes may still be an equal string (a
            // canonical equivalent), which the validator decides.
            let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard schema.enumTexts.contains(where: { KeyTable.equal($0, text) }) else { return false }
        }
        guard rules?.pattern != nil || format != nil else { return true }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        if let pattern = rules?.pattern, let regex = pattern.regex, regex.firstMatch(in: text) == nil { return false }
        if let format, SchemaFormats.check(string: text, format: format) != nil { return false }
        return true
    }

    // MARK: Numbers

    private mutating func number(_ schema: CompiledSchema?) -> Bool {
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
        guard let schema else { return true }
        guard schema.enumValues == nil else { return false }
        let format = checksFormats ? schema.format : nil
        let types = schema.types
        let needsInteger = types.map { !$0.admits(SchemaTypes.number) && $0.mask & SchemaTypes.integer != 0 } ?? false
        if let types, !types.admits(SchemaTypes.number) && !needsInteger { return false }
        guard schema.number != nil || format != nil || needsInteger else { return true }
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
        if let rules = schema.number, !Self.admits(n, rules) { return false }
        if let format, SchemaFormats.check(number: n, format: format) != nil { return false }
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

    private mutating func array(_ schema: CompiledSchema?) -> Bool {
        if let schema {
            guard schema.enumValues == nil, schema.types?.admits(SchemaTypes.array) ?? true else { return false }
        }
        let rules = schema?.array
        if let rules, rules.contains != nil || rules.uniqueItems { return false }
        guard enter() else { return false }
        index += 1
        var count = 0
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                let sub: Int?
                if let rules {
                    sub = count < rules.prefix.count ? rules.prefix[count] : rules.rest
                } else {
                    sub = nil
                }
                guard value(sub) else { return false }
                count += 1
                guard let another = separator(closing: UInt8(ascii: "]")) else { return false }
                if another { continue }
                break
            }
        }
        depth -= 1
        if let bound = rules?.maxItems, count > bound { return false }
        if let bound = rules?.minItems, count < bound { return false }
        return true
    }

    private mutating func object(_ schema: CompiledSchema?) -> Bool {
        if let schema {
            guard schema.enumValues == nil, schema.types?.admits(SchemaTypes.object) ?? true else { return false }
        }
        let rules = schema?.object
        if let rules {
            guard rules.patternProperties.isEmpty, rules.propertyNames == nil, rules.dependencies.isEmpty,
                rules.required.count <= 64, rules.keys.isASCII
            else { return false }
        }
        guard enter() else { return false }
        index += 1
        var count = 0
        var present: UInt64 = 0
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return false }
                guard let key = key() else { return false }
                let entry = rules?.keys.find(UnsafeBufferPointer(rebasing: bytes[key]))
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                skipWhitespace()
                present |= entry?.requiredBits ?? 0
                guard value(entry?.schema ?? rules?.additionalProperties) else { return false }
                count += 1
                guard let another = separator(closing: UInt8(ascii: "}")) else { return false }
                if another { continue }
                break
            }
        }
        depth -= 1
        guard let rules else { return true }
        for (i, name) in rules.required.enumerated() where present & (1 << UInt64(i)) == 0 {
            switch direction {
            case .any: return false
            case .request: if !rules.readOnlyProperties.contains(name) { return false }
            case .response: if !rules.writeOnlyProperties.contains(name) { return false }
            }
        }
        if let bound = rules.maxProperties, count > bound { return false }
        if let bound = rules.minProperties, count < bound { return false }
        return true
    }

    /// Where a key's bytes are (quotes excluded), when it has neither escapes nor bytes above
    /// ASCII (then its bytes are its name); nil otherwise.
    private mutating func key() -> Range<Int>? {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        index += 1
        return start..<(index - 1)
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
        return bytes.withUnsafeBufferPointer { buffer in
            var check = JSONTextCheck(bytes: buffer, validator: self, limits: limits)
            return check.document(schema.index)
        }
    }
}
