#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSON
import JSONPath
import RegularExpressions
import StubEngine

/// One of WireMock's value matchers ("content patterns"), compiled at load: regular
/// expressions, JSON documents and JSONPath expressions are ready before the first request.
/// Used for headers, query parameters, cookies, form fields, path parameters and bodies.
package indirect enum ContentPattern: Sendable {
    case equalTo(String, caseInsensitive: Bool)
    case contains(String)
    case doesNotContain(String)
    case matches(CompiledRegex)
    case doesNotMatch(CompiledRegex)
    /// `{"absent": true}`: the value is not there (handled by `MultiValuePattern`).
    case absent
    /// `{"anything": "anything"}`: any value.
    case anything
    case equalToJson(JSONExpectation, ignoreArrayOrder: Bool, ignoreExtraElements: Bool)
    /// A JSONPath that must select something, or whose result a nested pattern must match.
    case matchesJsonPath(JSONPath, ContentPattern?)
    case binaryEqualTo([UInt8])
    case and([ContentPattern])
    case or([ContentPattern])
    case not(ContentPattern)
    case number(NumberComparison, Double)
    /// An operator stubserver does not implement (`equalToXml`, `matchesXPath`, date
    /// comparisons, JSON Schema): it never matches, and the loader warned.
    case unsupported(String)

    package enum NumberComparison: String, Sendable, CaseIterable {
        case equalToNumber, greaterThanNumber, greaterThanEqualNumber, lessThanNumber, lessThanEqualNumber
    }

    /// Whether `value` (a header value, a parameter, a body as text) matches.
    package func matches(_ value: String) -> Bool {
        switch self {
        case .equalTo(let expected, let caseInsensitive):
            return caseInsensitive ? value.lowercased() == expected : value == expected
        case .contains(let part): return part.isEmpty || value.contains(part)
        case .doesNotContain(let part): return !part.isEmpty && !value.contains(part)
        case .matches(let regex): return regex.matchesWhole(value)
        case .doesNotMatch(let regex): return regex.doesNotMatchWhole(value)
        case .absent: return false
        case .anything: return true
        case .equalToJson(let expected, let ignoreOrder, let ignoreExtra):
            guard let actual = try? JSONParser.parse(Array(value.utf8), limits: .requestBody) else { return false }
            return JSONComparison.matches(
                expected: expected,
                actual: actual,
                ignoreArrayOrder: ignoreOrder,
                ignoreExtraElements: ignoreExtra
            )
        case .matchesJsonPath(let path, let nested):
            guard let document = try? JSONParser.parse(Array(value.utf8), limits: .requestBody) else { return false }
            return Self.jsonPathMatches(path, nested, document)
        case .binaryEqualTo(let bytes): return Array(value.utf8) == bytes
        case .and(let all): return all.allSatisfy { $0.matches(value) }
        case .or(let any): return any.contains { $0.matches(value) }
        case .not(let inner): return RegexBudget.negation { inner.matches(value) }
        case .number(let comparison, let expected):
            guard let actual = Double(value.trimmingSpaces()) else { return false }
            switch comparison {
            case .equalToNumber: return actual == expected
            case .greaterThanNumber: return actual > expected
            case .greaterThanEqualNumber: return actual >= expected
            case .lessThanNumber: return actual < expected
            case .lessThanEqualNumber: return actual <= expected
            }
        case .unsupported: return false
        }
    }

    /// A body: the JSON matchers use the request's one parse, `binaryEqualTo` its bytes.
    func matchesBody(_ facts: RequestFacts) -> Bool {
        matchesContent(facts.request.body, text: { facts.bodyText }, json: { facts.json })
    }

    /// A part of a multipart body, matched as a body is: parsed as JSON at most once.
    func matchesContent(_ bytes: [UInt8]) -> Bool {
        var parsed: JSONNode??
        return matchesContent(
            bytes,
            text: { String(decoding: bytes, as: UTF8.self) },
            json: {
                if let parsed { return parsed }
                let node = try? JSONParser.parse(bytes)
                parsed = .some(node)
                return node
            }
        )
    }

    /// The JSON matchers read `json()`, `binaryEqualTo` and `absent` the bytes, the rest `text()`.
    private func matchesContent(_ bytes: [UInt8], text: () -> String, json: () -> JSONNode?) -> Bool {
        switch self {
        case .equalToJson(let expected, let ignoreOrder, let ignoreExtra):
            guard let actual = json() else { return false }
            return JSONComparison.matches(
                expected: expected,
                actual: actual,
                ignoreArrayOrder: ignoreOrder,
                ignoreExtraElements: ignoreExtra
            )
        case .matchesJsonPath(let path, let nested):
            guard let document = json() else { return false }
            return Self.jsonPathMatches(path, nested, document)
        case .binaryEqualTo(let expected): return bytes == expected
        case .absent: return bytes.isEmpty
        case .and(let all): return all.allSatisfy { $0.matchesContent(bytes, text: text, json: json) }
        case .or(let any): return any.contains { $0.matchesContent(bytes, text: text, json: json) }
        case .not(let inner): return RegexBudget.negation { inner.matchesContent(bytes, text: text, json: json) }
        default: return matches(text())
        }
    }

    /// WireMock's rules: without a nested pattern, something non-empty is selected; with one,
    /// an object (or anything, for `equalToJson`) is compared as JSON text, each element of a
    /// list on its own (any may match), a scalar as its text, and nothing only by `absent`.
    static func jsonPathMatches(_ path: JSONPath, _ nested: ContentPattern?, _ document: JSONNode) -> Bool {
        let result = path.evaluate(document)
        guard let nested else { return result.isPresentAndNotEmpty }
        var candidates: [String] = []
        switch result {
        case .missing:
            // WireMock writes a path that is not there as JSON null for equalToJson.
            if case .equalToJson = nested { candidates = ["null"] }
        case .value(let node):
            if case .equalToJson = nested {
                candidates = [JSONSerializer.string(node)]
            } else {
                switch node.value {
                case .null: break
                case .object: candidates = [JSONSerializer.string(node)]
                case .array(let elements): candidates = elements.map(\.scalarText)
                default: candidates = [node.scalarText]
                }
            }
        case .list(let nodes):
            if case .equalToJson = nested {
                candidates = [JSONSerializer.string(.array(nodes))]
            } else {
                candidates = nodes.map(\.scalarText)
            }
        }
        if candidates.isEmpty { return nested.isAbsent }
        return candidates.contains { nested.matches($0) }
    }

    var isAbsent: Bool { if case .absent = self { true } else { false } }

    /// How the expectation reads in a near-miss report.
    package var description: String {
        switch self {
        case .equalTo(let s, let ci): return "equalTo \"\(s)\"" + (ci ? " (ignoring case)" : "")
        case .contains(let s): return "contains \"\(s)\""
        case .doesNotContain(let s): return "doesNotContain \"\(s)\""
        case .matches(let r): return "matches /\(r.pattern)/"
        case .doesNotMatch(let r): return "doesNotMatch /\(r.pattern)/"
        case .absent: return "absent"
        case .anything: return "anything"
        case .equalToJson(let node, let order, let extra):
            var flags: [String] = []
            if order { flags.append("ignoreArrayOrder") }
            if extra { flags.append("ignoreExtraElements") }
            return "equalToJson \(RequestMatcher.excerpt(JSONSerializer.string(node.source)))"
                + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))")
        case .matchesJsonPath(let path, let nested):
            return "matchesJsonPath \(path.source)" + (nested.map { " " + $0.description } ?? "")
        case .binaryEqualTo(let bytes): return "binaryEqualTo (\(bytes.count) bytes)"
        case .and(let all): return all.map(\.description).joined(separator: " and ")
        case .or(let any): return any.map(\.description).joined(separator: " or ")
        case .not(let inner): return "not (\(inner.description))"
        case .number(let comparison, let n): return "\(comparison.rawValue) \(n)"
        case .unsupported(let name): return "\(name) (not supported by stubserver: never matches)"
        }
    }
}

