#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON

/// The keywords on arrays and objects, and the unevaluated ones that run after the rest.
extension SchemaValidator {
    func checkArray(
        _ elements: [JSONNode],
        _ instance: JSONNode,
        _ schema: LocatedNode,
        _ path: String,
        _ result: inout SchemaEvaluation
    ) {
        // `prefixItems` (2020-12), or `items` as an array (the older tuple form, read the same way).
        let itemsNode = schema["items"]
        let prefix = schema["prefixItems"]?.elements ?? itemsNode?.elements ?? []
        for (i, sub) in prefix.enumerated() where i < elements.count {
            result.failures += evaluate(elements[i], sub, SchemaWording.child(path, i)).failures
        }
        result.evaluatedItemPrefix = max(result.evaluatedItemPrefix, min(prefix.count, elements.count))
        let rest = itemsNode?.elements == nil ? itemsNode : schema["additionalItems"]
        if let rest, prefix.count < elements.count {
            for i in prefix.count..<elements.count {
                if rest.node.bool == false {
                    fail(
                        &result,
                        elements[i],
                        SchemaWording.child(path, i),
                        rest.location,
                        "item \(i) is not allowed here: the schema allows \(SchemaWording.plural(prefix.count, "item"))"
                    )
                } else {
                    result.failures += evaluate(elements[i], rest, SchemaWording.child(path, i)).failures
                }
            }
            result.evaluatedAllItems = true
        }
        if let contains = schema["contains"] {
            let matching = elements.indices.filter {
                evaluate(elements[$0], contains, SchemaWording.child(path, $0)).isValid
            }
            let minimum = schema["minContains"].flatMap { Self.wholeNumber($0.node) } ?? 1
            if matching.count < minimum {
                fail(
                    &result,
                    instance,
                    path,
                    schema["minContains"]?.location ?? contains.location,
                    """
                    expected at least \(SchemaWording.plural(minimum, "item")) matching \"contains\", found \
                    \(matching.count)
                    """
                )
            }
            if let maximumNode = schema["maxContains"], let maximum = Self.wholeNumber(maximumNode.node),
                matching.count > maximum
            {
                fail(
                    &result,
                    instance,
                    path,
                    maximumNode.location,
                    """
                    expected at most \(SchemaWording.plural(maximum, "item")) matching \"contains\", found \
                    \(matching.count)
                    """
                )
            }
            result.evaluatedItemIndexes.formUnion(matching)
        }
        if let maximum = schema["maxItems"], let bound = Self.wholeNumber(maximum.node), elements.count > bound {
            fail(
                &result,
                instance,
                path,
                maximum.location,
                "expected at most \(SchemaWording.plural(bound, "item")), found \(elements.count)"
            )
        }
        if let minimum = schema["minItems"], let bound = Self.wholeNumber(minimum.node), elements.count < bound {
            fail(
                &result,
                instance,
                path,
                minimum.location,
                "expected at least \(SchemaWording.plural(bound, "item")), found \(elements.count)"
            )
        }
        if let unique = schema["uniqueItems"], unique.node.bool == true {
            var firstIndex: [String: Int] = [:]
            for (i, element) in elements.enumerated() {
                let key = Self.canonicalKey(element)
                if let earlier = firstIndex[key] {
                    fail(
                        &result,
                        element,
                        SchemaWording.child(path, i),
                        unique.location,
                        "items \(earlier) and \(i) are equal; the items must be unique"
                    )
                    break
                }
                firstIndex[key] = i
            }
        }
    }

