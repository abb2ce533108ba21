import JSON

/// Makes an example value from a schema when a document gives none: deterministic (the same
/// schema always gives the same bytes), and valid against the schema wherever that is possible.
///
/// - A value the schema offers wins: `const`, then `example` (3.0) or the first of `examples`
///   (3.1), then `default`, then the first of `enum`, each only when it validates.
/// - `allOf` is merged (every part applies), `oneOf`/`anyOf` take one branch, the first whose
///   sample validates against the whole schema, never a merge of branches; a `discriminator`
///   beside them names the branch taken. `type` arrays and `nullable` take the first non-null type.
/// - Objects get every property, optional ones too, so screens show every field; `writeOnly`
///   ones are left out (they are request-only). Arrays get one item, or `minItems`.
/// - Strings follow `format` (date-time, date, uuid, email, uri, ...), `minLength`/`maxLength`
///   and, where one of a few candidates fits, `pattern`; numbers respect minimum, maximum and
///   multipleOf.
/// - A `$ref` that comes back to a schema being sampled is cut there: the optional property or
///   the array item that would recurse is left out. From six levels down (objects and arrays),
///   or past 2,000 values, only required properties and `minItems` items are added, so no
///   schema makes a huge body (a chain of optional references would otherwise nest each one).
/// - What the schema requires is bounded too: one sample holds at most 100,000 values and
///   1 MiB of strings. `minLength: 2000000000` (4.6 GB in 15 s) or three nested
///   `minItems: 1000` (a billion values) are cut there, and `notes` says where: that sample
///   does not satisfy its schema.
package final class SchemaSampler {
    let documents: DocumentSet
    let dialect: SchemaDialect
    let validator: SchemaValidator
    static let maximumDepth = 6
    static let valueBudget = 2_000
    /// Hard bounds on one sample, whatever the schema requires.
    package static let valueLimit = 100_000
    package static let stringBytesLimit = 1 << 20
    /// Branches of a choice always tried; more only while the value budget lasts.
    static let choicesTried = 4
    var remaining = SchemaSampler.valueBudget
    /// Values made and string bytes spent in the current sample, against the hard bounds.
    var valuesMade = 0
    var stringBytes = 0
    /// Where a sample was cut short of what its schema requires, once per schema.
    package private(set) var notes: [DocumentProblem] = []
    private var notedCuts: Set<NodeLocation> = []

    package init(documents: DocumentSet, dialect: SchemaDialect) {
        self.documents = documents
        self.dialect = dialect
        validator = SchemaValidator(documents: documents, dialect: dialect)
    }

    /// A value for the schema; `{}` when the schema admits nothing that can be built.
    package func sample(_ schema: LocatedNode) -> JSONNode {
        // Responses share schemas (every error is `$ref: Error`): a schema is sampled once.
        let key =
            schema.node.members?.count == 1
            ? validator.referencedSchema(schema).flatMap { $0?.location } ?? schema.location : schema.location
        if let known = samples[key] { return known }
        remaining = Self.valueBudget
        valuesMade = 0
        stringBytes = 0
        let value = sample([schema], depth: 0, references: [], chosen: []) ?? .object([])
        samples[key] = value
        return value
    }

    /// Samples made so far, by the schema's location (a lone `$ref` by its target's).
    private var samples: [NodeLocation: JSONNode] = [:]

    /// The schemas that all apply to one value, with every `$ref` and `allOf` expanded.
    struct Conjunction {
        var parts: [LocatedNode] = []
        /// The references expanded on the way down to here: meeting one again is a cycle.
        var references: Set<NodeLocation>
        var unsatisfiable = false
    }

    func sample(
        _ schemas: [LocatedNode],
        depth: Int,
        references: Set<NodeLocation>,
        chosen: Set<NodeLocation>
    ) -> JSONNode? {
        var conjunction = Conjunction(references: references)
        for schema in schemas { expand(schema, into: &conjunction) }
        return sample(conjunction, depth: depth, chosen: chosen)
    }

    /// A value for schemas already expanded. A choice adds its branch to the expanded parts
    /// rather than expanding them again: a part that is a `$ref` with siblings (2020-12) would
    /// otherwise meet its own target as a cycle.
    func sample(_ conjunction: Conjunction, depth: Int, chosen: Set<NodeLocation>) -> JSONNode? {
        guard !conjunction.unsatisfiable else { return nil }
        remaining -= 1
        valuesMade += 1
        let parts = conjunction.parts
        if let offered = offeredValue(parts) { return offered }
        if let (owner, choice) = firstChoice(parts, chosen) {
            return sampleChoice(choice, of: owner, conjunction, depth: depth, chosen: chosen)
        }
        return sampleByType(parts, depth: depth, references: conjunction.references, chosen: chosen)
    }

    /// Adds a schema and what its `$ref` and `allOf` bring; a reference already being expanded
    /// makes the conjunction unsatisfiable here (the caller leaves the value out).
    func expand(_ schema: LocatedNode, into conjunction: inout Conjunction) {
        if let flag = schema.node.bool {
            if !flag { conjunction.unsatisfiable = true }
            return
        }
        guard schema.isObject else { return }
        if let target = validator.referencedSchema(schema) {
            if let target {
                guard conjunction.references.insert(target.location).inserted else {
                    conjunction.unsatisfiable = true
                    return
                }
                expand(target, into: &conjunction)
            }
            if dialect.refReplacesSiblings && schema["$ref"] != nil { return }
        }
        conjunction.parts.append(schema)
        for part in schema["allOf"]?.elements ?? [] { expand(part, into: &conjunction) }
    }

    /// `const`, `example`, the first of `examples`, `default`, the first of `enum`: the first
    /// that every part accepts.
    func offeredValue(_ parts: [LocatedNode]) -> JSONNode? {
        var candidates: [JSONNode] = []
        for part in parts { if let value = part.node["const"] { candidates.append(value) } }
        for part in parts { if let value = part.node["example"] { candidates.append(value) } }
        for part in parts { if let value = part.node["examples"]?.elements?.first { candidates.append(value) } }
        for part in parts { if let value = part.node["default"] { candidates.append(value) } }
        for part in parts { if let value = part.node["enum"]?.elements?.first { candidates.append(value) } }
        return candidates.first { candidate in parts.allSatisfy { validator.isValid(candidate, against: $0) } }
    }

    /// The first `oneOf` or `anyOf` not chosen from yet, with the schema that holds it.
    func firstChoice(_ parts: [LocatedNode], _ chosen: Set<NodeLocation>) -> (LocatedNode, LocatedNode)? {
        for part in parts {
            for keyword in ["oneOf", "anyOf"] {
                if let choice = part[keyword], choice.elements?.isEmpty == false, !chosen.contains(choice.location) {
                    return (part, choice)
                }
            }
        }
        return nil
    }

    /// Samples each branch in turn together with the rest of the schema and keeps the first
    /// that validates against all of it: a branch that admits nothing is passed over, and a
    /// `oneOf` whose first branch also matches the second is skipped. With a `discriminator`
    /// beside the choice, its property names the branch taken (OpenAPI's mapping key, or the
    /// referenced schema's name). Failing all, the first branch's sample, noted as invalid.
    func sampleChoice(
        _ choice: LocatedNode,
        of owner: LocatedNode,
        _ conjunction: Conjunction,
        depth: Int,
        chosen: Set<NodeLocation>
    ) -> JSONNode? {
        var first: JSONNode?
        var chosen = chosen
        chosen.insert(choice.location)
        let discriminator = Discriminator(owner)
        for (index, branch) in (choice.elements ?? []).enumerated() {
            // Past the first few branches, only while the sample's budget lasts: nested choices
            // would otherwise multiply the work.
            if index >= Self.choicesTried && remaining <= 0 { break }
            var extended = conjunction
            expand(branch, into: &extended)
            guard let candidate = sample(extended, depth: depth, chosen: chosen) else { continue }
            if let discriminator, let value = discriminator.value(selecting: branch) {
                let named = Self.setting(discriminator.propertyName, to: .string(value), in: candidate)
                if isValid(named, conjunction.parts) { return named }
            }
            if isValid(candidate, conjunction.parts) { return candidate }
            if first == nil { first = candidate }
        }
        if first != nil {
            note(choice, "no branch of this choice gave a sample that validates against the whole schema")
        }
        return first
    }

    private func isValid(_ candidate: JSONNode, _ parts: [LocatedNode]) -> Bool {
        parts.allSatisfy { validator.isValid(candidate, against: $0) }
    }

    /// An object with `key` set to `value` (replaced where it was, else added first).
    static func setting(_ key: String, to value: JSONNode, in object: JSONNode) -> JSONNode {
        guard var members = object.members else { return object }
        let member = JSONNode.Member(key: key, keyPosition: object.position, value: value)
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index] = member
        } else {
            members.insert(member, at: 0)
        }
        return JSONNode(.object(members), at: object.position)
    }

    /// The type the value will have: one every part allows, the first named, null last.
    func chosenType(_ parts: [LocatedNode]) -> String {
        // An integer is a number: a part allowing numbers accepts it; number meets integer as integer.
        func accepts(_ types: [String], _ type: String) -> Bool {
            types.contains(type) || (type == "integer" && types.contains("number"))
        }
        var allowed: [String]?
        for part in parts {
            guard let typeNode = part.node["type"] else { continue }
            var types = typeNode.string.map { [$0] } ?? typeNode.elements?.compactMap(\.string) ?? []
            if dialect.hasNullable, part.node["nullable"]?.bool == true { types.append("null") }
            allowed =
                allowed.map { known in
                    known.flatMap { type -> [String] in
                        if accepts(types, type) { return [type] }
                        return type == "number" && types.contains("integer") ? ["integer"] : []
                    }
                } ?? types
        }
        if let allowed {
            return allowed.first { $0 != "null" } ?? allowed.first ?? "null"
        }
        let has = { (keyword: String) in parts.contains { $0.node[keyword] != nil } }
        if has("properties") || has("required") || has("additionalProperties") { return "object" }
        if has("items") || has("prefixItems") { return "array" }
        if has("minLength") || has("maxLength") || has("pattern") || has("format") { return "string" }
        if has("minimum") || has("maximum") || has("multipleOf") { return "number" }
        return "object"
    }

    func sampleByType(
        _ parts: [LocatedNode],
        depth: Int,
        references: Set<NodeLocation>,
        chosen: Set<NodeLocation>
    ) -> JSONNode? {
        switch chosenType(parts) {
        case "object": return sampleObject(parts, depth: depth, references: references)
        case "array": return sampleArray(parts, depth: depth, references: references)
        case "string": return .string(sampleString(parts))
        case "integer": return sampleNumber(parts, integer: true)
        case "number": return sampleNumber(parts, integer: false)
        case "boolean": return .bool(true)
        default: return .null
        }
    }

    /// Past the depth or the budget only what the schema requires is added.
    func isConstrained(_ depth: Int) -> Bool { depth >= Self.maximumDepth || remaining <= 0 }

    /// Past the hard bound on values: not even what the schema requires is added.
    var isExhausted: Bool { valuesMade >= Self.valueLimit }

    /// Says, once per schema, that its sample was cut short of what it requires.
    func noteCut(_ schema: LocatedNode?, _ why: String) {
        note(schema, "the sample was cut: \(why)")
    }

    /// Says, once per schema, that the sample made for it does not satisfy it, and why.
    func note(_ schema: LocatedNode?, _ why: String) {
        guard let schema, notedCuts.insert(schema.location).inserted else { return }
        notes.append(
            DocumentProblem(
                .note,
                file: documents.displayName(of: schema.location),
                position: schema.node.position,
                message: "\(why); the example does not satisfy this schema"
            )
        )
    }
}