/// How WireMock matches a name that may repeat (headers, query parameters, cookies, form
/// fields): a single pattern holds when any value matches it (and `absent` when there is
/// none); `hasExactly` and `includes` compare the whole list.
package enum MultiValuePattern: Sendable {
    case single(ContentPattern)
    case hasExactly([ContentPattern])
    case includes([ContentPattern])

    package func matches(_ values: [String]) -> Bool {
        switch self {
        case .single(let pattern):
            if pattern.isAbsent { return values.isEmpty }
            return values.contains { pattern.matches($0) }
        case .hasExactly(let patterns):
            return values.count == patterns.count && patterns.allSatisfy { p in values.contains { p.matches($0) } }
        case .includes(let patterns):
            return patterns.allSatisfy { p in values.contains { p.matches($0) } }
        }
    }

    package var description: String {
        switch self {
        case .single(let p): return p.description
        case .hasExactly(let ps): return "hasExactly [" + ps.map(\.description).joined(separator: ", ") + "]"
        case .includes(let ps): return "includes [" + ps.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

extension JSONNode {
    /// A scalar as Java's `String.valueOf` writes it (strings without quotes; a decimal as the
    /// double Jayway's JSON reader makes of it, `10.50` as `10.5`); containers as JSON.
    var scalarText: String {
        switch value {
        case .string(let s): return s
        case .number: return JSONPathFunction.javaText(self) ?? "null"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        default: return JSONSerializer.string(self)
        }
    }
}
