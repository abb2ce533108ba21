import HTTP1
import StubEngine
import RegularExpressions
import SystemSupport

/// Checking a stub's path against a template: `/v1/users/42` and `/v1/users/{id}` both fit
/// `/v1/users/{userId}`; `/v1/users/{id}` does not fit `/v1/users/me` (the stub answers paths
/// the document does not have).
extension PathTemplate {
    /// A stub path's segment, read as the loader reads it.
    package enum StubSegment: Equatable {
        case literal(String)
        case parameter
        case rest
    }

    package static func stubSegments(_ path: String) -> [StubSegment] {
        PathPattern.split(path).map { segment in
            if segment == "**" { return .rest }
            if segment == "*" { return .parameter }
            let parts = Self.parts(segment)
            if parts.count == 1, case .parameter(let name) = parts[0], !name.isEmpty { return .parameter }
            return .literal(PercentDecoding.decodeLenient(segment))
        }
    }

    /// How closely a stub's `path` fits: nil when it cannot be this endpoint, else a score
    /// (literal against literal counts most) for choosing among several templates that fit.
    package func fit(_ stub: [StubSegment]) -> Int? {
        var score = 0
        for (i, segment) in stub.enumerated() {
            if segment == .rest { return score }
            guard i < segments.count else { return nil }
            let parts = segments[i]
            switch (segment, parts.count == 1 ? parts[0] : nil) {
            case (.literal(let text), .literal(let literal)?):
                guard text == PercentDecoding.decodeLenient(literal) else { return nil }
                score += 3
            case (.literal(let text), .parameter?):
                guard !text.isEmpty else { return nil }
                score += 1
            case (.literal(let text), nil):
                guard segmentRegex(parts)?.matchesWhole(text) == true else { return nil }
                score += 1
            case (.parameter, .parameter?):
                score += 2
            case (.parameter, nil):
                score += 1
            default:
                return nil
            }
        }
        return stub.count == segments.count ? score : nil
    }

    /// Whether a stub's `pathPattern` matches some path of this template: tried on the template
    /// with its parameters filled with a few typical values.
    package func fit(pattern regex: CompiledRegex) -> Bool {
        ["1", "x", "abc", "a-1"].contains { value in
            let path =
                "/"
                + segments.map { parts in
                    parts.map { part -> String in
                        switch part {
                        case .literal(let text): return PercentDecoding.decodeLenient(text)
                        case .parameter: return value
                        }
                    }.joined()
                }.joined(separator: "/")
            return regex.matchesWhole(path)
        }
    }

    private func segmentRegex(_ parts: [Part]) -> CompiledRegex? {
        let source = parts.map { part -> String in
            switch part {
            case .literal(let text): return Self.escapeRegex(PercentDecoding.decodeLenient(text))
            case .parameter: return "[^/]+"
            }
        }.joined()
        return try? CompiledRegex(source)
    }
}
