import JSON

/// Reading schemas into `CompiledSchema`s, each place once: keywords read into values, every
/// `$ref` resolved (files read now, not while validating), every pattern compiled. Iterative,
/// so a deep document cannot exhaust the stack; a schema reached again (through a `$ref`, or a
/// cycle of them) is the same compiled schema.
extension SchemaValidator {
    /// Keywords whose values are data, not schemas: a `pattern` or `$ref` key inside an example
    /// is not one to follow.
    static let dataKeywords: Set<String> = ["example", "examples", "enum", "const", "default", "x-examples"]

    /// The compiled schema for `schema`, compiling it and everything it reaches on first use.
    package func compile(_ schema: LocatedNode) -> CompiledSchemaID {
        let id = number(for: schema)
        // In the order they were met (the document's, breadth first), so problems read in order.
        while filledCount < compiled.count {
            fill(compiled[filledCount])
            filledCount += 1
        }
        return CompiledSchemaID(index: id)
    }

    /// A compiled schema's number, queueing it when it is new.
    private func number(for schema: LocatedNode) -> Int {
        if let known = compiledIndex[schema.location] { return known }
        let index = compiled.count
        compiled.append(CompiledSchema(source: schema))
        compiledIndex[schema.location] = index
        return index
    }

    private func fill(_ target: CompiledSchema) {
        let schema = target.source
        if let flag = schema.node.bool {
            target.constant = flag
            return
        }
        guard let members = schema.node.members else {
            target.acceptsAnything = true
            return
        }
        // One pass over the members: the last of repeated keys wins, as `LocatedNode[key]` reads.
        var keywords: [String: LocatedNode] = [:]
        keywords.reserveCapacity(members.count)
        for member in members {
            keywords[member.key] = LocatedNode(member.value, schema.location.appending(member.key))
        }
        if keywords["$ref"] != nil {
            target.reference = .some(cachedReference(schema).map(number(for:)))
            if dialect.refReplacesSiblings {
                target.referenceReplacesSiblings = true
                target.appliesInPlace = true
                return
            }
        } else if let dynamic = keywords["$dynamicRef"] {
            // Read as a plain reference: enough for the recursive schemas specs write.
            let member = JSONNode.Member(key: "$ref", keyPosition: dynamic.node.position, value: dynamic.node)
            let synthetic = LocatedNode(JSONNode(.object([member]), at: schema.node.position), schema.location)
            target.reference = .some(documents.resolveReference(of: synthetic).map(number(for:)))
        }
        target.nullable = dialect.hasNullable && keywords["nullable"]?.node.bool == true
        target.readOnly = keywords["readOnly"]?.node.bool == true
        target.writeOnly = keywords["writeOnly"]?.node.bool == true
        if let type = keywords["type"] {
            let names = type.string.map { [$0] } ?? type.node.elements?.compactMap(\.string) ?? []
            target.types = SchemaTypes(names, nullable: target.nullable)
        }
        target.enumValues = keywords["enum"]?.node.elements
        target.enumTexts = target.enumValues?.compactMap { $0.string.map { Array($0.utf8) } } ?? []
        target.constValue = keywords["const"]?.node
        if let format = keywords["format"]?.string, SchemaFormats.isChecked(format) { target.format = format }
        fillNumber(target, keywords)
        fillString(target, keywords)
        fillArray(target, keywords)
        fillObject(target, keywords)
        fillCombinators(target, keywords)
        target.unevaluatedItems = keywords["unevaluatedItems"].map(number(for:))
        target.unevaluatedProperties = keywords["unevaluatedProperties"].map(number(for:))
        if target.unevaluatedItems != nil || target.unevaluatedProperties != nil { tracksAnnotations = true }
        target.appliesInPlace =
            target.reference != nil || target.combinators != nil
            || target.object?.dependencies.contains { $0.schema != nil } == true
    }

    private func fillNumber(_ target: CompiledSchema, _ keywords: [String: LocatedNode]) {
        var rules = NumberRules()
        if let divisor = keywords["multipleOf"]?.node.number?.value, divisor > 0 { rules.multipleOf = divisor }
        rules.maximumIsExclusive = keywords["exclusiveMaximum"]?.node.bool == true
        rules.minimumIsExclusive = keywords["exclusiveMinimum"]?.node.bool == true
        rules.maximum = keywords["maximum"]?.node.number?.value
        rules.minimum = keywords["minimum"]?.node.number?.value
        rules.exclusiveMaximum = keywords["exclusiveMaximum"]?.node.number?.value
        rules.exclusiveMinimum = keywords["exclusiveMinimum"]?.node.number?.value
        if !rules.isEmpty { target.number = rules }
    }

    private func fillString(_ target: CompiledSchema, _ keywords: [String: LocatedNode]) {
        let rules = StringRules()
        rules.maxLength = keywords["maxLength"].flatMap { Self.wholeNumber($0.node) }
        rules.minLength = keywords["minLength"].flatMap { Self.wholeNumber($0.node) }
        if let node = keywords["pattern"], let source = node.string {
            rules.pattern = (source, pattern(source, at: node))
        }
        if rules.maxLength != nil || rules.minLength != nil || rules.pattern != nil { target.string = rules }
    }

