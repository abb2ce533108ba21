import StubEngine
import RegularExpressions
import SystemSupport

/// The paths of a document as a stub check sees them: each path with its operations, and the
/// templates a stub's path may be written against (with each server's base path, and without).
package struct RouteTable {
    package struct Route {
        package let path: String
        package var operations: [OpenAPIOperation]
        package var templates: [PathTemplate]

        package func operation(_ method: String) -> OpenAPIOperation? { operations.first { $0.method == method } }
        package var methods: [String] { operations.map(\.method) }
    }

    package let routes: [Route]

    package init(_ operations: [OpenAPIOperation]) {
        var routes: [Route] = []
        for operation in operations {
            if let index = routes.firstIndex(where: { $0.path == operation.path }) {
                routes[index].operations.append(operation)
                // An operation's own `servers` (Box uploads to upload.box.com/api/2.0) add its base.
                for base in operation.basePaths
                where !routes[index].templates.contains(where: {
                    $0.source == base + operation.path
                }) {
                    if let template = PathTemplate(base + operation.path) { routes[index].templates.append(template) }
                }
                continue
            }
            var sources: [String] = []
            for base in operation.basePaths + [""] where !sources.contains(base + operation.path) {
                sources.append(base + operation.path)
            }
            routes.append(
                Route(path: operation.path, operations: [operation], templates: sources.compactMap(PathTemplate.init))
            )
        }
        self.routes = routes
    }

    /// The route a stub's `path` belongs to: the best fit (literal segments matched count most),
    /// the first in document order among equals.
    package func route(forPath path: String) -> Route? {
        let segments = PathTemplate.stubSegments(path)
        var best: (route: Route, score: Int)?
        for route in routes {
            for template in route.templates {
                if let score = template.fit(segments), score > (best?.score ?? -1) { best = (route, score) }
            }
        }
        return best?.route
    }

    /// The first route a stub's `pathPattern` can match.
    package func route(forPattern regex: CompiledRegex) -> Route? {
        routes.first { $0.templates.contains { $0.fit(pattern: regex) } }
    }

    /// The documented path closest to a stub's, for "did you mean": parameters count as equal
    /// whatever their names (`{id}` and `{userId}`), so a typo in a literal segment stands out.
    package func closest(to path: String) -> String? {
        let wanted = Self.shape(path)
        let scored = routes.flatMap { $0.templates.map(\.source) }.map {
            ($0, Suggestion.editDistance(wanted, Self.shape($0)))
        }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, wanted.count / 4) else { return nil }
        return best.0
    }

    /// A path with every `{name}` written `{}`.
    static func shape(_ path: String) -> String {
        var out = ""
        var inside = false
        for character in path {
            if character == "{" {
                inside = true
                out += "{}"
                continue
            }
            if character == "}" {
                inside = false
                continue
            }
            if !inside { out.append(character) }
        }
        return out
    }
}
