#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Handlebars
import JSON
import StubEngine

/// Responses: status, headers, body forms (body files copied), delays, dribble, faults, proxy,
/// and templates whose tags have native variables.
extension WireMockConversion {
    mutating func response(_ m: WireMockMapping, bodyFile: (String, [UInt8]) -> String) -> JSONNode? {
        let r = m.response
        if let proxy = r.proxy {
            var rule: [(String, JSONNode)] = [("to", .string(proxy.upstream.description))]
            if let strip = proxy.stripPrefix { rule.append(("stripPrefix", .string(strip))) }
            if !proxy.setHeaders.isEmpty {
                rule.append(("headers", .object(proxy.setHeaders.map { ($0.name, .string($0.value)) })))
            }
            if !proxy.removeHeaders.isEmpty {
                rule.append(("removeHeaders", .array(proxy.removeHeaders.map { .string($0) })))
            }
            return .object([("proxy", .object(rule))])
        }
        if case .missingFile(let name) = r.body {
            // What `--wiremock` answers for it (WireMock's 500): the stub keeps the behaviour, and
            // the note says the file is missing.
            note(
                .approximated,
                m,
                ["response", "bodyFileName"],
                "bodyFileName \"\(name)\" is not in __files/: the stub answers 500, as the mapping does when served"
            )
            let answer = WireMockResponse.missingFileAnswer(name)
            return .object([
                ("status", .number(answer.status)),
                ("headers", .object([("Content-Type", .string("text/plain; charset=utf-8"))])),
                ("body", .string(String(decoding: answer.body, as: UTF8.self))),
            ])
        }
        var members: [(String, JSONNode)] = []
        if r.status != 200 { members.append(("status", .number(r.status))) }
        if r.statusMessage != nil {
            note(
                .dropped,
                m,
                ["response", "statusMessage"],
                "the stub format has no reason phrase; the status's usual one is sent"
            )
        }
        var headers: [(String, JSONNode)] = []
        for name in r.headers.map(\.name).reduce(into: [String](), { if !$0.contains($1) { $0.append($1) } }) {
            let values = r.headers.filter { $0.name == name }.map { JSONNode.string($0.value) }
            headers.append((name, values.count == 1 ? values[0] : .array(values)))
        }
        var template = r.templated
        var body: (String, JSONNode)?
        switch r.body {
        case .none: break
        case .text(let s): body = ("body", .string(s))
        case .json(let node): body = ("body", node)
        case .bytes(let bytes): body = ("bodyBase64", .string(Data(bytes).base64EncodedString()))
        case .file(let name, let bytes): body = ("bodyFile", .string(bodyFile(name, bytes)))
        case .missingFile: break
        case .templatedFile(let name):
            note(
                .dropped,
                m,
                ["response", "bodyFileName"],
                "a bodyFileName chosen by a template (\(name.source)) has no native form: the response has no body"
            )
            template = false
        }
        if template {
            template = convertTemplates(m, body: &body, headers: &headers)
        }
        if !headers.isEmpty { members.append(("headers", .object(headers))) }
        if let body { members.append(body) }
        if template { members.append(("template", .bool(true))) }
        switch r.delayDistribution {
        case .uniform(let lo, let hi)?:
            members.append(("delay", .object([("min", .number(lo)), ("max", .number(hi))])))
        case .fixed(let ms)?: members.append(("delay", .number(ms)))
        case .logNormal(let median, _, _, let plus)?:
            members.append(("delay", .number(median + plus)))
            note(
                .approximated,
                m,
                ["response", "delayDistribution"],
                "a lognormal delay becomes a fixed delay of its median (\(median + plus) ms)"
            )
        case nil: if let fixed = r.fixedDelay, fixed > 0 { members.append(("delay", .number(fixed))) }
        }
        if let fault = r.fault {
            let native: String
            switch fault {
            case .reset: native = "reset"
            case .empty: native = "empty"
            case .garbage: native = "garbage"
            default:
                native = "garbage"
                note(
                    .approximated,
                    m,
                    ["response", "fault"],
                    "MALFORMED_RESPONSE_CHUNK becomes \"garbage\" (bytes that are not HTTP, then close)"
                )
            }
            members = members.filter {
                $0.0 != "body" && $0.0 != "bodyFile" && $0.0 != "bodyBase64" && $0.0 != "template"
            }
            members.append(("fault", .string(native)))
        } else if let dribble = r.dribble {
            members.append(
                (
                    "dribble",
                    .object([
                        ("chunks", .number(dribble.chunks)), ("durationMs", .number(dribble.durationMilliseconds)),
                    ])
                )
            )
        }
        return .object(members)
    }

