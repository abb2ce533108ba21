import JSON
import RegularExpressions

/// A schema object read once (`SchemaValidator.compile`): its keywords as values (numbers as
/// numbers, `type` as a set, patterns compiled, property names in a table), its subschemas and
/// `$ref` targets as the numbers of other compiled schemas. Validating walks these, never the
/// document: no member lookups, no locations built, nothing resolved.
///
/// `source` stays for the failure path: a keyword's location is built from it only when a
/// finding names it. A class, so a compiled schema is filled in after the schemas that refer to
/// it have its number (references go in cycles), and read without copying its fields. Its
/// fields (and its rules') are written only while it is compiled, before anything reads them,
/// so they go without the run-time exclusivity check, which cost more than the check itself.
final class CompiledSchema {
    /// The schema as written, for the locations and wording of findings.
    let source: LocatedNode
    /// `true` / `false` as a schema; nil for an object.
    @exclusivity(unchecked) var constant: Bool?
    /// Neither an object nor a boolean: accepts anything, as the tree-walking reading did.
    @exclusivity(unchecked) var acceptsAnything = false

    /// `$ref` (or `$dynamicRef`, read as `$ref`): nil when there is none; `.some(nil)` when it
    /// does not resolve (the document set has recorded why; it then adds nothing).
    @exclusivity(unchecked) var reference: Int??
    /// OpenAPI 3.0: the `$ref`'s siblings are ignored, so nothing else was compiled.
    @exclusivity(unchecked) var referenceReplacesSiblings = false
    @exclusivity(unchecked) var nullable = false

    /// `type` as written, and as a mask of `SchemaTypes`; nil when the schema names none.
    @exclusivity(unchecked) var types: SchemaTypes?
    @exclusivity(unchecked) var enumValues: [JSONNode]?
    /// The UTF-8 bytes of `enumValues`' strings, for `JSONTextPlan`.
    @exclusivity(unchecked) var enumTexts: [[UInt8]] = []
    @exclusivity(unchecked) var constValue: JSONNode?
    @exclusivity(unchecked) var number: NumberRules?
    @exclusivity(unchecked) var string: StringRules?
    /// `format`, when it names one `SchemaFormats` checks.
    @exclusivity(unchecked) var format: String?
    @exclusivity(unchecked) var array: ArrayRules?
    @exclusivity(unchecked) var object: ObjectRules?
    @exclusivity(unchecked) var combinators: Combinators?
    @exclusivity(unchecked) var unevaluatedItems: Int?
    @exclusivity(unchecked) var unevaluatedProperties: Int?
    @exclusivity(unchecked) var readOnly = false
    @exclusivity(unchecked) var writeOnly = false
    /// It applies other schemas to the same value (`$ref`, combinators, schema dependencies),
    /// so it can come back to itself there.
    @exclusivity(unchecked) var appliesInPlace = false

    init(source: LocatedNode) {
        self.source = source
    }

    /// Keywords that check the value besides `$ref` (which, in 2020-12, apply with it).
    var hasRulesBesideReference: Bool {
        nullable || types != nil || enumValues != nil || constValue != nil || number != nil || string != nil
            || format != nil || array != nil || object != nil || combinators != nil || unevaluatedItems != nil
            || unevaluatedProperties != nil
    }

    /// The location of one of this schema's keywords, for a finding.
    func location(_ keyword: String) -> NodeLocation { source.location.appending(keyword) }
}

/// The JSON types a `type` keyword allows, as bits; an unknown name allows anything.
struct SchemaTypes {
    static let null: UInt8 = 1
    static let boolean: UInt8 = 2
    static let string: UInt8 = 4
    static let array: UInt8 = 8
    static let object: UInt8 = 16
    static let number: UInt8 = 32
    static let integer: UInt8 = 64

    /// As written, for the message ("expected an integer or null").
    let names: [String]
    let mask: UInt8
    let allowsAnything: Bool

    init?(_ names: [String], nullable: Bool) {
        guard !names.isEmpty else { return nil }
        var written = names
        if nullable, !written.contains("null") { written.append("null") }
        var mask: UInt8 = 0
        var anything = false
        for name in written {
            switch name {
            case "null": mask |= Self.null
            case "boolean": mask |= Self.boolean
            case "string": mask |= Self.string
            case "array": mask |= Self.array
            case "object": mask |= Self.object
            case "number": mask |= Self.number
            case "integer": mask |= Self.integer
            default: anything = true
            }
        }
        self.names = written
        self.mask = mask
        allowsAnything = anything
    }

    /// Whether values of a kind (one of the bits above; a number as `number`) are allowed.
    func admits(_ kind: UInt8) -> Bool { allowsAnything || mask & kind != 0 }

    /// `integer` is any number with no fraction (`1.0` too, as 2020-12 says).
    func admits(_ value: JSONNode.Value) -> Bool {
        if allowsAnything { return true }
        switch value {
        case .null: return mask & Self.null != 0
        case .bool: return mask & Self.boolean != 0
        case .string: return mask & Self.string != 0
        case .array: return mask & Self.array != 0
        case .object: return mask & Self.object != 0
        case .number(let n):
            if mask & Self.number != 0 { return true }
            return mask & Self.integer != 0 && n.value.isFinite && n.value.rounded() == n.value
        }
    }
}

