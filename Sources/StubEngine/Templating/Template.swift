#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import SystemSupport

/// Text with `{{...}}` slots, split at load into literal bytes and variables.
package struct Template: Sendable {
    enum Part: Sendable {
        case literal([UInt8])
        /// `jsonEscaped`: the slot sits inside a JSON string, so the value is escaped to keep the
        /// body valid JSON whatever the client sent.
        case variable(TemplateVariable, jsonEscaped: Bool)
    }

    private(set) var parts: [Part] = []

    /// An empty template, which `scan` fills.
    package init() {}

    package var hasVariables: Bool { parts.contains { if case .variable = $0 { true } else { false } } }

    var variables: [TemplateVariable] {
        parts.compactMap { if case .variable(let variable, _) = $0 { variable } else { nil } }
    }

    /// Two uses of one name in an answer (`{{uuid 'id'}}` and `{{randomInt 1 9 'id'}}`) that
    /// would not give one value: each such name, with what its uses are.
    package static func conflictingNames(_ templates: [Template]) -> [(name: String, definitions: [String])] {
        var seen: [String: [String]] = [:]
        var order: [String] = []
        for template in templates {
            for case let (name, definition)? in template.variables.map(\.answerName) {
                if seen[name] == nil { order.append(name) }
                if !(seen[name] ?? []).contains(definition) { seen[name, default: []].append(definition) }
            }
        }
        return order.compactMap { name in
            let definitions = seen[name] ?? []
            return definitions.count > 1 ? (name, definitions) : nil
        }
    }

    mutating func appendLiteral(_ bytes: some Sequence<UInt8>) {
        if case .literal(let existing)? = parts.last {
            parts[parts.count - 1] = .literal(existing + Array(bytes))
        } else {
            parts.append(.literal(Array(bytes)))
        }
    }

    mutating func append(_ variable: TemplateVariable, jsonEscaped: Bool) {
        parts.append(.variable(variable, jsonEscaped: jsonEscaped))
    }

    /// Splits `text` into literals and variables. In a JSON string, literals are escaped here,
    /// once, and variables are marked for escaping at render time. `allowsMessage`: a
    /// WebSocket rule's reply, where `message.text` and `message.json` are known.
    package static func scan(
        _ text: String,
        pathParameters: Set<String>?,
        jsonString: Bool,
        into template: inout Template,
        allowsMessage: Bool = false
    ) -> [TemplateError] {
        var errors: [TemplateError] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{") {
            template.appendLiteral(escaped(rest[..<open.lowerBound], json: jsonString))
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
                errors.append(TemplateError("\"{{\" without a closing \"}}\""))
                template.appendLiteral(escaped(rest[open.lowerBound...], json: jsonString))
                return errors
            }
            switch TemplateVariable.parse(
                String(rest[open.upperBound..<close.lowerBound]),
                pathParameters: pathParameters,
                allowsMessage: allowsMessage
            ) {
            case .success(.asJSON) where jsonString:
                let tag = "{{" + rest[open.upperBound..<close.lowerBound] + "}}"
                errors.append(
                    TemplateError(
                        tag + " inserts a JSON value, which cannot sit inside a longer string: make it the "
                            + "whole string, as in \"quantity\": \"{{json request.json./qty}}\""
                    )
                )
            case .success(let variable): template.append(variable, jsonEscaped: jsonString)
            case .failure(let error): errors.append(error)
            }
            rest = rest[close.upperBound...]
        }
        template.appendLiteral(escaped(rest, json: jsonString))
        return errors
    }

    /// The variable of a JSON string that is exactly `{{json ...}}`: it replaces the whole
    /// string, quotes included, so `"{{json request.json./qty}}"` gives `2`.
    static func wholeJSONValue(
        _ text: String,
        pathParameters: Set<String>?,
        allowsMessage: Bool
    ) -> TemplateVariable? {
        guard text.hasPrefix("{{"), text.hasSuffix("}}"), text.count >= 4 else { return nil }
        let inside = text.dropFirst(2).dropLast(2)
        guard !inside.contains("{{"), !inside.contains("}}") else { return nil }
        let parsed = TemplateVariable.parse(
            String(inside),
            pathParameters: pathParameters,
            allowsMessage: allowsMessage
        )
        guard case .success(.asJSON(let variable)) = parsed else { return nil }
        return .asJSON(variable)
    }

    private static func escaped(_ text: Substring, json: Bool) -> [UInt8] {
        guard json else { return Array(text.utf8) }
        var out: [UInt8] = []
        JSONSerializer.writeString(String(text), into: &out)
        return Array(out.dropFirst().dropLast())
    }

    /// The rendered bytes; nil as soon as they pass `context.maximumRenderedBytes` (a body
    /// echoed ten thousand times under concurrent megabyte requests held half a gigabyte).
    package func render(_ context: TemplateContext) -> [UInt8]? {
        var out: [UInt8] = []
        let limit = context.maximumRenderedBytes
        for part in parts {
            switch part {
            case .literal(let bytes):
                guard out.count + bytes.count <= limit else { return nil }
                out.append(contentsOf: bytes)
            case .variable(let variable, let jsonEscaped):
                let value = context.value(of: variable)
                if jsonEscaped {
                    var quoted: [UInt8] = []
                    JSONSerializer.writeString(value, into: &quoted)
                    guard out.count + quoted.count - 2 <= limit else { return nil }
                    out.append(contentsOf: quoted.dropFirst().dropLast())
                } else {
                    guard out.count + value.utf8.count <= limit else { return nil }
                    out.append(contentsOf: value.utf8)
                }
            }
        }
        return out
    }

    package func renderString(_ context: TemplateContext) -> String? {
        render(context).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// What a template can see: the request, the path captures, and the address the client used.
package struct TemplateContext {
    package let facts: RequestFacts
    package let captures: [String: String]
    /// Used when the request names no host (HTTP/1.0 without Host).
    package let fallbackBaseURL: String
    /// A rendered body (or header value) larger than this is not sent: `500` instead
    /// (`--max-rendered-body`).
    package var maximumRenderedBytes = TemplateContext.defaultMaximumRenderedBytes
    /// A WebSocket message being answered (its text as the body), for `message.text` and
    /// `message.json`.
    var message: RequestFacts? = nil
    /// The answer whose clock and named values this context shares; nil: the request's own
    /// (`RequestFacts.templateAnswer`). A stream passes one that lasts as long as it does.
    var answer: TemplateAnswer? = nil

    package static let defaultMaximumRenderedBytes = 8 << 20

    /// The answer when a template renders more than the limit: said, journaled, and small.
    package static func overLimit(_ limit: Int) -> PreparedResponse {
        let message =
            "stubserver: the response template rendered more than \(limit) bytes (--max-rendered-body); "
            + "nothing of it was sent\n"
        return PreparedResponse(
            status: 500,
            headers: HeaderFields([("Content-Type", "text/plain; charset=utf-8")]),
            body: Array(message.utf8)
        )
    }

    /// The answer this context renders part of: its clock reading and named values.
    private var currentAnswer: TemplateAnswer { answer ?? facts.templateAnswer }

    func value(of variable: TemplateVariable) -> String {
        let request = facts.request
        switch variable {
        case .method: return request.method
        case .path: return request.path
        case .pathParameter(let name): return captures[name] ?? ""
        case .query(let name): return request.queryValues(name).first ?? ""
        case .header(let name): return request.headers.values(name).joined(separator: ", ")
        case .body: return facts.bodyText
        case .json(let pointer):
            guard let node = facts.json.flatMap(pointer.resolve) else { return "" }
            return node.string ?? JSONSerializer.string(node)
        case .baseURL:
            guard let authority = request.authority, !authority.isEmpty else { return fallbackBaseURL }
            return "http://" + authority
        case .now(let offset):
            return DateFormats.rfc3339(
                epochMilliseconds: (currentAnswer.epochSeconds + offset) * 1000,
                withMilliseconds: false
            )
        case .uuid(nil):
            return RandomUUID.lowercase()
        case .randomInt(let lo, let hi, nil):
            return String(Int.random(in: lo...hi))
        case .uuid(let name?):
            return currentAnswer.value("uuid " + name) { RandomUUID.lowercase() }
        case .randomInt(let lo, let hi, let name?):
            return currentAnswer.value("randomInt \(lo) \(hi) " + name) { String(Int.random(in: lo...hi)) }
        case .messageText:
            return message?.bodyText ?? ""
        case .messageJSON(let pointer):
            guard let node = message?.json.flatMap(pointer.resolve) else { return "" }
            return node.string ?? JSONSerializer.string(node)
        case .asJSON(let inner):
            return jsonText(of: inner)
        }
    }

    /// `{{json ...}}`: JSON values as they are, absent ones as `null`, numbers as numbers,
    /// everything else as a JSON string.
    private func jsonText(of variable: TemplateVariable) -> String {
        switch variable {
        case .json(let pointer):
            return facts.json.flatMap(pointer.resolve).map { JSONSerializer.string($0) } ?? "null"
        case .messageJSON(let pointer):
            return message?.json.flatMap(pointer.resolve).map { JSONSerializer.string($0) } ?? "null"
        case .query(let name):
            guard let value = facts.request.queryValues(name).first else { return "null" }
            return Self.jsonString(value)
        case .header(let name):
            let values = facts.request.headers.values(name)
            return values.isEmpty ? "null" : Self.jsonString(values.joined(separator: ", "))
        case .randomInt:
            return value(of: variable)
        default:
            return Self.jsonString(value(of: variable))
        }
    }

    private static func jsonString(_ text: String) -> String {
        var out: [UInt8] = []
        JSONSerializer.writeString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
