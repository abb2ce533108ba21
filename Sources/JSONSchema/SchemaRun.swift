import JSON

/// One validation over compiled schemas. Not `collecting`, it only decides whether the value is
/// valid: it stops at the first failure and builds no path, location or message. `collecting`,
/// it records every failure as a finding; the validator runs that only for a value already
/// known to be invalid. Subschemas that only decide (`not`, `if`, `contains`, the branches of
/// `anyOf` and `oneOf`) run without collecting in either mode.
struct SchemaRun {
    let schemas: [CompiledSchema]
    let acceptsTemplateStrings: Bool
    let checksFormats: Bool
    let direction: SchemaValidator.Direction
    let tracksAnnotations: Bool
    var collecting: Bool
    /// Schemas being applied in place, with the depth of the value they apply to: meeting one
    /// again at the same depth is a schema that reapplies itself to one value, cut there.
    private var active: [(schema: Int, level: Int)] = []
    private var depth = 0

    init(validator: SchemaValidator, collecting: Bool) {
        schemas = validator.compiled
        acceptsTemplateStrings = validator.acceptsTemplateStrings
        checksFormats = validator.checksFormats
        direction = validator.direction
        tracksAnnotations = validator.tracksAnnotations
        self.collecting = collecting
    }

    /// `level` is the depth of `instance` in the value validated (0 for the whole value).
    mutating func evaluate(_ instance: JSONNode, _ index: Int, _ path: String, level: Int) -> SchemaEvaluation {
        let schema = schemas[index]
        var result = SchemaEvaluation()
        if let flag = schema.constant {
            if !flag {
                fail(&result, instance, path, schema, nil, "no value is allowed here (the schema is false)")
            }
            return result
        }
        if schema.acceptsAnything { return result }
        if acceptsTemplateStrings, let s = instance.string, s.contains("{{") { return result }
        guard depth < SchemaValidator.maximumDepth else { return result }
        // Only a schema that applies others in place can come back to itself on one value.
        let appliesInPlace = schema.appliesInPlace
        if appliesInPlace {
            for entry in active.reversed() {
                if entry.level < level { break }
                if entry.schema == index { return result }
            }
            active.append((index, level))
        }
        depth += 1
        defer {
            depth -= 1
            if appliesInPlace { active.removeLast() }
        }

        if let reference = schema.reference {
            if let target = reference { result.absorb(evaluate(instance, target, path, level: level)) }
            if schema.referenceReplacesSiblings || (!collecting && result.failed) { return result }
        }
        if schema.nullable, case .null = instance.value { return result }
        if let types = schema.types, !types.admits(instance.value) {
            fail(
                &result,
                instance,
                path,
                schema,
                "type",
                "expected \(SchemaWording.types(types.names)), found \(instance.kindDescription)"
            )
            if !collecting { return result }
        }
        if schema.enumValues != nil || schema.constValue != nil {
            checkValues(instance, schema, path, &result)
            if !collecting && result.failed { return result }
        }
        switch instance.value {
        case .number(let n):
            if schema.number != nil || (schema.format != nil && checksFormats) {
                checkNumber(n.value, instance, schema, path, &result)
            }
        case .string(let s):
            if schema.string != nil || (schema.format != nil && checksFormats) {
                checkString(s, instance, schema, path, &result)
            }
        case .array(let elements):
            if let rules = schema.array { checkArray(elements, instance, rules, schema, path, level, &result) }
        case .object(let members):
            if let rules = schema.object { checkObject(members, instance, rules, schema, path, level, &result) }
        default: break
        }
        if !collecting && result.failed { return result }
        if let combinators = schema.combinators {
            applyCombinators(instance, combinators, schema, path, level, &result)
            if !collecting && result.failed { return result }
        }
        // After every in-place applicator: they decide what counts as evaluated.
        if let sub = schema.unevaluatedItems, case .array(let elements) = instance.value {
            checkUnevaluatedItems(elements, sub, path, level, &result)
        }
        if let sub = schema.unevaluatedProperties, case .object(let members) = instance.value {
            checkUnevaluatedProperties(members, sub, path, level, &result)
        }
        return result
    }

    /// Whether `instance` is valid against a subschema, whatever the mode; with its annotations.
    mutating func decide(_ instance: JSONNode, _ index: Int, _ path: String, level: Int) -> SchemaEvaluation {
        let mode = collecting
        collecting = false
        defer { collecting = mode }
        return evaluate(instance, index, path, level: level)
    }

    /// Records a failure: when collecting, with the value's path and the keyword's location.
    func fail(
        _ result: inout SchemaEvaluation,
        _ instance: JSONNode,
        _ path: String,
        _ schema: CompiledSchema,
        _ keyword: String?,
        _ message: @autoclosure () -> String,
        position: SourcePosition? = nil
    ) {
        result.failed = true
        guard collecting else { return }
        let location = keyword.map(schema.location) ?? schema.source.location
        record(&result, instance, path, location, message(), position: position)
    }

