import SystemSupport

/// What `JSONTextCheck` reads of the compiled schemas, as plain values in flat arrays: one
/// `Rule` per compiled schema (by the same number), the property names' and enum strings'
/// bytes one after another, the hashed key tables of schemas with many properties.
///
/// `CompiledSchema`s are classes with rules in classes: walking them for every value of a
/// request body retained and released each (about 1,800 of the 4,500 instructions a five-key
/// body cost). The plan holds no reference, so a text check retains nothing. It is immutable;
/// the validator makes a longer one when schemas are compiled after it (`extended`).
final class JSONTextPlan {
    /// `Rule.applied` when a value is not checked (anything goes), and when the text check
    /// leaves the value to the validator.
    static let anything: Int32 = -1
    static let giveUp: Int32 = -2

    /// A run of a flat array: `start` and `count`.
    struct Span {
        var start: Int32 = 0
        var count: Int32 = 0

        var range: Range<Int> { Int(start)..<Int(start + count) }
    }

    /// One compiled schema, as the text check reads it.
    struct Rule {
        /// The rule that decides a value this schema applies to, `$ref`s followed (its own number
        /// when it has none), `anything` or `giveUp` (`JSONTextCheck` says which keywords).
        var applied = JSONTextPlan.anything
        /// The `SchemaTypes` bits `type` allows; all of them when it names none (or one unknown).
        var types: UInt8 = 0xFF
        var nullable = false
        /// `enum` is written: only a string equal to one of `enumTexts` passes here.
        var hasEnum = false
        var enumTexts = Span()

        var minLength = 0
        var maxLength = Int.max
        /// `pattern`, compiled: read from the compiled schema (the text is made for it).
        var hasPattern = false
        /// `format`, one `SchemaFormats` checks: read from the compiled schema when formats are.
        var hasFormat = false

        var number: NumberRules?
        var numberTypes = NumberTypes.any

        /// `contains` or `uniqueItems`: left to the validator.
        var arrayGivesUp = false
        /// `prefixItems` (or `items` as an array), as schema numbers in `prefixes`.
        var prefix = Span()
        var rest = JSONTextPlan.anything
        var minItems = 0
        var maxItems = Int.max

        /// `patternProperties`, `propertyNames`, dependencies, more than 64 required names, or
        /// a name above ASCII: left to the validator.
        var objectGivesUp = false
        var keys = Span()
        /// The hashed table of `keys` (its size a power of two), empty when they are few enough
        /// to compare in turn.
        var slots = Span()
        var additional = JSONTextPlan.anything
        /// The `Key.requiredBits` that must all be present, by `SchemaValidator.Direction`
        /// (any, request, response): `readOnly` properties need not be in a request, nor
        /// `writeOnly` ones in a response.
        var mandatory: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var minProperties = 0
        var maxProperties = Int.max
    }

    /// What `type` says of numbers.
    enum NumberTypes {
        case any
        /// `integer` without `number`: a fraction fails.
        case integer
        /// Neither: no number passes.
        case none
    }

    /// A property name (`properties` or `required`).
    struct Key {
        var name: Span
        /// Its schema's number; `anything` when only `required` names it (then
        /// `additionalProperties` applies).
        var schema: Int32
        /// The bits of the `required` entries that name it.
        var requiredBits: UInt64
    }

    /// Keys compared in turn up to this many; more are found through a hash of their bytes.
    static let scannedAtMost = 8

    let rules: [Rule]
    let keys: [Key]
    /// Every key's and enum string's UTF-8 bytes.
    let bytes: [UInt8]
    /// Key numbers + 1 (0 is an empty slot), table after table.
    let slots: [Int32]
    let prefixes: [Int32]
    let enumTexts: [Span]

    init() {
        rules = []
        keys = []
        bytes = []
        slots = []
        prefixes = []
        enumTexts = []
    }

    private init(_ builder: Builder) {
        rules = builder.rules
        keys = builder.keys
        bytes = builder.bytes
        slots = builder.slots
        prefixes = builder.prefixes
        enumTexts = builder.enumTexts
    }

    /// This plan with a rule for each of `schemas` after the ones it has (all filled in).
    func extended(with schemas: [CompiledSchema]) -> JSONTextPlan {
        var builder = Builder(self)
        for i in rules.count..<schemas.count { builder.add(schemas[i], in: schemas) }
        return JSONTextPlan(builder)
    }

