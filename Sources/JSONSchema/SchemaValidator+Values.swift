#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON

/// The keywords on one value: type, enum, const, numbers, strings, formats.
extension SchemaValidator {
    func checkType(_ instance: JSONNode, _ schema: LocatedNode, _ path: String, _ result: inout SchemaEvaluation) {
        guard let typeNode = schema["type"] else { return }
        var types = typeNode.string.map { [$0] } ?? typeNode.node.elements?.compactMap(\.string) ?? []
        guard !types.isEmpty else { return }
        if dialect.hasNullable, schema["nullable"]?.node.bool == true, !types.contains("null") { types.append("null") }
        guard !types.contains(where: { Self.value(instance, hasType: $0) }) else { return }
        fail(
            &result,
            instance,
            path,
            typeNode.location,
            "expected \(SchemaWording.types(types)), found \(instance.kindDescription)"
        )
    }

    /// Whether a value is of a JSON Schema type. `integer` is any number with no fraction
    /// (`1.0` too, as 2020-12 says); an unknown type name accepts anything.
    static func value(_ instance: JSONNode, hasType type: String) -> Bool {
        switch (type, instance.value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
            ("number", .number):
            return true
        case ("integer", .number(let n)):
            return n.value.isFinite && n.value.rounded() == n.value
        case ("null", _), ("boolean", _), ("string", _), ("array", _), ("object", _), ("number", _), ("integer", _):
            return false
        default:
            return true
        }
    }

    func checkValues(_ instance: JSONNode, _ schema: LocatedNode, _ path: String, _ result: inout SchemaEvaluation) {
        if let enumNode = schema["enum"], let values = enumNode.node.elements,
            !values.contains(where: { $0.equals(instance) })
        {
            let shown =
                values.prefix(6).map(SchemaWording.value).joined(separator: ", ") + (values.count > 6 ? ", ..." : "")
            fail(
                &result,
                instance,
                path,
                enumNode.location,
                "expected one of \(shown), found \(SchemaWording.value(instance))"
            )
        }
        if let constNode = schema["const"], !constNode.node.equals(instance) {
            fail(
                &result,
                instance,
                path,
                constNode.location,
                "expected exactly \(SchemaWording.value(constNode.node)), found \(SchemaWording.value(instance))"
            )
        }
    }

    func checkNumber(_ instance: JSONNode, _ schema: LocatedNode, _ path: String, _ result: inout SchemaEvaluation) {
        guard let n = instance.number?.value else { return }
        let shown = SchemaWording.number(instance)
        if let multiple = schema["multipleOf"], let divisor = multiple.node.number?.value, divisor > 0 {
            let quotient = n / divisor
            // Relative tolerance: 0.3 is a multiple of 0.1, whatever binary floating point says.
            if !quotient.isFinite || abs(quotient - quotient.rounded()) > 1e-9 * max(1, abs(quotient)) {
                fail(
                    &result,
                    instance,
                    path,
                    multiple.location,
                    "expected a multiple of \(SchemaWording.number(multiple.node)), found \(shown)"
                )
            }
        }
        // OpenAPI 3.0 (as draft 4): a boolean exclusiveMaximum makes maximum exclusive.
        let booleanExclusiveMax = schema["exclusiveMaximum"]?.node.bool == true
        let booleanExclusiveMin = schema["exclusiveMinimum"]?.node.bool == true
        if let maximum = schema["maximum"], let bound = maximum.node.number?.value {
            if booleanExclusiveMax ? n >= bound : n > bound {
                fail(
                    &result,
                    instance,
                    path,
                    maximum.location,
                    """
                    expected \(booleanExclusiveMax ? "less than" : "at most") \
                    \(SchemaWording.number(maximum.node)), found \(shown)
                    """
                )
            }
        }
        if let minimum = schema["minimum"], let bound = minimum.node.number?.value {
            if booleanExclusiveMin ? n <= bound : n < bound {
                fail(
                    &result,
                    instance,
                    path,
                    minimum.location,
                    """
                    expected \(booleanExclusiveMin ? "more than" : "at least") \
                    \(SchemaWording.number(minimum.node)), found \(shown)
                    """
                )
            }
        }
        if let exclusive = schema["exclusiveMaximum"], let bound = exclusive.node.number?.value, n >= bound {
            fail(
                &result,
                instance,
                path,
                exclusive.location,
                "expected less than \(SchemaWording.number(exclusive.node)), found \(shown)"
            )
        }
        if let exclusive = schema["exclusiveMinimum"], let bound = exclusive.node.number?.value, n <= bound {
            fail(
                &result,
                instance,
                path,
                exclusive.location,
                "expected more than \(SchemaWording.number(exclusive.node)), found \(shown)"
            )
        }
        if checksFormats, let format = schema["format"], let name = format.string,
            let problem = SchemaFormats.check(number: n, format: name)
        {
            fail(&result, instance, path, format.location, "\(shown) \(problem)")
        }
    }

    func checkString(
        _ s: String,
        _ instance: JSONNode,
        _ schema: LocatedNode,
        _ path: String,
        _ result: inout SchemaEvaluation
    ) {
        // Lengths count code points, as JSON Schema says (not UTF-16 units, not grapheme clusters).
        let length = s.unicodeScalars.count
        if let maximum = schema["maxLength"], let bound = Self.wholeNumber(maximum.node), length > bound {
            fail(
                &result,
                instance,
                path,
                maximum.location,
                "expected at most \(SchemaWording.plural(bound, "character")), found \(length)"
            )
        }
        if let minimum = schema["minLength"], let bound = Self.wholeNumber(minimum.node), length < bound {
            fail(
                &result,
                instance,
                path,
                minimum.location,
                "expected at least \(SchemaWording.plural(bound, "character")), found \(length)"
            )
        }
        if let patternNode = schema["pattern"], let source = patternNode.string,
            let regex = pattern(source, at: patternNode), !matches(regex, s)
        {
            fail(
                &result,
                instance,
                path,
                patternNode.location,
                "\(SchemaWording.value(instance)) does not match the pattern \(source)"
            )
        }
        if checksFormats, let format = schema["format"], let name = format.string,
            let problem = SchemaFormats.check(string: s, format: name)
        {
            fail(&result, instance, path, format.location, "\(SchemaWording.value(instance)) \(problem)")
        }
    }

    /// A non-negative whole number keyword (`minLength`, `maxItems`); nil for anything else.
    static func wholeNumber(_ node: JSONNode) -> Int? {
        guard let n = node.number?.value, n >= 0, n.rounded() == n, n < 1e15 else { return nil }
        return Int(n)
    }
}