    func record(
        _ result: inout SchemaEvaluation,
        _ instance: JSONNode,
        _ path: String,
        _ location: NodeLocation,
        _ message: String,
        position: SourcePosition? = nil
    ) {
        result.failed = true
        result.failures.append(
            SchemaFailure(
                instancePath: path,
                position: position ?? instance.position,
                schemaLocation: location,
                message: message
            )
        )
    }

    /// A member's or an item's path, built only when collecting.
    func child(_ path: String, _ key: String) -> String { collecting ? SchemaWording.child(path, key) : path }
    func child(_ path: String, _ index: Int) -> String { collecting ? SchemaWording.child(path, index) : path }

    // MARK: allOf, anyOf, oneOf, not, if/then/else, dependentSchemas

    private mutating func applyCombinators(
        _ instance: JSONNode,
        _ rules: Combinators,
        _ schema: CompiledSchema,
        _ path: String,
        _ level: Int,
        _ result: inout SchemaEvaluation
    ) {
        for sub in rules.allOf {
            result.absorb(evaluate(instance, sub, path, level: level))
            if !collecting && result.failed { return }
        }
        if !rules.anyOf.isEmpty {
            var matched = false
            for branch in rules.anyOf {
                let evaluation = decide(instance, branch, path, level: level)
                guard evaluation.isValid else { continue }
                matched = true
                result.absorbAnnotations(evaluation)
                // Every valid branch's annotations count; without annotations, one is enough.
                if !tracksAnnotations { break }
            }
            if !matched {
                let message = noneMatched("anyOf", rules.anyOf, instance, path, level)
                fail(&result, instance, path, schema, "anyOf", message)
                if !collecting { return }
            }
        }
        if !rules.oneOf.isEmpty {
            var valid: [Int] = []
            var annotations = SchemaEvaluation()
            for (i, branch) in rules.oneOf.enumerated() {
                let evaluation = decide(instance, branch, path, level: level)
                guard evaluation.isValid else { continue }
                valid.append(i)
                annotations = evaluation
                // A second match already fails; the message names every one.
                if valid.count > 1 && !collecting { break }
            }
            if valid.count == 1 {
                result.absorbAnnotations(annotations)
            } else if valid.isEmpty {
                let message = noneMatched("oneOf", rules.oneOf, instance, path, level)
                fail(&result, instance, path, schema, "oneOf", message)
                if !collecting { return }
            } else {
                let places = valid.map { schemas[rules.oneOf[$0]].source.location.description }
                fail(
                    &result,
                    instance,
                    path,
                    schema,
                    "oneOf",
                    """
                    matches \(valid.count) of oneOf's \(rules.oneOf.count) schemas \
                    (\(places.joined(separator: ", "))); exactly one must match
                    """
                )
                if !collecting { return }
            }
        }
        if let not = rules.not, decide(instance, not, path, level: level).isValid {
            fail(&result, instance, path, schema, "not", "matches the schema under \"not\", which it must not")
            if !collecting { return }
        }
        if let condition = rules.condition {
            let test = decide(instance, condition, path, level: level)
            result.absorbAnnotations(test)
            if let branch = test.isValid ? rules.then : rules.otherwise {
                result.absorb(evaluate(instance, branch, path, level: level))
                if !collecting && result.failed { return }
            }
        }
        if case .object(let members) = instance.value {
            for (name, sub) in rules.dependentSchemas where members.contains(where: { $0.key == name }) {
                result.absorb(evaluate(instance, sub, path, level: level))
                if !collecting && result.failed { return }
            }
        }
    }

    /// "matches none of anyOf's 2 schemas (closest, #/...: missing required property "id")".
    /// Only on the failure path: the branches are walked again, collecting.
    private mutating func noneMatched(
        _ keyword: String,
        _ branches: [Int],
        _ instance: JSONNode,
        _ path: String,
        _ level: Int
    ) -> String {
        var message = "matches none of \(keyword)'s \(SchemaWording.plural(branches.count, "schema"))"
        guard collecting else { return message }
        let evaluations = branches.map { evaluate(instance, $0, path, level: level) }
        // A choice of another type entirely is further than one that fails on a detail.
        func distance(_ evaluation: SchemaEvaluation) -> Int {
            evaluation.failures.count
                + (evaluation.failures.contains { $0.schemaLocation.pointer.hasSuffix("/type") } ? 1_000 : 0)
        }
        if let closest = evaluations.indices.min(by: { distance(evaluations[$0]) < distance(evaluations[$1]) }),
            let first = evaluations[closest].failures.first
        {
            let place = first.instancePath == "$" ? "" : first.instancePath + ": "
            message += " (closest, \(schemas[branches[closest]].source.location): \(place)\(first.message))"
        }
        return message
    }
}
