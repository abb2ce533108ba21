#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine
import SystemSupport

/// One mapping file's mappings as native stub objects (JSON), with a note for everything the
/// stub format cannot say. Requests here; responses in `WireMockConversion+Response.swift`.
struct WireMockConversion {
    let file: String
    private(set) var notes: [WireMockImporter.Note] = []

    init(file: String) {
        self.file = file
    }

    /// The node at a path below the mapping (for a note's line and column).
    static func locate(_ node: JSONNode, _ path: [Any]) -> JSONNode? {
        var current: JSONNode? = node
        for step in path {
            if let key = step as? String {
                current = current?[key]
            } else if let index = step as? Int {
                current = current?.elements.flatMap { index < $0.count ? $0[index] : nil }
            }
        }
        return current
    }

    mutating func appendNote(_ note: WireMockImporter.Note) {
        notes.append(note)
    }

    mutating func note(_ kind: WireMockImporter.Note.Kind, _ mapping: WireMockMapping, _ path: [Any], _ message: String)
    {
        let jsonPath =
            mapping.path
            + path.map { ($0 as? Int).map { "[\($0)]" } ?? DocumentProblem.pathComponent($0 as? String ?? "") }.joined()
        let position = Self.locate(mapping.node, path)?.position ?? mapping.node.position
        notes.append(
            WireMockImporter.Note(kind: kind, file: file, position: position, jsonPath: jsonPath, message: message)
        )
    }

