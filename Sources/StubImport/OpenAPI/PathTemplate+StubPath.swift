import HTTP1
import StubAuthoring
import StubEngine
import SystemSupport

/// A path of an OpenAPI document (`/pets/{petId}`, `/files/{name}.json`), read by the engine's
/// `PathTemplate`, as a stub condition and as something a stub's path is checked against.
///
/// Whole-segment parameters become `{name}` segments; a segment that mixes literal text and a
/// parameter (`{name}.json`) makes the whole path a `pathPattern` in which each parameter matches
/// one segment's worth of characters. Literal text is written so the loader reads it back as
/// the same characters: `%` not starting an escape, `*`, `{`, `}`, `?` and `#` are percent-encoded.
extension PathTemplate {
    package enum StubPath: Sendable, Equatable {
        case path(String)
        case pattern(String)
    }

    /// The stub's `path` or `pathPattern`.
    package var stubPath: StubPath {
        if !isPartialSegmentTemplate {
            var names = Set<String>()
            let written = segments.map { segment -> String in
                switch segment[0] {
                case .literal(let text): return Self.encodeLiteral(text)
                case .parameter(let name): return "{" + Self.uniqueName(name, &names) + "}"
                }
            }
            return .path("/" + written.joined(separator: "/"))
        }
        let written = segments.map { segment in
            segment.map { part -> String in
                switch part {
                case .literal(let text): return Self.escapeRegex(PercentDecoding.decodeLenient(text))
                case .parameter: return "[^/]+"
                }
            }.joined()
        }
        return .pattern("/" + written.joined(separator: "/"))
    }

    /// A parameter name the stub format accepts (letters, digits, `_`, `-`), unique in the path.
    static func uniqueName(_ name: String, _ taken: inout Set<String>) -> String {
        var base = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        if base.isEmpty { base = "param" }
        var candidate = base
        var n = 2
        while !taken.insert(candidate).inserted {
            candidate = "\(base)_\(n)"
            n += 1
        }
        return candidate
    }

    /// Literal text as a stub path segment the loader decodes back to the same characters; an
    /// escape the document already wrote (`%20`) stays one.
    static func encodeLiteral(_ text: String) -> String {
        ExchangeStubPlanner.encodePath(text, keepingEscapes: true)
    }
}
