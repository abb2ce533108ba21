import JSON

/// The keywords on one value: enum, const, numbers, strings, formats. Each message reads the
/// keyword as written (`1.50`, not `1.5`) from the schema's source, on the failure path only.
extension SchemaRun {
    func checkValues(_ instance: JSONNode, _ schema: CompiledSchema, _ path: String, _ result: inout SchemaEvaluation) {
        if let values = schema.enumValues, !values.contains(where: { $0.equals(instance) }) {
            fail(&result, instance, path, schema, "enum", enumMessage(values, instance))
            if !collecting { return }
        }
        if let constant = schema.constValue, !constant.equals(instance) {
            fail(
                &result,
                instance,
                path,
                schema,
                "const",
                "expected exactly \(SchemaWording.value(constant)), found \(SchemaWording.value(instance))"
            )
        }
    }

    private func enumMessage(_ values: [JSONNode], _ instance: JSONNode) -> String {
        let shown =
            values.prefix(6).map(SchemaWording.value).joined(separator: ", ") + (values.count > 6 ? ", ..." : "")
        return "expected one of \(shown), found \(SchemaWording.value(instance))"
    }

    /// The keyword's value as written, for a message.
    private func written(_ schema: CompiledSchema, _ keyword: String) -> String {
        schema.source[keyword].map { SchemaWording.number($0.node) } ?? ""
    }

    func checkNumber(
        _ n: Double,
        _ instance: JSONNode,
        _ schema: CompiledSchema,
        _ path: String,
        _ result: inout SchemaEvaluation
    ) {
        if let rules = schema.number {
            if let divisor = rules.multipleOf {
                let quotient = n / divisor
                // Relative tolerance: 0.3 is a multiple of 0.1, whatever binary floating point says.
                if !quotient.isFinite || abs(quotient - quotient.rounded()) > 1e-9 * max(1, abs(quotient)) {
                    fail(
                        &result,
                        instance,
                        path,
                        schema,
                        "multipleOf",
                        """
                        expected a multiple of \(written(schema, "multipleOf")), found \
                        \(SchemaWording.number(instance))
                        """
                    )
                    if !collecting { return }
                }
            }
            if let bound = rules.maximum, rules.maximumIsExclusive ? n >= bound : n > bound {
                fail(
                    &result,
                    instance,
                    path,
                    schema,
                    "maximum",
                    """
                    expected \(rules.maximumIsExclusive ? "less than" : "at most") \
                    \(written(schema, "maximum")), found \(SchemaWording.number(instance))
                    """
                )
                if !collecting { return }
            }
            if let bound = rules.minimum, rules.minimumIsExclusive ? n <= bound : n < bound {
                fail(
                    &result,
                    instance,
                    path,
                    schema,
                    "minimum",
                    """
                    expected \(rules.minimumIsExclusive ? "more than" : "at least") \
                    \(written(schema, "minimum")), found \(SchemaWording.number(instance))
                    """
                )
                if !collecting { return }
            }
            if let bound = rules.exclusiveMaximum, n >= bound {
                fail(
                    &result,
                    instance,
                    path,
                    schema,
                    "exclusiveMaximum",
                    "expected less than \(written(schema, "exclusiveMaximum")), found \(SchemaWording.number(instance))"
                )
                if !collecting { return }
            }
            if let bound = rules.exclusiveMinimum, n <= bound {
                fail(
                    &result,
                    instance,
                    path,
                    schema,
                    "exclusiveMinimum",
                    "expected more than \(written(schema, "exclusiveMinimum")), found \(SchemaWording.number(instance))"
                )
                if !collecting { return }
            }
        }
        if checksFormats, let format = schema.format, let problem = SchemaFormats.check(number: n, format: format) {
            fail(&result, instance, path, schema, "format", "\(SchemaWording.number(instance)) \(problem)")
        }
    }

    func checkString(
        _ s: String,
        _ instance: JSONNode,
        _ schema: CompiledSchema,
        _ path: String,
        _ result: inout SchemaEvaluation
    ) {
        if let rules = schema.string {
            // Lengths count code points, as JSON Schema says (not UTF-16 units, not grapheme clusters).
            if rules.maxLength != nil || rules.minLength != nil {
                let length = s.unicodeScalars.count
                if let bound = rules.maxLength, length > bound {
                    fail(
                        &result,
                        instance,
                        path,
                        schema,
                        "maxLength",
                        "expected at most \(SchemaWording.plural(bound, "character")), found \(length)"
                    )
                    if !collecting { return }
                }
                if let bound = rules.minLength, length < bound {
                    fail(
                        &result,
                        instance,
                        path,
                        schema,
                        "minLength",
                        "expected at least \(SchemaWording.plural(bound, "character")), found \(length)"
                    )
                    if !collecting { return }
                }
            }
            if let (source, regex) = rules.pattern, let regex, regex.firstMatch(in: s) == nil {
                fail(
                    &result,
                    instance,
                    path,
                    schema,
                    "pattern",
                    "\(SchemaWording.value(instance)) does not match the pattern \(source)"
                )
                if !collecting { return }
            }
        }
        if checksFormats, let format = schema.format, let problem = SchemaFormats.check(string: s, format: format) {
            fail(&result, instance, path, schema, "format", "\(SchemaWording.value(instance)) \(problem)")
        }
    }
}
