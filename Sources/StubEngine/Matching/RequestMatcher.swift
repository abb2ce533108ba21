import HTTP1

/// One condition a stub sets that a request did not meet, for near-miss reports.
package struct Mismatch: Sendable, Equatable {
    /// `method`, `path`, `query.lang`, `header.Content-Type`, `body`, ...
    package let condition: String
    package let expected: String
    package let actual: String

    package init(condition: String, expected: String, actual: String) {
        self.condition = condition
        self.expected = expected
        self.actual = actual
    }
}

/// Decides whether a stub's conditions hold for a request.
enum RequestMatcher {
    /// The fast path: stops at the first failed condition. Returns the path captures on a match.
    /// `borrowing`, and the path reached through the optional rather than bound: copying the
    /// pattern, and then its path out of the optional, retained and released each of their
    /// fields for every stub tried (callgrind counted both on every request).
    static func match(_ pattern: borrowing RequestPattern, _ facts: RequestFacts) -> [String: String]? {
        if let methods = pattern.methods, !methods.contains(facts.request.method) { return nil }
        var captures: [String: String] = [:]
        if pattern.path != nil {
            guard let c = pattern.path?.match(facts.request.path, segments: facts.segments) else { return nil }
            captures = c
        }
        if let host = pattern.host, !host.matches(facts.request.hostWithoutPort.map { [$0] } ?? []) { return nil }
        for (name, matcher) in pattern.query where !matcher.matches(facts.request.queryValues(name)) { return nil }
        for (name, matcher) in pattern.headers where !matcher.matches(facts.request.headers.values(name)) { return nil }
        if let body = pattern.body, !bodyMatches(body, facts) { return nil }
        for condition in pattern.conditions where !condition.holds(facts, captures: captures) { return nil }
        return captures
    }

    static func bodyMatches(_ matcher: BodyMatcher, _ facts: RequestFacts) -> Bool {
        switch matcher {
        case .json(let condition): return facts.json.map(condition.holds) ?? false
        case .jsonEquals(let expected): return facts.json?.equals(expected) ?? false
        case .jsonPointer(let entries):
            guard let json = facts.json else { return false }
            return entries.allSatisfy { $0.condition.holds(for: $0.pointer.resolve(in: json)) }
        case .text(let matcher): return matcher.matches(facts.bodyText)
        case .form(let fields): return fields.allSatisfy { $0.matcher.matches(facts.formValues($0.name)) }
        }
    }

    /// The slow path for near misses: every failed condition, expected against actual.
    static func mismatches(_ pattern: RequestPattern, _ facts: RequestFacts) -> [Mismatch] {
        var result: [Mismatch] = []
        let request = facts.request
        if let methods = pattern.methods, !methods.contains(request.method) {
            result.append(Mismatch(condition: "method", expected: methods.joined(separator: " or "), actual: request.method))
        }
        if let path = pattern.path, path.match(request.path, segments: facts.segments) == nil {
            let expected: String
            expected = path.isRegex ? "matches /\(path.source)/" : path.source
            result.append(Mismatch(condition: "path", expected: expected, actual: request.path))
        }
        if let host = pattern.host {
            let actual = request.hostWithoutPort.map { [$0] } ?? []
            if !host.matches(actual) {
                result.append(Mismatch(condition: "host", expected: host.description, actual: describe(actual)))
            }
        }
        for (name, matcher) in pattern.query {
            let actual = request.queryValues(name)
            if !matcher.matches(actual) {
                result.append(Mismatch(condition: "query.\(name)", expected: matcher.description, actual: describe(actual)))
            }
        }
        for (name, matcher) in pattern.headers {
            let actual = request.headers.values(name)
            if !matcher.matches(actual) {
                result.append(Mismatch(condition: "header.\(name)", expected: matcher.description, actual: describe(actual)))
            }
        }
        if let body = pattern.body, !bodyMatches(body, facts) {
            result.append(contentsOf: bodyMismatches(body, facts))
        }
        if !pattern.conditions.isEmpty {
            let captures = pattern.path?.match(request.path, segments: facts.segments)
            for condition in pattern.conditions where !(captures == nil && condition.restatesPath) && !condition.holds(facts, captures: captures ?? [:]) {
                result.append(condition.mismatch(facts, captures: captures ?? [:]))
            }
        }
        return result
    }

    static func bodyMismatches(_ matcher: BodyMatcher, _ facts: RequestFacts) -> [Mismatch] {
        switch matcher {
        case .json, .jsonEquals, .jsonPointer:
            guard let actual = facts.json else {
                return [Mismatch(condition: "body", expected: matcher.description, actual: facts.jsonError ?? "not JSON")]
            }
            return jsonMismatches(matcher, actual)
        case .text(let m):
            return [Mismatch(condition: "body", expected: m.description, actual: facts.request.body.isEmpty ? "empty" : excerpt(facts.bodyText))]
        case .form(let fields):
            return fields.compactMap { field in
                let actual = facts.formValues(field.name)
                return field.matcher.matches(actual) ? nil
                    : Mismatch(condition: "form.\(field.name)", expected: field.matcher.description, actual: describe(actual))
            }
        }
    }

    /// The JSON path (or pointer) where the body first departs from each JSON condition.
    static func jsonMismatches(_ matcher: BodyMatcher, _ actual: JSONNode) -> [Mismatch] {
        switch matcher {
        case .json(let condition):
            guard let found = condition.firstDifference(for: actual, at: "$") else { return [] }
            return [Mismatch(condition: "body\(found.path.dropFirst())", expected: found.expected, actual: found.actual)]
        case .jsonPointer(let entries):
            return entries.compactMap { entry in
                entry.condition.firstDifference(for: entry.pointer.resolve(in: actual), at: entry.pointer.description, style: .pointer)
                    .map { Mismatch(condition: "body\($0.path)", expected: $0.expected, actual: $0.actual) }
            }
        default:
            return [Mismatch(condition: "body", expected: matcher.description, actual: excerpt(JSONSerializer.string(actual)))]
        }
    }

    static func describe(_ values: [String]) -> String {
        switch values.count {
        case 0: return "absent"
        case 1: return "\"\(excerpt(values[0]))\""
        default: return values.map { "\"\(excerpt($0))\"" }.joined(separator: ", ")
        }
    }

    static func excerpt(_ s: String, limit: Int = 200) -> String {
        s.count > limit ? String(s.prefix(limit)) + "…" : s
    }
}
