import JSON

/// Objects, arrays, strings and numbers, built from the merged keywords of every part.
extension SchemaSampler {
    func sampleObject(_ parts: [LocatedNode], depth: Int, references: Set<NodeLocation>) -> JSONNode {
        var order: [String] = []
        var schemas: [String: [LocatedNode]] = [:]
        for part in parts {
            for (name, schema) in part["properties"]?.members ?? [] {
                if schemas[name] == nil { order.append(name) }
                schemas[name, default: []].append(schema)
            }
        }
        let required = Set(parts.flatMap { $0.node["required"]?.elements?.compactMap(\.string) ?? [] })
        for name in parts.flatMap({ $0.node["required"]?.elements?.compactMap(\.string) ?? [] })
        where schemas[name] == nil {
            order.append(name)
            schemas[name] = []
        }
        var members: [(String, JSONNode)] = []
        for name in order {
            let isRequired = required.contains(name)
            if !isRequired && (isConstrained(depth) || isWriteOnly(schemas[name] ?? [])) { continue }
            let value = sample(schemas[name] ?? [], depth: depth + 1, references: references, chosen: [])
            if let value {
                members.append((name, value))
            } else if isRequired {
                // A required property whose schema only recurses: no finite value satisfies it.
                members.append((name, .object([])))
            }
        }
        // A map (`additionalProperties: {schema}` and no properties): one entry shows its shape.
        if members.isEmpty, !isConstrained(depth),
            let additional = parts.lazy.compactMap({ $0["additionalProperties"] }).first(where: \.isObject),
            let value = sample([additional], depth: depth + 1, references: references, chosen: [])
        {
            members.append(("key", value))
        }
        return .object(members)
    }

    private func isWriteOnly(_ schemas: [LocatedNode]) -> Bool {
        schemas.contains { schema in
            schema.node["writeOnly"]?.bool == true
                || (validator.referencedSchema(schema).flatMap { $0 }?.node["writeOnly"]?.bool == true)
        }
    }

    func sampleArray(_ parts: [LocatedNode], depth: Int, references: Set<NodeLocation>) -> JSONNode {
        let minimum = parts.compactMap { $0.node["minItems"].flatMap(SchemaValidator.wholeNumber) }.max() ?? 0
        let maximum = parts.compactMap { $0.node["maxItems"].flatMap(SchemaValidator.wholeNumber) }.min()
        let prefix = parts.lazy.compactMap { $0["prefixItems"]?.elements ?? $0["items"]?.elements }.first ?? []
        let items = parts.compactMap { part in part["items"].flatMap { $0.node.elements == nil ? $0 : nil } }
        var count = isConstrained(depth) ? minimum : max(minimum, 1, prefix.count)
        if let maximum { count = min(count, maximum) }
        if prefix.isEmpty && items.isEmpty && count > minimum { count = minimum }
        var elements: [JSONNode] = []
        for i in 0..<count {
            if isExhausted {
                noteCut(
                    parts.first { $0.node["minItems"] != nil },
                    "minItems \(minimum) needs more than the \(Self.valueLimit) values a sample holds; "
                        + "this array has \(i)"
                )
                break
            }
            let schemas = i < prefix.count ? [prefix[i]] : items
            guard let value = sample(schemas, depth: depth + 1, references: references, chosen: []) else {
                // An item that only recurses: stop at what minItems needs, if anything.
                if i >= minimum { break }
                elements.append(.object([]))
                continue
            }
            elements.append(value)
        }
        return .array(elements)
    }

    func sampleString(_ parts: [LocatedNode]) -> String {
        let format = parts.lazy.compactMap { $0.node["format"]?.string }.first
        let minimum = parts.compactMap { $0.node["minLength"].flatMap(SchemaValidator.wholeNumber) }.max() ?? 0
        let maximum = parts.compactMap { $0.node["maxLength"].flatMap(SchemaValidator.wholeNumber) }.min()
        let patterns = parts.compactMap { part in
            part["pattern"].flatMap { node in node.string.flatMap { validator.pattern($0, at: node) } }
        }
        let base = format.flatMap { Self.formatSamples[$0] } ?? "string"
        let fits = { (s: String) in minimum == 0 && maximum.map { s.unicodeScalars.count <= $0 } != false }
        if patterns.isEmpty && fits(base) { return spend(base) }
        // A length no sample may reach is cut to what the sample has left.
        let room = max(0, Self.stringBytesLimit - stringBytes)
        guard minimum <= room else {
            noteCut(
                parts.first { $0.node["minLength"] != nil },
                "minLength \(minimum) is more than the \(Self.stringBytesLimit) bytes of strings a sample holds"
            )
            return spend(Self.fit(base, minimum: room, maximum: room))
        }
        // Tried lazily, in order: strings built from the patterns, the usual sample, candidates.
        let fromPatterns = parts.lazy.compactMap { $0.node["pattern"]?.string.flatMap(PatternSampler.sample) }
        let candidates = fromPatterns.map { $0 } + [base] + Self.patternCandidates
        let fitted = candidates.lazy.map { Self.fit($0, minimum: minimum, maximum: maximum) }
        return spend(
            fitted.first { candidate in patterns.allSatisfy { validator.matches($0, candidate) } }
                ?? Self.fit(base, minimum: minimum, maximum: maximum)
        )
    }