    mutating func stub(_ m: WireMockMapping, bodyFile: (String, [UInt8]) -> String) -> JSONNode? {
        // A path with a '%' not followed by two hex digits: the server refuses such a request
        // (400) before matching, so the mapping never answers, and the stub format refuses it.
        let raw: (key: String, path: Substring)?
        switch m.request.url {
        case .url(let s)?: raw = ("url", s.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        case .urlPath(let s)?: raw = ("urlPath", Substring(s))
        default: raw = nil
        }
        if let raw, PercentDecoding.decode(raw.path, strict: true) == nil {
            note(
                .skipped,
                m,
                ["request", raw.key],
                """
                the path has a '%' not followed by two hex digits; no request can carry it (the server answers \
                400), so the mapping is not imported
                """
            )
            return nil
        }
        var members: [(String, JSONNode)] = [("name", .string(m.name ?? m.summary))]
        if m.priority != 5 { members.append(("priority", .number(m.priority))) }
        members.append(("request", request(m)))
        guard let response = response(m, bodyFile: bodyFile) else { return nil }
        members.append(("response", response))
        if let webhooks = webhooks(m) { members.append(("webhooks", webhooks)) }
        if let rule = m.scenario {
            var scenario: [(String, JSONNode)] = [("name", .string(rule.name))]
            if let when = rule.when {
                scenario.append(("when", .string(when)))
            } else {
                note(
                    .approximated,
                    m,
                    ["scenarioName"],
                    """
                    a mapping without requiredScenarioState matches in any state; a native scenario stub needs \
                    one, so it is \"Started\"
                    """
                )
            }
            if let then = rule.then { scenario.append(("then", .string(then))) }
            members.append(("scenario", .object(scenario)))
        }
        return .object(members)
    }

    // MARK: Requests

    private mutating func request(_ m: WireMockMapping) -> JSONNode {
        let r = m.request
        var members: [(String, JSONNode)] = []
        if let methods = r.methods {
            members.append(("method", methods.count == 1 ? .string(methods[0]) : .array(methods.map { .string($0) })))
        }
        if !r.excludedMethods.isEmpty {
            note(.dropped, m, ["request", "method"], "noneOf has no native form: the stub matches every method")
        }
        var query: [(String, JSONNode)] = []
        var exactQuery: JSONNode?
        switch r.url {
        case .url(let url)?:
            // `url` is exact, query included: no other parameter, no other order, and no query
            // when it has none: `rawQuery` says so.
            let parts = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            members.append(path(String(parts[0])))
            exactQuery = parts.count > 1 ? .string(String(parts[1])) : .object([("absent", .bool(true))])
        case .urlPattern(let regex)?:
            let source = regex.pattern
            if let question = source.firstRange(of: "\\?") {
                members.append(("pathPattern", .string(String(source[..<question.lowerBound]))))
                note(
                    .dropped,
                    m,
                    ["request", "urlPattern"],
                    """
                    urlPattern's query part (\(source[question.lowerBound...])) is dropped: pathPattern matches \
                    the path only
                    """
                )
            } else {
                members.append(("pathPattern", .string(source)))
                note(
                    .approximated,
                    m,
                    ["request", "urlPattern"],
                    "urlPattern matched path and query; the pathPattern matches the path only"
                )
            }
        case .urlPath(let s)?: members.append(path(s))
        case .urlPathPattern(let regex)?: members.append(("pathPattern", .string(regex.pattern)))
        case .urlPathTemplate(let s, _)?:
            // Segment by segment: a literal, or a parameter's equalTo value, may hold characters
            // a native path gives meaning to ('*', '{', '%'...), so they are written escaped.
            var segments: [String] = []
            for part in s.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
                guard part.hasPrefix("{"), part.hasSuffix("}"), part.count > 2 else {
                    segments.append(Self.literalSegment(PercentDecoding.decodeLenient(part)))
                    continue
                }
                let name = String(part.dropFirst().dropLast())
                if case .equalTo(let value, false)? = r.pathParameters.first(where: { $0.name == name })?.pattern {
                    segments.append(Self.literalSegment(value))
                } else {
                    segments.append(String(part))
                }
            }
            for (name, pattern) in r.pathParameters {
                if case .equalTo(_, false) = pattern { continue }
                note(
                    .dropped,
                    m,
                    ["request", "pathParameters", name],
                    "\(pattern.description) on {\(name)} has no native form: any segment matches"
                )
            }
            members.append(("path", .string("/" + segments.joined(separator: "/"))))
        case nil: break
        }
        if let host = r.host {
            if let matcher = matcher(host) {
                members.append(("host", matcher))
            } else {
                note(.dropped, m, ["request", "host"], "\(host.description) has no native form")
            }
        }
        for (name, pattern) in r.query {
            if let matcher = multi(pattern) {
                query.append((name, matcher))
            } else {
                note(
                    .dropped,
                    m,
                    ["request", "queryParameters", name],
                    "\(pattern.description) has no native form: the parameter is not checked"
                )
            }
        }
        if !query.isEmpty { members.append(("query", .object(query))) }
        if let exactQuery { members.append(("rawQuery", exactQuery)) }
        var headers: [(String, JSONNode)] = []
        for (name, pattern) in r.headers {
            // WireMock takes any name; no request can carry one that is not a token, and the
            // stub format refuses it, so the whole folder would fail to load.
            guard HTTPToken.isToken(name) else {
                note(
                    .dropped,
                    m,
                    ["request", "headers", name],
                    "\"\(name)\" is not a valid header name, so no request carries it; the condition is not written"
                )
                continue
            }
            if let matcher = multi(pattern) {
                headers.append((name, matcher))
            } else {
                note(
                    .dropped,
                    m,
                    ["request", "headers", name],
                    "\(pattern.description) has no native form: the header is not checked"
                )
            }
        }
        for (name, pattern) in r.cookies {
            if case .single(.equalTo(let value, false)) = pattern {
                headers.append(("Cookie", .object([("contains", .string("\(name)=\(value)"))])))
                note(
                    .approximated,
                    m,
                    ["request", "cookies", name],
                    "the cookie is checked as Cookie containing \(name)=\(value)"
                )
            } else {
                note(
                    .dropped,
                    m,
                    ["request", "cookies", name],
                    "\(pattern.description) on a cookie has no native form"
                )
            }
        }
        if let auth = r.basicAuth {
            headers.append(
                (
                    "Authorization",
                    .string("Basic " + Data("\(auth.username):\(auth.password)".utf8).base64EncodedString())
                )
            )
        }
        if !headers.isEmpty { members.append(("headers", .object(headers))) }
        if let body = body(m) { members.append(("body", body)) }
        if let port = r.port { note(.dropped, m, ["request", "port"], "port \(port) is not checked") }
        if r.scheme != nil {
            note(.dropped, m, ["request", "scheme"], "the scheme is not checked (stubserver serves http)")
        }
        if r.clientIp != nil { note(.dropped, m, ["request", "clientIp"], "the client's address is not checked") }
        for key in r.unsupported { note(.dropped, m, ["request", key], "\(key) is not supported") }
        return .object(members)
    }

