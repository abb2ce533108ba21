/// Reading a schema ahead of validation, for checks that run while serving (the OpenAPI
/// contract): every `$ref` it reaches resolved (files read now, not on a request) and every
/// pattern compiled, each once.
extension SchemaValidator {
    /// Keywords whose values are data, not schemas: a `pattern` or `$ref` key inside an example
    /// is not one to follow.
    static let dataKeywords: Set<String> = ["example", "examples", "enum", "const", "default", "x-examples"]

    /// At most this many schema objects are prepared per validator: a document of a few
    /// megabytes has some tens of thousands.
    static let maximumPrepared = 500_000

    package func prepare(_ schema: LocatedNode) {
        var stack = [schema]
        while let next = stack.popLast() {
            guard preparedCount < Self.maximumPrepared, prepared.insert(next.location).inserted else { continue }
            preparedCount += 1
            if let elements = next.elements {
                stack += elements
                continue
            }
            guard next.isObject else { continue }
            if next.node["$ref"] != nil, let target = cachedReference(next) {
                stack.append(target)
            }
            if let source = next["pattern"]?.string, let at = next["pattern"] {
                _ = pattern(source, at: at)
            }
            for (key, value) in next.members ?? [] where !Self.dataKeywords.contains(key) {
                if key == "patternProperties" {
                    for (source, _) in value.members ?? [] { _ = pattern(source, at: value) }
                }
                if value.isObject || value.node.elements != nil { stack.append(value) }
            }
        }
    }

    /// A `$ref`'s target, resolved once per place: the contract validates the same schemas on
    /// every request, and resolving walks the pointer (and formats its location) each time.
    func cachedReference(_ schema: LocatedNode) -> LocatedNode? {
        if let known = references[schema.location] { return known }
        let target = documents.resolveReference(of: schema)
        references[schema.location] = .some(target)
        return target
    }
}
