import JSON

/// The keywords on arrays and objects, and the unevaluated ones that run after the rest.
extension SchemaRun {
    mutating func checkArray(
        _ elements: [JSONNode],
        _ instance: JSONNode,
        _ rules: ArrayRules,
        _ schema: CompiledSchema,
        _ path: String,
        _ level: Int,
        _ result: inout SchemaEvaluation
    ) {
        let prefix = rules.prefix
        for (i, sub) in prefix.enumerated() where i < elements.count {
            result.absorbFailures(evaluate(elements[i], sub, child(path, i), level: level + 1))
            if !collecting && result.failed { return }
        }
        result.evaluatedItemPrefix = max(result.evaluatedItemPrefix, min(prefix.count, elements.count))
        if let rest = rules.rest, prefix.count < elements.count {
            let forbidden = schemas[rest].constant == false
            for i in prefix.count..<elements.count {
                if forbidden {
                    fail(
                        &result,
                        elements[i],
                        child(path, i),
                        schemas[rest],
                        nil,
                        "item \(i) is not allowed here: the schema allows \(SchemaWording.plural(prefix.count, "item"))"
                    )
                } else {
                    result.absorbFailures(evaluate(elements[i], rest, child(path, i), level: level + 1))
                }
                if !collecting && result.failed { return }
            }
            result.evaluatedAllItems = true
        }
        if let contains = rules.contains {
            let matching = elements.indices.filter {
                decide(elements[$0], contains, child(path, $0), level: level + 1).isValid
            }
            if matching.count < rules.minContains {
                let keyword: String? = rules.writesMinContains ? "minContains" : nil
                fail(
                    &result,
                    instance,
                    path,
                    rules.writesMinContains ? schema : schemas[contains],
                    keyword,
                    """
                    expected at least \(SchemaWording.plural(rules.minContains, "item")) matching \"contains\", found \
                    \(matching.count)
                    """
                )
                if !collecting { return }
            }
            if let maximum = rules.maxContains, matching.count > maximum {
                fail(
                    &result,
                    instance,
                    path,
                    schema,
                    "maxContains",
                    """
                    expected at most \(SchemaWording.plural(maximum, "item")) matching \"contains\", found \
                    \(matching.count)
                    """
                )
                if !collecting { return }
            }
            if tracksAnnotations { result.evaluatedItemIndexes.formUnion(matching) }
        }
        if let bound = rules.maxItems, elements.count > bound {
            fail(
                &result,
                instance,
                path,
                schema,
                "maxItems",
                "expected at most \(SchemaWording.plural(bound, "item")), found \(elements.count)"
            )
            if !collecting { return }
        }
        if let bound = rules.minItems, elements.count < bound {
            fail(
                &result,
                instance,
                path,
                schema,
                "minItems",
                "expected at least \(SchemaWording.plural(bound, "item")), found \(elements.count)"
            )
            if !collecting { return }
        }
        if rules.uniqueItems {
            var firstIndex: [String: Int] = [:]
            for (i, element) in elements.enumerated() {
                let key = Self.canonicalKey(element)
                if let earlier = firstIndex[key] {
                    fail(
                        &result,
                        element,
                        child(path, i),
                        schema,
                        "uniqueItems",
                        "items \(earlier) and \(i) are equal; the items must be unique"
                    )
                    break
                }
                firstIndex[key] = i
            }
        }
    }