    /// The plan's arrays as buffers, for a check that reads them without retaining anything.
    func withView<Result>(_ body: (View) -> Result) -> Result {
        rules.withUnsafeBufferPointer { rules in
            keys.withUnsafeBufferPointer { keys in
                bytes.withUnsafeBufferPointer { bytes in
                    slots.withUnsafeBufferPointer { slots in
                        prefixes.withUnsafeBufferPointer { prefixes in
                            enumTexts.withUnsafeBufferPointer { enumTexts in
                                body(
                                    View(
                                        rules: rules,
                                        keys: keys,
                                        bytes: bytes,
                                        slots: slots,
                                        prefixes: prefixes,
                                        enumTexts: enumTexts
                                    )
                                )
                            }
                        }
                    }
                }
            }
        }
    }

    struct View {
        let rules: UnsafeBufferPointer<Rule>
        let keys: UnsafeBufferPointer<Key>
        let bytes: UnsafeBufferPointer<UInt8>
        let slots: UnsafeBufferPointer<Int32>
        let prefixes: UnsafeBufferPointer<Int32>
        let enumTexts: UnsafeBufferPointer<Span>

        /// The key of `rule` whose name is `name`'s bytes; the one at `expected` (a position
        /// among the rule's keys) is compared first, and `expected` moves past the one found.
        func key(
            _ rule: UnsafePointer<Rule>,
            _ name: UnsafeBufferPointer<UInt8>,
            expected: inout Int
        ) -> UnsafePointer<Key>? {
            let span = rule.pointee.keys
            let start = Int(span.start)
            if expected < Int(span.count), equal(keys[start + expected].name, name) {
                expected += 1
                return keys.baseAddress! + start + expected - 1
            }
            guard let found = find(rule, name) else { return nil }
            expected = found + 1 - start
            return keys.baseAddress! + found
        }

        /// The number of `rule`'s key named by `name`'s bytes: compared in turn, or through the
        /// hashed table.
        private func find(_ rule: UnsafePointer<Rule>, _ name: UnsafeBufferPointer<UInt8>) -> Int? {
            let table = rule.pointee.slots
            if table.count == 0 {
                for i in rule.pointee.keys.range where equal(keys[i].name, name) { return i }
                return nil
            }
            let mask = Int(table.count) - 1
            var slot = JSONTextPlan.slot(name, size: Int(table.count))
            while true {
                let entry = Int(slots[Int(table.start) + slot])
                guard entry != 0 else { return nil }
                if equal(keys[entry - 1].name, name) { return entry - 1 }
                slot = (slot + 1) & mask
            }
        }

        /// Whether `text`'s bytes are one of the rule's enum strings.
        func isEnumText(_ rule: UnsafePointer<Rule>, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
            for i in rule.pointee.enumTexts.range where equal(enumTexts[i], text) { return true }
            return false
        }

        func equal(_ stored: Span, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
            guard Int(stored.count) == text.count else { return false }
            let start = Int(stored.start)
            for i in 0..<text.count where bytes[start + i] != text[i] { return false }
            return true
        }
    }

    /// The slot of a hashed table (of `size`, a power of two) a name starts looking in.
    static func slot(_ name: UnsafeBufferPointer<UInt8>, size: Int) -> Int {
        Int(truncatingIfNeeded: ByteHash.fnv1a(name)) & (size - 1)
    }

    /// The plan's arrays while rules are added.
    private struct Builder {
        var rules: [Rule]
        var keys: [Key]
        var bytes: [UInt8]
        var slots: [Int32]
        var prefixes: [Int32]
        var enumTexts: [Span]

        init(_ plan: JSONTextPlan) {
            rules = plan.rules
            keys = plan.keys
            bytes = plan.bytes
            slots = plan.slots
            prefixes = plan.prefixes
            enumTexts = plan.enumTexts
        }

