import HTTP1
import StubEngine
import SystemSupport

/// A request's path against a template: `/pets/42` fits `/pets/{petId}` with `petId` = `42`;
/// `/files/a.json` fits `/files/{name}.json` with `name` = `a`.
extension PathTemplate {
    /// The template with its literal text percent-decoded, as `capture` compares it: decoded
    /// once at load rather than on every request.
    func decodingLiterals() -> PathTemplate {
        PathTemplate(
            segments: segments.map { parts in
                parts.map { part in
                    guard case .literal(let text) = part else { return part }
                    return .literal(PercentDecoding.decodeLenient(text))
                }
            }
        )
    }

    /// The path this template alone fits, when it has no parameter (`/v1/orders`) and its
    /// literals are ASCII without a decoded `/` (so the whole path compares as its segments do).
    var literalPath: String? {
        var path = ""
        for parts in segments {
            guard parts.count == 1, case .literal(let text) = parts[0],
                text.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "/") })
            else { return nil }
            path += "/" + text
        }
        return path.isEmpty ? nil : path
    }

    /// nil when the path is not this template's (one whose literals `decodingLiterals` has
    /// decoded); else a score (a literal segment counts more
    /// than a parameter, so `/pets/mine` prefers `/pets/mine` to `/pets/{id}`) and the values.
    func capture(_ request: [Substring]) -> (score: Int, values: [String: String])? {
        guard request.count == segments.count else { return nil }
        var score = 0
        var values: [String: String] = [:]
        for (text, parts) in zip(request, segments) {
            if parts.count == 1 {
                switch parts[0] {
                case .literal(let literal):
                    guard text == literal else { return nil }
                    score += 3
                case .parameter(let name):
                    guard !text.isEmpty else { return nil }
                    values[name] = String(text)
                    score += 1
                }
                continue
            }
            guard let captured = Self.capture(text, parts) else { return nil }
            values.merge(captured) { first, _ in first }
            score += 2
        }
        return (score, values)
    }

    /// A segment that mixes literal text and parameters (`{name}.{ext}`): each literal must
    /// come next; a parameter takes the text up to the next literal (or the rest).
    private static func capture(_ text: Substring, _ parts: [Part]) -> [String: String]? {
        var values: [String: String] = [:]
        var rest = text
        for (i, part) in parts.enumerated() {
            switch part {
            case .literal(let literal):
                guard rest.hasPrefix(literal) else { return nil }
                rest = rest.dropFirst(literal.count)
            case .parameter(let name):
                var end = rest.endIndex
                if i + 1 < parts.count, case .literal(let next) = parts[i + 1] {
                    guard let found = rest.firstRange(of: next) else { return nil }
                    end = found.lowerBound
                }
                guard end > rest.startIndex else { return nil }
                values[name] = String(rest[..<end])
                rest = rest[end...]
            }
        }
        return rest.isEmpty ? values : nil
    }
}
