/// The `path` or `pathPattern` condition, split at load into segments so matching is a walk
/// over the request's segments with no parsing and no regex for the common forms.
public enum PathPattern: Sendable {
    public enum Segment: Sendable, Equatable {
        case literal(String)
        /// `{name}`: one segment, captured for templates.
        case parameter(String)
        /// `*`: one segment.
        case wildcard
        /// `**` as the last segment: the rest, zero or more segments.
        case rest
    }

    case segments(source: String, [Segment])
    case regex(CompiledRegex)

    /// How specific the pattern is, for choosing among several matches: a literal path beats
    /// `{name}`, which beats `*`, which beats `**`, which beats a regular expression.
    public var specificityClass: Int {
        switch self {
        case .regex: return 1
        case .segments(_, let segments):
            if segments.contains(.rest) { return 2 }
            if segments.contains(.wildcard) { return 3 }
            if segments.contains(where: { if case .parameter = $0 { true } else { false } }) { return 4 }
            return 5
        }
    }

    public var literalSegmentCount: Int {
        guard case .segments(_, let segments) = self else { return 0 }
        return segments.reduce(0) { if case .literal = $1 { $0 + 1 } else { $0 } }
    }

    /// The whole path when every segment is literal: the key of the exact-path index.
    public var literalPath: String? {
        guard case .segments(let source, let segments) = self,
              segments.allSatisfy({ if case .literal = $0 { true } else { false } }) else { return nil }
        _ = source
        return "/" + segments.map { if case .literal(let s) = $0 { s } else { "" } }.joined(separator: "/")
    }

    /// The first segment when it is literal and more follow: the key of the prefix index.
    public var leadingLiteral: String? {
        guard case .segments(_, let segments) = self, let first = segments.first,
              case .literal(let s) = first else { return nil }
        return s
    }

    /// The `{name}`s, for checking template variables at load.
    public var parameterNames: Set<String> {
        guard case .segments(_, let segments) = self else { return [] }
        return Set(segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } })
    }

    public var source: String {
        switch self {
        case .segments(let source, _): source
        case .regex(let r): r.pattern
        }
    }

    /// Matches a decoded request path; returns the `{name}` captures, or nil when it fails.
    public func match(_ path: String, segments requestSegments: [Substring]) -> [String: String]? {
        switch self {
        case .regex(let regex):
            return regex.matchesWhole(path) ? [:] : nil
        case .segments(_, let segments):
            var captures: [String: String] = [:]
            var i = 0
            for (n, segment) in segments.enumerated() {
                switch segment {
                case .rest:
                    return n == segments.count - 1 ? captures : nil
                case .literal(let s):
                    guard i < requestSegments.count, requestSegments[i] == s else { return nil }
                case .parameter(let name):
                    guard i < requestSegments.count, !requestSegments[i].isEmpty else { return nil }
                    captures[name] = String(requestSegments[i])
                case .wildcard:
                    guard i < requestSegments.count, !requestSegments[i].isEmpty else { return nil }
                }
                i += 1
            }
            return i == requestSegments.count ? captures : nil
        }
    }

    /// A decoded path split into segments after the leading slash. "/" is one empty segment,
    /// so a trailing slash stays significant ("/a/" is ["a", ""]).
    public static func split(_ path: String) -> [Substring] {
        guard path.hasPrefix("/") else { return [Substring(path)] }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
    }
}