    /// One decoded segment as a native path writes it: the characters a native path gives
    /// meaning to, or that cannot stand in a segment, percent-encoded (the loader decodes them).
    static func literalSegment(_ decoded: String) -> String {
        let hex = Array("0123456789ABCDEF".unicodeScalars)
        var out = String.UnicodeScalarView()
        for scalar in decoded.unicodeScalars {
            if "%/?#{}*".unicodeScalars.contains(scalar) {
                out.append("%")
                out.append(hex[Int(scalar.value >> 4)])
                out.append(hex[Int(scalar.value & 0xF)])
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// A literal path, unless it has characters a native path gives meaning to.
    private func path(_ raw: String) -> (String, JSONNode) {
        if raw.contains(where: { $0 == "{" || $0 == "}" || $0 == "*" }) {
            return ("pathPattern", .string(PathTemplate.escapeRegex(PercentDecoding.decodeLenient(raw))))
        }
        return ("path", .string(raw))
    }

    private func multi(_ pattern: MultiValuePattern) -> JSONNode? {
        switch pattern {
        case .single(let p): return matcher(p)
        case .includes(let ps) where ps.count == 1: return matcher(ps[0])
        default: return nil
        }
    }

    /// A native string matcher for a WireMock one, when there is one.
    private func matcher(_ p: ContentPattern) -> JSONNode? {
        switch p {
        case .equalTo(let s, let ci):
            return ci ? .object([("equals", .string(s)), ("caseInsensitive", .bool(true))]) : .string(s)
        case .contains(let s): return .object([("contains", .string(s))])
        case .matches(let r): return .object([("matches", .string(r.pattern))])
        case .absent: return .object([("absent", .bool(true))])
        case .not(.absent): return .object([("present", .bool(true))])
        default: return nil
        }
    }

    private mutating func body(_ m: WireMockMapping) -> JSONNode? {
        var converted: JSONNode?
        if !m.request.form.isEmpty {
            var fields: [(String, JSONNode)] = []
            for (name, pattern) in m.request.form {
                if let matcher = multi(pattern) {
                    fields.append((name, matcher))
                } else {
                    note(.dropped, m, ["request", "formParameters", name], "\(pattern.description) has no native form")
                }
            }
            converted = .object([("form", .object(fields))])
        }
        for (i, pattern) in m.request.body.enumerated() {
            let place: [Any] = ["request", "bodyPatterns", i]
            guard converted == nil else {
                note(.dropped, m, place, "a native stub has one body condition; \(pattern.description) is not checked")
                continue
            }
            switch pattern {
            case .equalTo(let s, let ci):
                converted =
                    ci
                    ? .object([("equals", .string(s)), ("caseInsensitive", .bool(true))])
                    : .object([("equals", .string(s))])
            case .contains(let s): converted = .object([("contains", .string(s))])
            case .matches(let r): converted = .object([("matches", .string(r.pattern))])
            case .equalToJson(let expected, let ignoreOrder, let ignoreExtra):
                if expected.usesPlaceholders || ignoreOrder {
                    note(
                        .dropped,
                        m,
                        place,
                        """
                        equalToJson with \(ignoreOrder ? "ignoreArrayOrder" : "JsonUnit placeholders") has no \
                        native form: the body is not checked
                        """
                    )
                } else if ignoreExtra {
                    converted = .object([("json", expected.source)])
                    note(
                        .approximated,
                        m,
                        place,
                        """
                        ignoreExtraElements becomes a \"json\" (subset) condition: extra object keys are \
                        allowed, extra array items are not
                        """
                    )
                } else {
                    converted = .object([("jsonEquals", expected.source)])
                }
            default:
                note(.dropped, m, place, "\(pattern.description) has no native form: the body is not checked")
            }
        }
        return converted
    }
}
