import HTTP1
import JSON
import RegularExpressions

/// One condition a stub sets that a request did not meet, for near-miss reports.
package struct Mismatch: Sendable, Equatable {
    /// `method`, `path`, `query.lang`, `header.Content-Type`, `body`, ...
    package let condition: String
    package let expected: String
    package let actual: String
    /// Why a regex of this condition gave up (the backtracking engine's budget), when one did:
    /// the condition failed because no answer came in time, not because the value differs.
    package var aborted: String?

    package init(condition: String, expected: String, actual: String, aborted: String? = nil) {
        self.condition = condition
        self.expected = expected
        self.actual = actual
        self.aborted = aborted
    }
}

/// Decides whether a stub's conditions hold for a request.
package enum RequestMatcher {
    /// The fast path: stops at the first failed condition. Returns the path captures on a match.
    /// `borrowing`, and the path reached through the optional rather than bound: copying the
    /// pattern, and then its path out of the optional, retained and released each of their
    /// fields for every stub tried (callgrind counted both on every request).
    /// `pathMatched`: the caller knows the path meets the pattern's (the catalog's exact-path
    /// index found the stub by it), so it is not compared again.
    package static func match(
        _ pattern: borrowing RequestPattern,
        _ facts: RequestFacts,
        pathMatched: Bool = false
    ) -> [String: String]? {
        if let methods = pattern.methods, !methods.contains(facts.request.method) { return nil }
        // Not `[:]`: the literal was a call building a dictionary from an empty list.
        var captures = [String: String]()
        if !pathMatched, pattern.path != nil {
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
        case .multipart(let condition): return facts.multipartParts.map(condition.holds) ?? false
        }
    }

    /// The slow path for near misses: every failed condition, expected against actual. With a
    /// regex budget (a stub that may backtrack), each condition is named to it, and a condition
    /// whose regex gave up says so.
    package static func mismatches(
        _ pattern: RequestPattern,
        _ facts: RequestFacts,
        budget: RegexBudgetLog? = nil
    ) -> [Mismatch] {
        var result: [Mismatch] = []
        let request = facts.request
        func check(_ condition: String?, _ holds: () -> Bool) -> (holds: Bool, aborted: String?) {
            guard let budget else { return (holds(), nil) }
            budget.matching(condition: condition)
            let before = budget.abortEvents
            let held = holds()
            return (held, budget.abortEvents > before ? budget.lastEventReason : nil)
        }
        if let methods = pattern.methods, !methods.contains(request.method) {
            result.append(
                Mismatch(condition: "method", expected: methods.joined(separator: " or "), actual: request.method)
            )
        }
        if let path = pattern.path {
            let (held, aborted) = check("path") { path.match(request.path, segments: facts.segments) != nil }
            if !held {
                let expected = path.isRegex ? "matches /\(path.source)/" : path.source
                result.append(Mismatch(condition: "path", expected: expected, actual: request.path, aborted: aborted))
            }
        }
        if let host = pattern.host {
            let actual = request.hostWithoutPort.map { [$0] } ?? []
            let (held, aborted) = check("host") { host.matches(actual) }
            if !held {
                result.append(
                    Mismatch(condition: "host", expected: host.description, actual: describe(actual), aborted: aborted)
                )
            }
        }
        for (name, matcher) in pattern.query {
            let actual = request.queryValues(name)
            let (held, aborted) = check("query.\(name)") { matcher.matches(actual) }
            if !held {
                result.append(
                    Mismatch(
                        condition: "query.\(name)",
                        expected: matcher.description,
                        actual: describe(actual),
                        aborted: aborted
                    )
                )
            }
        }
        for (name, matcher) in pattern.headers {
            let actual = request.headers.values(name)
            let (held, aborted) = check("header.\(name)") { matcher.matches(actual) }
            if !held {
                result.append(
                    Mismatch(
                        condition: "header.\(name)",
                        expected: matcher.description,
                        actual: describe(actual),
                        aborted: aborted
                    )
                )
            }
        }
        if let body = pattern.body {
            let (held, aborted) = check("body") { bodyMatches(body, facts) }
            if !held {
                result += bodyMismatches(body, facts).map { mismatch in
                    var marked = mismatch
                    marked.aborted = aborted
                    return marked
                }
            }
        }
        if !pattern.conditions.isEmpty {
            let captures = pattern.path?.match(request.path, segments: facts.segments)
            for condition in pattern.conditions where !(captures == nil && condition.restatesPath) {
                let (held, aborted) = check(nil) { condition.holds(facts, captures: captures ?? [:]) }
                guard !held else { continue }
                var mismatch = condition.mismatch(facts, captures: captures ?? [:])
                mismatch.aborted = aborted
                if aborted != nil { budget?.nameLastAbort(condition: mismatch.condition) }
                result.append(mismatch)
            }
        }
        return result
    }

    static func bodyMismatches(_ matcher: BodyMatcher, _ facts: RequestFacts) -> [Mismatch] {
        switch matcher {
        case .json, .jsonEquals, .jsonPointer:
            guard let actual = facts.json else {
                return [
                    Mismatch(condition: "body", expected: matcher.description, actual: facts.jsonError ?? "not JSON")
                ]
            }
            return jsonMismatches(matcher, actual)
        case .text(let m):
            return [
                Mismatch(
                    condition: "body",
                    expected: m.description,
                    actual: facts.request.body.isEmpty ? "empty" : excerpt(facts.bodyText)
                )
            ]
        case .form(let fields):
            return fields.compactMap { field in
                let actual = facts.formValues(field.name)
                return field.matcher.matches(actual)
                    ? nil
                    : Mismatch(
                        condition: "form.\(field.name)",
                        expected: field.matcher.description,
                        actual: describe(actual)
                    )
            }
        case .multipart(let condition):
            return multipartMismatches(condition, facts)
        }
    }

    /// The JSON path (or pointer) where the body first departs from each JSON condition.
    static func jsonMismatches(_ matcher: BodyMatcher, _ actual: JSONNode) -> [Mismatch] {
        switch matcher {
        case .json(let condition):
            guard let found = condition.firstDifference(for: actual, at: "$") else { return [] }
            return [
                Mismatch(condition: "body\(found.path.dropFirst())", expected: found.expected, actual: found.actual)
            ]
        case .jsonPointer(let entries):
            return entries.compactMap { entry in
                entry.condition.firstDifference(
                    for: entry.pointer.resolve(in: actual),
                    at: entry.pointer.description,
                    style: .pointer
                )
                .map { Mismatch(condition: "body\($0.path)", expected: $0.expected, actual: $0.actual) }
            }
        default:
            return [
                Mismatch(
                    condition: "body",
                    expected: matcher.description,
                    actual: excerpt(JSONSerializer.string(actual))
                )
            ]
        }
    }

    package static func describe(_ values: [String]) -> String {
        switch values.count {
        case 0: return "absent"
        case 1: return "\"\(excerpt(values[0]))\""
        default: return values.map { "\"\(excerpt($0))\"" }.joined(separator: ", ")
        }
    }

    package static func excerpt(_ s: String, limit: Int = 200) -> String {
        s.count > limit ? String(s.prefix(limit)) + "…" : s
    }
}
