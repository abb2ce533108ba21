import HTTP1
import JSON
import StubEngine

/// `path`: literal segments, `{name}`, `*` and a final `**`, read by `PathTemplate` (the one reader
/// of `{name}` paths) into a `PathPattern`.
enum PathDecoder {
    static func decodePath(_ c: inout DecodingContext, _ node: JSONNode, _ path: String) -> PathPattern? {
        guard let source = node.string else {
            c.error(path, node, "expected a path such as \"/v1/users/{id}\", found \(node.kindDescription)")
            return nil
        }
        guard let template = PathTemplate(source) else {
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
        switch template.segmentPattern(wildcards: true) {
        case .success(let pattern):
            return pattern
        case .failure(let problem):
            c.error(path, node, message(problem))
            return nil
        }
    }

    /// The stub format's words for what `PathTemplate` found.
    private static func message(_ problem: PathTemplate.SegmentProblem) -> String {
        switch problem {
        case .restNotLast:
            "\"**\" matches the rest of the path, so it must be the last segment"
        case .invalidName(let name):
            "\"{\(name)}\": a parameter name uses letters, digits, '_' and '-'"
        case .repeatedName(let name):
            "the parameter {\(name)} appears twice"
        case .partialSegment(let segment):
            "\"\(segment)\": a {parameter} must be a whole segment, like /users/{id}"
        case .partialWildcard(let segment):
            "\"\(segment)\": '*' matches a whole segment; for partial matches use \"pathPattern\""
        case .badEscape(let segment):
            "\"\(segment)\" has a '%' not followed by two hex digits"
        }
    }
}