    /// Rewrites Handlebars tags that have a native variable; false (the text kept as written,
    /// templating off) when any tag has none.
    private mutating func convertTemplates(
        _ m: WireMockMapping,
        body: inout (String, JSONNode)?,
        headers: inout [(String, JSONNode)]
    ) -> Bool {
        var uses = false
        var escapes = false
        func convert(_ text: String) -> String?? {
            guard HandlebarsTemplate.hasTags(text) else { return .some(nil) }
            guard let pieces = (try? HandlebarsTemplate(text, knownRoots: ["request", "parameters"]))?.flatPieces else {
                return nil
            }
            var out = ""
            for piece in pieces {
                switch piece {
                case .text(let s): out += s
                case .path(let path, let escaped):
                    guard let native = Self.nativeVariable(path, pathVariables: Self.pathVariables(m)) else {
                        return nil
                    }
                    escapes = escapes || escaped
                    out += "{{\(native)}}"
                case .call(let helper, let params, let hash, _):
                    guard let native = Self.nativeCall(helper, params, hash) else { return nil }
                    out += "{{\(native)}}"
                }
            }
            uses = true
            return .some(out)
        }
        var converted: [(String, JSONNode)] = []
        for (name, value) in headers {
            let values = value.elements ?? [value]
            var rewritten: [JSONNode] = []
            for v in values {
                guard let result = convert(v.string ?? "") else { return failed(m) }
                rewritten.append(result.map { .string($0) } ?? v)
            }
            converted.append((name, value.elements == nil ? rewritten[0] : .array(rewritten)))
        }
        if let (key, node) = body {
            switch node.value {
            case .string(let s) where key == "body":
                guard let result = convert(s) else { return failed(m) }
                if let text = result { body = (key, .string(text)) }
            case .object, .array:
                // A JSON body's strings are rendered one by one natively.
                guard let rewritten = rewriteStrings(node, convert) else { return failed(m) }
                body = (key, rewritten)
            default:
                if key == "bodyFile" {
                    note(
                        .dropped,
                        m,
                        ["response", "bodyFileName"],
                        "a templated body file is copied as it is, not as a template"
                    )
                }
            }
        }
        headers = converted
        if escapes {
            note(
                .approximated,
                m,
                ["response", "transformers"],
                "WireMock HTML-escapes {{...}} output; stubserver's templates do not (JSON bodies stay JSON-escaped)"
            )
        }
        return uses
    }

    private func rewriteStrings(_ node: JSONNode, _ convert: (String) -> String??) -> JSONNode? {
        switch node.value {
        case .string(let s):
            guard let result = convert(s) else { return nil }
            return result.map { .string($0) } ?? node
        case .array(let elements):
            var out: [JSONNode] = []
            for element in elements {
                guard let e = rewriteStrings(element, convert) else { return nil }
                out.append(e)
            }
            return .array(out)
        case .object(let members):
            var out: [(String, JSONNode)] = []
            for member in members {
                guard let v = rewriteStrings(member.value, convert) else { return nil }
                out.append((member.key, v))
            }
            return .object(out)
        default:
            return node
        }
    }

    private mutating func failed(_ m: WireMockMapping) -> Bool {
        note(
            .dropped,
            m,
            ["response", "transformers"],
            """
            the template uses tags without a native variable (blocks, helpers such as jsonPath); it is written \
            as plain text, not as a template
            """
        )
        return false
    }

    /// The native variable for a WireMock path, or nil when there is none. Names must be plain
    /// (letters, digits, `-`, `_`): Handlebars reads `{{request.path.id}{/each}}` as one path,
    /// and written natively it would not load (found by the wiremock fuzz target). A path
    /// segment by name must be one the mapping's `urlPathTemplate` captures, else the native
    /// loader refuses it; WireMock renders it empty.
    static func nativeVariable(_ path: String, pathVariables: Set<String> = []) -> String? {
        switch path {
        case "request.method", "request.body", "request.baseUrl": return path
        case "request.path": return path
        default: break
        }
        func plain(_ name: Substring) -> Bool {
            !name.isEmpty
                && name.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
                }
        }
        for prefix in ["request.query.", "request.headers."] where path.hasPrefix(prefix) {
            let name = path.dropFirst(prefix.count)
            if plain(name) { return prefix + name }
        }
        if path.hasPrefix("request.path.") {
            let name = path.dropFirst("request.path.".count)
            if plain(name), Int(name) == nil, pathVariables.contains(String(name)) { return "request.path.\(name)" }
        }
        return nil
    }

    /// The `{names}` a mapping's `urlPathTemplate` captures (none for other URL forms).
    static func pathVariables(_ m: WireMockMapping) -> Set<String> {
        guard case .urlPathTemplate(let template, _)? = m.request.url else { return [] }
        var names: Set<String> = []
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.insert(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    static func nativeCall(_ helper: String, _ params: [String], _ hash: [String: String]) -> String? {
        switch helper {
        case "now" where hash.isEmpty: return "now"
        case "randomValue" where hash["type"]?.uppercased() == "UUID": return "uuid"
        case "randomInt":
            guard let lo = Int(hash["lower"] ?? ""), let hi = Int(hash["upper"] ?? ""), hi > lo else { return nil }
            return "randomInt \(lo) \(hi - 1)"
        default: return nil
        }
    }
}
