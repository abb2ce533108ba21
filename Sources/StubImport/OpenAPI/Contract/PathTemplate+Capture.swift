import HTTP1
import StubEngine
import SystemSupport

/// A request's path against a template: `/pets/42` fits `/pets/{petId}` with `petId` = `42`;
/// `/files/a.json` fits `/files/{name}.json` with `name` = `a`.
extension PathTemplate {
    /// nil when the path is not this template's; else a score (a literal segment counts more
    /// than a parameter, so `/pets/mine` prefers `/pets/mine` to `/pets/{id}`) and the values.
    func capture(_ request: [Substring]) -> (score: Int, values: [String: String])? {
        guard request.count == segments.count else { return nil }
        var score = 0
        var values: [String: String] = [:]
        for (text, parts) in zip(request, segments) {
            if parts.count == 1 {
                switch parts[0] {
                case .literal(let literal):
                    guard text == PercentDecoding.decodeLenient(literal) else { return nil }
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
                let decoded = PercentDecoding.decodeLenient(literal)
                guard rest.hasPrefix(decoded) else { return nil }
                rest = rest.dropFirst(decoded.count)
            case .parameter(let name):
                var end = rest.endIndex
                if i + 1 < parts.count, case .literal(let next) = parts[i + 1] {
                    guard let found = rest.firstRange(of: PercentDecoding.decodeLenient(next)) else { return nil }
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