    /// Counts a string against the sample's bound on string bytes.
    private func spend(_ s: String) -> String {
        stringBytes += s.utf8.count
        return s
    }

    /// A sample cut or padded (by repeating it) to a length range.
    static func fit(_ s: String, minimum: Int, maximum: Int?) -> String {
        var scalars = Array(s.unicodeScalars)
        if scalars.isEmpty && minimum > 0 { scalars = ["x"] }
        var padded = scalars
        while padded.count < minimum { padded += scalars }
        if padded.count > minimum && scalars.count < minimum { padded = Array(padded.prefix(minimum)) }
        if let maximum, padded.count > maximum { padded = Array(padded.prefix(maximum)) }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: padded)
        return String(out)
    }

    static let formatSamples: [String: String] = [
        "date-time": "2024-01-31T09:30:00Z", "date": "2024-01-31", "time": "09:30:00Z", "duration": "P1D",
        "email": "user@example.com", "idn-email": "user@example.com",
        "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        "uri": "https://example.com/", "url": "https://example.com/", "iri": "https://example.com/",
        "uri-reference": "https://example.com/", "iri-reference": "https://example.com/",
        "uri-template": "https://example.com/{id}",
        "hostname": "example.com", "idn-hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
        "byte": "c3RyaW5n", "binary": "", "password": "password", "json-pointer": "/a/b", "regex": ".*",
    ]

    /// Tried in turn when a `pattern` refuses the usual sample.
    static let patternCandidates = [
        "a", "A", "0", "1", "abc", "ABC", "123", "a1", "A1", "abc123", "example", "user@example.com",
        "2024-01-31", "+15555550123", "AB-12", "ab_c", "a-b",
    ]

    func sampleNumber(_ parts: [LocatedNode], integer: Bool) -> JSONNode {
        var low: Double?
        var high: Double?
        var lowExclusive = false
        var highExclusive = false
        var step: Double?
        for part in parts {
            if let bound = part.node["minimum"]?.number?.value, bound >= (low ?? -.infinity) {
                low = bound
                lowExclusive = part.node["exclusiveMinimum"]?.bool == true
            }
            if let bound = part.node["exclusiveMinimum"]?.number?.value, bound >= (low ?? -.infinity) {
                low = bound
                lowExclusive = true
            }
            if let bound = part.node["maximum"]?.number?.value, bound <= (high ?? .infinity) {
                high = bound
                highExclusive = part.node["exclusiveMaximum"]?.bool == true
            }
            if let bound = part.node["exclusiveMaximum"]?.number?.value, bound <= (high ?? .infinity) {
                high = bound
                highExclusive = true
            }
            if let divisor = part.node["multipleOf"]?.number?.value, divisor > 0 { step = divisor }
        }
        let unit = step ?? (integer ? 1 : 0.5)
        var value = 0.0
        if let low, value < low || (lowExclusive && value <= low) {
            value = lowExclusive ? low + unit : low
        }
        if let high, value > high || (highExclusive && value >= high) {
            value = highExclusive ? high - unit : high
        }
        if let step { value = (value / step).rounded(.up) * step }
        if integer { value = value.rounded(.up) }
        return Self.number(value)
    }

    /// A number as JSON text: whole numbers as integers, others in Swift's shortest form
    /// (`0.5`, `1e+300`), which is valid JSON; bounds that overflow give 0 rather than `inf`.
    static func number(_ value: Double) -> JSONNode {
        guard value.isFinite else { return .number(0) }
        if value.rounded() == value, abs(value) < 1e15 { return .number(Int(value)) }
        return JSONNode(.number(JSONNumber(text: "\(value)", value: value)))
    }
}
