import HTTP1

/// `path`: literal segments, `{name}`, `*` and a final `**`, compiled into a `PathPattern`.
enum PathDecoder {
    static func decodePath(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> PathPattern? {
        guard let source = node.string else {
            c.error(path, node, "expected a path such as \"/v1/users/{id}\", found \(node.kindDescription)")
            return nil
        }
        guard source.hasPrefix("/") else {
            c.error(path, node, "a path starts with \"/\" (found \"\(source)\")")
            return nil
        }
        if source == "/__admin" || source.hasPrefix("/__admin/") {
            c.error(path, node, "paths under /__admin/ belong to the admin API; pick another path")
            return nil
        }
        if source.contains("?") {
            c.error(path, node, "the path must not contain a query; put parameters in \"query\": {\"name\": \"value\"}")
            return nil
        }
        var segments: [PathPattern.Segment] = []
        var names = Set<String>()
        let parts = PathPattern.split(source)
        for (i, part) in parts.enumerated() {
            if part == "**" {
                guard i == parts.count - 1 else {
                    c.error(path, node, "\"**\" matches the rest of the path, so it must be the last segment")
                    return nil
                }
                segments.append(.rest)
            } else if part == "*" {
                segments.append(.wildcard)
            } else if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                let name = String(part.dropFirst().dropLast())
                guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                    c.error(path, node, "\"{\(name)}\": a parameter name uses letters, digits, '_' and '-'")
                    return nil
                }
                guard names.insert(name).inserted else {
                    c.error(path, node, "the parameter {\(name)} appears twice")
                    return nil
                }
                segments.append(.parameter(name))
            } else if part.contains("{") || part.contains("}") {
                c.error(path, node, "\"\(part)\": a {parameter} must be a whole segment, like /users/{id}")
                return nil
            } else if part.contains("*") {
                c.error(path, node, "\"\(part)\": '*' matches a whole segment; for partial matches use \"pathPattern\"")
                return nil
            } else {
                guard let decoded = PercentDecoding.decode(part, strict: true) else {
                    c.error(path, node, "\"\(part)\" has a '%' not followed by two hex digits")
                    return nil
                }
                segments.append(.literal(decoded))
            }
        }
        return .segments(source: source, segments)
    }
}