    func checkObject(
        _ members: [JSONNode.Member],
        _ instance: JSONNode,
        _ schema: LocatedNode,
        _ path: String,
        _ result: inout SchemaEvaluation
    ) {
        let properties = schema["properties"]
        let patternProperties = (schema["patternProperties"]?.members ?? []).compactMap { entry in
            pattern(entry.key, at: entry.value).map { (regex: $0, schema: entry.value) }
        }
        let additional = schema["additionalProperties"]
        for member in members {
            let memberPath = SchemaWording.child(path, member.key)
            var covered = false
            if let sub = properties?[member.key] {
                result.failures += evaluate(member.value, sub, memberPath).failures
                covered = true
            }
            for entry in patternProperties where matches(entry.regex, member.key) {
                result.failures += evaluate(member.value, entry.schema, memberPath).failures
                covered = true
            }
            if covered {
                result.evaluatedProperties.insert(member.key)
            } else if let additional {
                if additional.node.bool == false {
                    let allowed = properties?.node.members?.map(\.key) ?? []
                    let hint =
                        allowed.isEmpty
                        ? ""
                        : "; the schema allows " + allowed.prefix(12).joined(separator: ", ")
                            + (allowed.count > 12 ? ", ..." : "")
                    fail(
                        &result,
                        member.value,
                        memberPath,
                        additional.location,
                        "property \"\(member.key)\" is not allowed here (additionalProperties is false\(hint))",
                        position: member.keyPosition
                    )
                } else {
                    result.failures += evaluate(member.value, additional, memberPath).failures
                }
                result.evaluatedProperties.insert(member.key)
            }
        }
        if let names = schema["propertyNames"] {
            for member in members {
                let name = JSONNode(.string(member.key), at: member.keyPosition)
                for failure in evaluate(name, names, SchemaWording.child(path, member.key)).failures {
                    fail(
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
        let present = Set(members.map(\.key))
        if let required = schema["required"], let names = required.node.elements?.compactMap(\.string) {
            for name in names where !present.contains(name) && !isExempt(name, in: schema) {
                fail(&result, instance, path, required.location, "missing required property \"\(name)\"")
            }
        }
        // `dependentRequired` (2020-12) and `dependencies` (drafts before it, either form).
        for keyword in ["dependentRequired", "dependencies"] {
            for (name, dependency) in schema[keyword]?.members ?? [] where present.contains(name) {
                if let needed = dependency.node.elements?.compactMap(\.string) {
                    for other in needed where !present.contains(other) {
                        fail(
                            &result,
                            instance,
                            path,
                            dependency.location,
                            "\"\(name)\" is present, so \"\(other)\" is required too"
                        )
                    }
                } else if keyword == "dependencies" {
                    result.absorb(evaluate(instance, dependency, path))
                }
            }
        }
        if let maximum = schema["maxProperties"], let bound = Self.wholeNumber(maximum.node), members.count > bound {
            fail(
                &result,
                instance,
                path,
                maximum.location,
                "expected at most \(SchemaWording.plural(bound, "property")), found \(members.count)"
            )
        }
        if let minimum = schema["minProperties"], let bound = Self.wholeNumber(minimum.node), members.count < bound {
            fail(
                &result,
                instance,
                path,
                minimum.location,
                "expected at least \(SchemaWording.plural(bound, "property")), found \(members.count)"
            )
        }
    }

    func checkUnevaluatedItems(
        _ elements: [JSONNode],
        _ schema: LocatedNode,
        _ path: String,
        _ result: inout SchemaEvaluation
    ) {
        guard let sub = schema["unevaluatedItems"] else { return }
        for i in elements.indices where !result.isItemEvaluated(i) {
            if sub.node.bool == false {
                fail(
                    &result,
                    elements[i],
                    SchemaWording.child(path, i),
                    sub.location,
                    "item \(i) is not allowed here (unevaluatedItems is false)"
                )
            } else {
                result.failures += evaluate(elements[i], sub, SchemaWording.child(path, i)).failures
            }
        }
        result.evaluatedAllItems = true
    }

    func checkUnevaluatedProperties(
        _ members: [JSONNode.Member],
        _ schema: LocatedNode,
        _ path: String,
        _ result: inout SchemaEvaluation
    ) {
        guard let sub = schema["unevaluatedProperties"] else { return }
        for member in members where !result.evaluatedProperties.contains(member.key) {
            let memberPath = SchemaWording.child(path, member.key)
            if sub.node.bool == false {
                fail(
                    &result,
                    member.value,
                    memberPath,
                    sub.location,
                    "property \"\(member.key)\" is not allowed here (unevaluatedProperties is false)",
                    position: member.keyPosition
                )
            } else {
                result.failures += evaluate(member.value, sub, memberPath).failures
            }
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
    func isExempt(_ name: String, in schema: LocatedNode) -> Bool {
        let keyword: String
        switch direction {
        case .any: return false
        case .request: keyword = "readOnly"
        case .response: keyword = "writeOnly"
        }
        guard let property = schema["properties"]?[name] else { return false }
        let resolved = property.node["$ref"] != nil ? cachedReference(property) : property
        return resolved?[keyword]?.node.bool == true || property[keyword]?.node.bool == true
    }
}