        mutating func add(_ schema: CompiledSchema, in schemas: [CompiledSchema]) {
            var rule = Rule()
            rule.applied = Self.applied(rules.count, schemas)
            rule.nullable = schema.nullable
            if let types = schema.types, !types.allowsAnything { rule.types = types.mask }
            if schema.enumValues != nil {
                rule.hasEnum = true
                rule.enumTexts.start = Int32(enumTexts.count)
                for text in schema.enumTexts { enumTexts.append(store(text)) }
                rule.enumTexts.count = Int32(enumTexts.count) - rule.enumTexts.start
            }
            if let string = schema.string {
                rule.minLength = string.minLength ?? 0
                rule.maxLength = string.maxLength ?? Int.max
                rule.hasPattern = string.pattern?.regex != nil
            }
            rule.hasFormat = schema.format != nil
            rule.number = schema.number
            if let types = schema.types, !types.admits(SchemaTypes.number) {
                rule.numberTypes = types.mask & SchemaTypes.integer != 0 ? .integer : .none
            }
            if let array = schema.array {
                rule.arrayGivesUp = array.contains != nil || array.uniqueItems
                rule.prefix = Span(start: Int32(prefixes.count), count: Int32(array.prefix.count))
                prefixes.append(contentsOf: array.prefix.map(Int32.init))
                rule.rest = array.rest.map(Int32.init) ?? JSONTextPlan.anything
                rule.minItems = array.minItems ?? 0
                rule.maxItems = array.maxItems ?? Int.max
            }
            if let object = schema.object { addObject(object, to: &rule) }
            rules.append(rule)
        }

        private mutating func addObject(_ object: ObjectRules, to rule: inout Rule) {
            rule.objectGivesUp =
                !object.patternProperties.isEmpty || object.propertyNames != nil || !object.dependencies.isEmpty
                || object.required.count > 64 || !object.keys.isASCII
            rule.additional = object.additionalProperties.map(Int32.init) ?? JSONTextPlan.anything
            rule.minProperties = object.minProperties ?? 0
            rule.maxProperties = object.maxProperties ?? Int.max
            guard !rule.objectGivesUp else { return }
            rule.keys.start = Int32(keys.count)
            for entry in object.keys.entries {
                keys.append(
                    Key(
                        name: store(entry.bytes),
                        schema: entry.schema.map(Int32.init) ?? JSONTextPlan.anything,
                        requiredBits: entry.requiredBits
                    )
                )
            }
            rule.keys.count = Int32(keys.count) - rule.keys.start
            for (i, name) in object.required.enumerated() {
                let bit: UInt64 = 1 << UInt64(i)
                rule.mandatory.0 |= bit
                if !object.readOnlyProperties.contains(name) { rule.mandatory.1 |= bit }
                if !object.writeOnlyProperties.contains(name) { rule.mandatory.2 |= bit }
            }
            if rule.keys.count > Int32(JSONTextPlan.scannedAtMost) { rule.slots = table(rule.keys) }
        }

        /// A hashed table of the keys, open addressing, at most half full.
        private mutating func table(_ span: Span) -> Span {
            var size = 1
            while size < 2 * Int(span.count) { size <<= 1 }
            let start = slots.count
            slots.append(contentsOf: repeatElement(0, count: size))
            for i in span.range {
                let name = keys[i].name
                var slot = bytes.withUnsafeBufferPointer { bytes in
                    JSONTextPlan.slot(UnsafeBufferPointer(rebasing: bytes[name.range]), size: size)
                }
                while slots[start + slot] != 0 { slot = (slot + 1) & (size - 1) }
                slots[start + slot] = Int32(i + 1)
            }
            return Span(start: Int32(start), count: Int32(size))
        }

        private mutating func store(_ text: [UInt8]) -> Span {
            let span = Span(start: Int32(bytes.count), count: Int32(text.count))
            bytes.append(contentsOf: text)
            return span
        }

        /// The schema that decides a value `index` applies to, `$ref`s followed (at most 32),
        /// `anything` for one that accepts anything, `giveUp` for keywords the text check
        /// leaves to the validator: `const`, the combinators, `unevaluated*`, and a `$ref` with
        /// keywords beside it in 2020-12 (two schemas applied to one value).
        private static func applied(_ start: Int, _ schemas: [CompiledSchema]) -> Int32 {
            var index = start
            for _ in 0..<32 {
                let schema = schemas[index]
                if let flag = schema.constant { return flag ? JSONTextPlan.anything : JSONTextPlan.giveUp }
                if schema.acceptsAnything { return JSONTextPlan.anything }
                guard schema.combinators == nil, schema.constValue == nil, schema.unevaluatedItems == nil,
                    schema.unevaluatedProperties == nil
                else { return JSONTextPlan.giveUp }
                guard let reference = schema.reference else { return Int32(index) }
                guard schema.referenceReplacesSiblings || !schema.hasRulesBesideReference else {
                    return JSONTextPlan.giveUp
                }
                guard let target = reference else { return JSONTextPlan.anything }
                index = target
            }
            return JSONTextPlan.giveUp
        }
    }
}