    private func fillArray(_ target: CompiledSchema, _ keywords: [String: LocatedNode]) {
        let rules = ArrayRules()
        var used = false
        let items = keywords["items"]
        // `prefixItems` (2020-12), or `items` as an array (the older tuple form, read the same way).
        if let prefix = keywords["prefixItems"]?.elements ?? items?.elements {
            rules.prefix = prefix.map(number(for:))
            used = true
        }
        if let rest = items?.node.elements == nil ? items : keywords["additionalItems"] {
            rules.rest = number(for: rest)
            used = true
        }
        if let contains = keywords["contains"] {
            rules.contains = number(for: contains)
            used = true
        }
        if let minimum = keywords["minContains"] {
            rules.writesMinContains = true
            rules.minContains = Self.wholeNumber(minimum.node) ?? 1
        }
        rules.maxContains = keywords["maxContains"].flatMap { Self.wholeNumber($0.node) }
        rules.maxItems = keywords["maxItems"].flatMap { Self.wholeNumber($0.node) }
        rules.minItems = keywords["minItems"].flatMap { Self.wholeNumber($0.node) }
        rules.uniqueItems = keywords["uniqueItems"]?.node.bool == true
        if used || rules.maxItems != nil || rules.minItems != nil || rules.uniqueItems { target.array = rules }
    }

    private func fillObject(_ target: CompiledSchema, _ keywords: [String: LocatedNode]) {
        let rules = ObjectRules()
        var used = false
        if let properties = keywords["properties"], let members = properties.members {
            used = true
            for (name, value) in members {
                rules.properties[name] = number(for: value)
                rules.propertyOrder.append(name)
            }
            // In document order: resolving a reference may report a problem, and problems read in order.
            for name in rules.propertyOrder where rules.properties[name] != nil {
                guard let property = properties[name] else { continue }
                let resolved = property.node["$ref"] != nil ? cachedReference(property) : property
                func says(_ keyword: String) -> Bool {
                    resolved?[keyword]?.node.bool == true || property[keyword]?.node.bool == true
                }
                if says("readOnly") { rules.readOnlyProperties.insert(name) }
                if says("writeOnly") { rules.writeOnlyProperties.insert(name) }
            }
        }
        for (source, value) in keywords["patternProperties"]?.members ?? [] {
            used = true
            if let regex = pattern(source, at: value) {
                rules.patternProperties.append((regex, number(for: value)))
            }
        }
        if let additional = keywords["additionalProperties"] {
            rules.additionalProperties = number(for: additional)
            used = true
        }
        if let names = keywords["propertyNames"] {
            rules.propertyNames = number(for: names)
            used = true
        }
        if let required = keywords["required"]?.node.elements?.compactMap(\.string), !required.isEmpty {
            rules.required = required
            used = true
        }
        for keyword in ["dependentRequired", "dependencies"] {
            for (name, dependency) in keywords[keyword]?.members ?? [] {
                if let needed = dependency.node.elements?.compactMap(\.string) {
                    rules.dependencies.append(.init(name: name, keyword: keyword, required: needed, schema: nil))
                } else if keyword == "dependencies" {
                    rules.dependencies.append(
                        .init(name: name, keyword: keyword, required: nil, schema: number(for: dependency))
                    )
                }
                used = true
            }
        }
        for name in rules.propertyOrder { rules.keys.add(name, schema: rules.properties[name], requiredBit: nil) }
        for (i, name) in rules.required.enumerated() { rules.keys.add(name, schema: nil, requiredBit: i) }
        rules.maxProperties = keywords["maxProperties"].flatMap { Self.wholeNumber($0.node) }
        rules.minProperties = keywords["minProperties"].flatMap { Self.wholeNumber($0.node) }
        if used || rules.maxProperties != nil || rules.minProperties != nil { target.object = rules }
    }

    private func fillCombinators(_ target: CompiledSchema, _ keywords: [String: LocatedNode]) {
        let rules = Combinators()
        rules.allOf = keywords["allOf"]?.elements?.map(number(for:)) ?? []
        rules.anyOf = keywords["anyOf"]?.elements?.map(number(for:)) ?? []
        rules.oneOf = keywords["oneOf"]?.elements?.map(number(for:)) ?? []
        rules.not = keywords["not"].map(number(for:))
        rules.condition = keywords["if"].map(number(for:))
        if rules.condition != nil {
            rules.then = keywords["then"].map(number(for:))
            rules.otherwise = keywords["else"].map(number(for:))
        }
        rules.dependentSchemas = (keywords["dependentSchemas"]?.members ?? []).map { ($0.key, number(for: $0.value)) }
        let used =
            !rules.allOf.isEmpty || !rules.anyOf.isEmpty || !rules.oneOf.isEmpty || rules.not != nil
            || rules.condition != nil || !rules.dependentSchemas.isEmpty
        if used { target.combinators = rules }
    }

    /// A `$ref`'s target, resolved once per place.
    func cachedReference(_ schema: LocatedNode) -> LocatedNode? {
        if let known = references[schema.location] { return known }
        let target = documents.resolveReference(of: schema)
        references[schema.location] = .some(target)
        return target
    }

    /// A non-negative whole number keyword (`minLength`, `maxItems`); nil for anything else.
    static func wholeNumber(_ node: JSONNode) -> Int? {
        guard let n = node.number?.value, n >= 0, n.rounded() == n, n < 1e15 else { return nil }
        return Int(n)
    }
}