    mutating func checkObject(
        _ members: [JSONNode.Member],
        _ instance: JSONNode,
        _ rules: ObjectRules,
        _ schema: CompiledSchema,
        _ path: String,
        _ level: Int,
        _ result: inout SchemaEvaluation
    ) {
        let additional = rules.additionalProperties
        for member in members {
            let memberPath = child(path, member.key)
            var covered = false
            if let sub = rules.properties[member.key] {
                result.absorbFailures(evaluate(member.value, sub, memberPath, level: level + 1))
                covered = true
            }
            for entry in rules.patternProperties where entry.regex.firstMatch(in: member.key) != nil {
                result.absorbFailures(evaluate(member.value, entry.schema, memberPath, level: level + 1))
                covered = true
            }
            if covered {
                if tracksAnnotations { result.evaluatedProperties.insert(member.key) }
            } else if let additional {
                if schemas[additional].constant == false {
                    fail(
                        &result,
                        member.value,
                        memberPath,
                        schemas[additional],
                        nil,
                        "property \"\(member.key)\" is not allowed here (additionalProperties is false"
                            + Self.allowedHint(rules.propertyOrder) + ")",
                        position: member.keyPosition
                    )
                } else {
                    result.absorbFailures(evaluate(member.value, additional, memberPath, level: level + 1))
                }
                if tracksAnnotations { result.evaluatedProperties.insert(member.key) }
            }
            if !collecting && result.failed { return }
        }
        if let names = rules.propertyNames {
            for member in members {
                let name = JSONNode(.string(member.key), at: member.keyPosition)
                let evaluation = evaluate(name, names, child(path, member.key), level: level + 1)
                guard evaluation.failed else { continue }
                guard collecting else {
                    result.failed = true
                    return
                }
                for failure in evaluation.failures {
                    record(
                        &result,
                        name,
                        failure.instancePath,
                        failure.schemaLocation,
                        "property name \(failure.message)",
                        position: member.keyPosition
                    )
                }
            }
        }
        for name in rules.required where !Self.has(members, name) && !isExempt(name, rules) {
            fail(&result, instance, path, schema, "required", "missing required property \"\(name)\"")
            if !collecting { return }
        }
        for dependency in rules.dependencies where Self.has(members, dependency.name) {
            if let needed = dependency.required {
                for other in needed where !Self.has(members, other) {
                    let location = schema.location(dependency.keyword).appending(dependency.name)
                    result.failed = true
                    if collecting {
                        record(
                            &result,
                            instance,
                            path,
                            location,
                            "\"\(dependency.name)\" is present, so \"\(other)\" is required too"
                        )
                    }
                }
            } else if let sub = dependency.schema {
                result.absorb(evaluate(instance, sub, path, level: level))
            }
            if !collecting && result.failed { return }
        }
        if let bound = rules.maxProperties, members.count > bound {
            fail(
                &result,
                instance,
                path,
                schema,
                "maxProperties",
                "expected at most \(SchemaWording.plural(bound, "property")), found \(members.count)"
            )
            if !collecting { return }
        }
        if let bound = rules.minProperties, members.count < bound {
            fail(
                &result,
                instance,
                path,
                schema,
                "minProperties",
                "expected at least \(SchemaWording.plural(bound, "property")), found \(members.count)"
            )
        }
    }

    /// "; the schema allows a, b", or nothing when it names no properties.
    private static func allowedHint(_ allowed: [String]) -> String {
        guard !allowed.isEmpty else { return "" }
        return "; the schema allows " + allowed.prefix(12).joined(separator: ", ") + (allowed.count > 12 ? ", ..." : "")
    }

    private static func has(_ members: [JSONNode.Member], _ name: String) -> Bool {
        members.contains { $0.key == name }
    }

    mutating func checkUnevaluatedItems(
        _ elements: [JSONNode],
        _ sub: Int,
        _ path: String,
        _ level: Int,
        _ result: inout SchemaEvaluation
    ) {
        for i in elements.indices where !result.isItemEvaluated(i) {
            if schemas[sub].constant == false {
                fail(
                    &result,
                    elements[i],
                    child(path, i),
                    schemas[sub],
                    nil,
                    "item \(i) is not allowed here (unevaluatedItems is false)"
                )
            } else {
                result.absorbFailures(evaluate(elements[i], sub, child(path, i), level: level + 1))
            }
            if !collecting && result.failed { return }
        }
        result.evaluatedAllItems = true
    }

    mutating func checkUnevaluatedProperties(
        _ members: [JSONNode.Member],
        _ sub: Int,
        _ path: String,
        _ level: Int,
        _ result: inout SchemaEvaluation
    ) {
        for member in members where !result.evaluatedProperties.contains(member.key) {
            let memberPath = child(path, member.key)
            if schemas[sub].constant == false {
                fail(
                    &result,
                    member.value,
                    memberPath,
                    schemas[sub],
                    nil,
                    "property \"\(member.key)\" is not allowed here (unevaluatedProperties is false)",
                    position: member.keyPosition
                )
            } else {
                result.absorbFailures(evaluate(member.value, sub, memberPath, level: level + 1))
            }
            if !collecting && result.failed { return }
            result.evaluatedProperties.insert(member.key)
        }
    }

    /// Equal values give equal keys: numbers by value (1 and 1.0), objects whatever their key order.
    static func canonicalKey(_ node: JSONNode) -> String {
        switch node.value {
        case .null: return "n"
        case .bool(let b): return b ? "t" : "f"
        case .number(let n): return "#\(n.value)"
        case .string(let s): return JSONSerializer.quoted(s)
        case .array(let elements): return "[" + elements.map(canonicalKey).joined(separator: ",") + "]"
        case .object(let members):
            return "{"
                + members.sorted { $0.key < $1.key }.map {
                    JSONSerializer.quoted($0.key) + ":" + canonicalKey($0.value)
                }.joined(separator: ",") + "}"
        }
    }

    /// A required property that need not be there on this side of the exchange: `readOnly`
    /// in a request, `writeOnly` in a response (OpenAPI 3.0 and 3.1 both say so).
    private func isExempt(_ name: String, _ rules: ObjectRules) -> Bool {
        switch direction {
        case .any: false
        case .request: rules.readOnlyProperties.contains(name)
        case .response: rules.writeOnlyProperties.contains(name)
        }
    }
}