struct NumberRules {
    var multipleOf: Double?
    var maximum: Double?
    var minimum: Double?
    /// OpenAPI 3.0 (as draft 4): a boolean `exclusiveMaximum` makes `maximum` exclusive.
    var maximumIsExclusive = false
    var minimumIsExclusive = false
    var exclusiveMaximum: Double?
    var exclusiveMinimum: Double?

    var isEmpty: Bool {
        multipleOf == nil && maximum == nil && minimum == nil && exclusiveMaximum == nil && exclusiveMinimum == nil
    }
}

/// A class, as `ObjectRules`: read on every string, never copied.
final class StringRules {
    @exclusivity(unchecked) var maxLength: Int?
    @exclusivity(unchecked) var minLength: Int?
    /// `pattern`'s source and its compiled form; nil regex when it does not compile (accepts).
    @exclusivity(unchecked) var pattern: (source: String, regex: LinearRegex?)?
}

/// A class, as `ObjectRules`: read on every value, never copied.
final class ArrayRules {
    /// `prefixItems`, or `items` written as an array.
    @exclusivity(unchecked) var prefix: [Int] = []
    /// What checks the items after the prefix (`items`, or `additionalItems` after a tuple).
    @exclusivity(unchecked) var rest: Int?
    @exclusivity(unchecked) var contains: Int?
    /// `minContains` as a whole number (1 when absent or not one), and whether it is written.
    @exclusivity(unchecked) var minContains = 1
    @exclusivity(unchecked) var writesMinContains = false
    @exclusivity(unchecked) var maxContains: Int?
    @exclusivity(unchecked) var maxItems: Int?
    @exclusivity(unchecked) var minItems: Int?
    @exclusivity(unchecked) var uniqueItems = false
}

/// A class: a check reads it on every object, and copying the struct retained each table.
final class ObjectRules {
    /// `properties` by name, and their names in document order (for "the schema allows ...").
    @exclusivity(unchecked) var properties: [String: Int] = [:]
    @exclusivity(unchecked) var propertyOrder: [String] = []
    /// `properties` and `required` by the UTF-8 bytes of their names, for `JSONTextCheck`.
    @exclusivity(unchecked) var keys = KeyTable()
    @exclusivity(unchecked) var patternProperties: [(regex: LinearRegex, schema: Int)] = []
    @exclusivity(unchecked) var additionalProperties: Int?
    @exclusivity(unchecked) var propertyNames: Int?
    @exclusivity(unchecked) var required: [String] = []
    /// Required properties that need not be there in a request (`readOnly`) or a response
    /// (`writeOnly`): the property's schema, or the one its `$ref` names, says so.
    @exclusivity(unchecked) var readOnlyProperties: Set<String> = []
    @exclusivity(unchecked) var writeOnlyProperties: Set<String> = []
    /// `dependentRequired` (2020-12) and `dependencies` (either form), in document order.
    @exclusivity(unchecked) var dependencies: [Dependency] = []
    @exclusivity(unchecked) var maxProperties: Int?
    @exclusivity(unchecked) var minProperties: Int?

    struct Dependency {
        let name: String
        let keyword: String
        /// The names it requires, or nil when it is a schema (`dependencies` only).
        let required: [String]?
        let schema: Int?
    }
}

/// A class, as `ObjectRules`: read on every value, never copied.
final class Combinators {
    @exclusivity(unchecked) var allOf: [Int] = []
    @exclusivity(unchecked) var anyOf: [Int] = []
    @exclusivity(unchecked) var oneOf: [Int] = []
    @exclusivity(unchecked) var not: Int?
    @exclusivity(unchecked) var condition: Int?
    @exclusivity(unchecked) var then: Int?
    @exclusivity(unchecked) var otherwise: Int?
    @exclusivity(unchecked) var dependentSchemas: [(name: String, schema: Int)] = []
}

/// Property names as UTF-8 bytes, each once with its schema and the `required` entries that name
/// it, for `JSONTextPlan`'s key tables (a JSON text's keys are looked up by their bytes).
struct KeyTable {
    struct Entry {
        let bytes: [UInt8]
        /// The property's schema, when `properties` names it (a name only `required` lists has none).
        var schema: Int?
        /// The bits of the `required` entries (by position) that name it.
        var requiredBits: UInt64
    }

    private(set) var entries: [Entry] = []
    /// Every name is ASCII. Else a key's bytes do not decide: names compare as strings
    /// (canonically: "\u{212A}", the Kelvin sign, is "K"), so the text check gives up.
    private(set) var isASCII = true

    mutating func add(_ name: String, schema: Int?, requiredBit: Int?) {
        let bytes = Array(name.utf8)
        if bytes.contains(where: { $0 >= 0x80 }) { isASCII = false }
        let bits: UInt64 = requiredBit.map { $0 < 64 ? 1 << UInt64($0) : 0 } ?? 0
        if let at = entries.firstIndex(where: { $0.bytes == bytes }) {
            if let schema { entries[at].schema = schema }
            entries[at].requiredBits |= bits
            return
        }
        entries.append(Entry(bytes: bytes, schema: schema, requiredBits: bits))
    }
}
