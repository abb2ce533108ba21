import HTTP1
import SystemSupport

/// A path written with `{name}` parameters, read once: the one reader of `{...}` in a path, for
/// the stub format's `path`, WireMock's `urlPathTemplate` and the paths of an OpenAPI document.
///
/// Each segment after the leading `/` is a list of parts, literal text and parameters, as
/// written (nothing decoded). A `{` with no `}` after it in its segment is literal text.
/// `segmentPattern` compiles a template whose parameters are whole segments into the
/// `PathPattern` the matcher walks; each dialect words the problems it reports its own way.
package struct PathTemplate: Sendable, Equatable {
    package enum Part: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// As written.
    package let source: String
    /// The segments after the leading `/`, each a list of parts ("/" is one empty segment).
    package let segments: [[Part]]

    /// nil when the path does not start with `/`.
    package init?(_ source: String) {
        guard source.hasPrefix("/") else { return nil }
        self.source = source
        segments = PathPattern.split(source).map(Self.parts)
    }

    /// A template of parts read from another syntax (Postman's `:id`, `{{id}}`); `source` shows
    /// each parameter as `{name}`.
    package init(segments: [[Part]]) {
        self.segments = segments
        let written = segments.map { parts in
            parts.map { part in
                switch part {
                case .literal(let text): text
                case .parameter(let name): "{\(name)}"
                }
            }
            .joined()
        }
        source = "/" + written.joined(separator: "/")
    }

    /// One segment's parts; an empty segment is one empty literal.
    package static func parts(_ segment: Substring) -> [Part] {
        var parts: [Part] = []
        var literal = ""
        var i = segment.startIndex
        while i < segment.endIndex {
            if segment[i] == "{", let close = segment[i...].firstIndex(of: "}") {
                if !literal.isEmpty {
                    parts.append(.literal(literal))
                    literal = ""
                }
                parts.append(.parameter(String(segment[segment.index(after: i)..<close])))
                i = segment.index(after: close)
            } else {
                literal.append(segment[i])
                i = segment.index(after: i)
            }
        }
        if !literal.isEmpty || parts.isEmpty { parts.append(.literal(literal)) }
        return parts
    }

    /// Whether some segment mixes a parameter with text or another parameter (`{name}.json`).
    package var isPartialSegmentTemplate: Bool { segments.contains { $0.count > 1 } }

    /// The names of the parameters, in the order written.
    package var parameterNames: [String] {
        segments.flatMap { parts in
            parts.compactMap { part in
                if case .parameter(let name) = part { name } else { nil }
            }
        }
    }

    /// A parameter name the stub format and `request.path.NAME` take: letters, digits, `_`, `-`.
    package static func isParameterName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    }

    /// Why a template is no segment pattern.
    package enum SegmentProblem: Error, Equatable {
        /// A segment that is not one whole parameter but has `{` or `}` in it (the segment).
        case partialSegment(String)
        /// A parameter whose name is empty or has other characters than `isParameterName` takes.
        case invalidName(String)
        case repeatedName(String)
        /// A literal segment with a `%` not followed by two hex digits (the segment).
        case badEscape(String)
        /// With wildcards: `**` before the last segment.
        case restNotLast
        /// With wildcards: `*` inside a segment with other text (the segment).
        case partialWildcard(String)
    }

    /// The segment pattern the matcher walks: literal segments percent-decoded, `{name}`
    /// captured. With `wildcards` (the stub format), a `*` segment matches any one segment and a
    /// final `**` the rest of the path; without (WireMock), `*` is text like any other.
    package func segmentPattern(wildcards: Bool) -> Result<PathPattern, SegmentProblem> {
        var compiled: [PathPattern.Segment] = []
        var names = Set<String>()
        for (index, parts) in segments.enumerated() {
            switch parts.count == 1 ? parts[0] : nil {
            case .parameter(let name)?:
                guard Self.isParameterName(name) else { return .failure(.invalidName(name)) }
                guard names.insert(name).inserted else { return .failure(.repeatedName(name)) }
                compiled.append(.parameter(name))
            case .literal(let text)?:
                if text.contains("{") || text.contains("}") { return .failure(.partialSegment(text)) }
                if wildcards, text == "**" {
                    guard index == segments.count - 1 else { return .failure(.restNotLast) }
                    compiled.append(.rest)
                } else if wildcards, text == "*" {
                    compiled.append(.wildcard)
                } else if wildcards, text.contains("*") {
                    return .failure(.partialWildcard(text))
                } else {
                    guard let decoded = PercentDecoding.decode(text, strict: true) else {
                        return .failure(.badEscape(text))
                    }
                    compiled.append(.literal(decoded))
                }
            case nil:
                return .failure(.partialSegment(Self.text(of: parts)))
            }
        }
        return .success(.segments(source: source, compiled))
    }

    /// A segment as it was written.
    package static func text(of parts: [Part]) -> String {
        parts.map { part in
            switch part {
            case .literal(let text): text
            case .parameter(let name): "{" + name + "}"
            }
        }.joined()
    }
}

extension PathTemplate {
    /// A regular expression that matches `text` as it is: every ASCII punctuation character
    /// escaped (ICU reads `\` before punctuation as literal). For literal paths written as
    /// patterns (OpenAPI imports, WireMock imports).
    package static func escapeRegex(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII, !(scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)), scalar != " " {
                out.append("\\")
            }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
