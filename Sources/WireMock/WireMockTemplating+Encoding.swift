#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Handlebars
import JSON
import StubEngine

/// WireMock's Handlebars as the stub format's templates, for `import wiremock`
/// (`StubEncoder.encodeModel`): a tag that has a native variable is rewritten to it
/// (`request.X`; a webhook's `originalRequest.X`), `parameters.X` becomes the parameter's value,
/// and a text with any other tag has no native form.
struct NativeTemplateText {
    /// `request` in a response, `originalRequest` in a webhook.
    let requestRoot: String
    let parameters: JSONNode?
    /// The written path's variables: a native template may name the captured ones; a fixed
    /// one is written as its value.
    let pathVariables: EncodedPathVariables
    /// Some tag HTML-escapes its output (WireMock does; native templates do not).
    private(set) var escapes = false
    /// Some tag became a native one (the text is a template).
    private(set) var templated = false

    init(requestRoot: String, parameters: JSONNode?, pathVariables: EncodedPathVariables) {
        self.requestRoot = requestRoot
        self.parameters = parameters
        self.pathVariables = pathVariables
    }

    /// The text with its tags rewritten; the text itself when it has none; nil when a tag has
    /// no native form.
    mutating func convert(_ text: String) -> String? {
        guard HandlebarsTemplate.hasTags(text) else { return text }
        let roots: Set<String> = [requestRoot, "parameters"]
        guard let pieces = (try? HandlebarsTemplate(text, knownRoots: roots))?.flatPieces else { return nil }
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let s):
                out += s
            case .path(let path, let escaped):
                if path.hasPrefix("parameters.") {
                    let value = parameters?[String(path.dropFirst("parameters.".count))]
                    guard let literal = value?.string ?? value?.number?.text else { return nil }
                    out += literal
                    continue
                }
                if path.hasPrefix(requestRoot + ".path."),
                    let value = pathVariables.fixed[String(path.dropFirst(requestRoot.count + 6))]
                {
                    escapes = escapes || escaped && value.contains(where: { "&<>\"'`=".contains($0) })
                    out += value
                    continue
                }
                guard path.hasPrefix(requestRoot + "."),
                    let native = Self.nativeVariable(
                        "request." + path.dropFirst(requestRoot.count + 1),
                        pathVariables: pathVariables.captured
                    )
                else { return nil }
                escapes = escapes || escaped
                templated = true
                out += "{{\(native)}}"
            case .call(let helper, _, let hash, _):
                guard let native = Self.nativeCall(helper, hash) else { return nil }
                templated = true
                out += "{{\(native)}}"
            }
        }
        return out
    }

    /// A JSON value whose strings are converted one by one (rendered natively, JSON-escaped).
    mutating func convert(json node: JSONNode) -> JSONNode? {
        switch node.value {
        case .string(let s): return convert(s).map { .string($0) }
        case .array(let elements):
            var out: [JSONNode] = []
            for element in elements {
                guard let e = convert(json: element) else { return nil }
                out.append(e)
            }
            return .array(out)
        case .object(let members):
            var out: [(String, JSONNode)] = []
            for member in members {
                guard let v = convert(json: member.value) else { return nil }
                out.append((member.key, v))
            }
            return .object(out)
        default:
            return node
        }
    }

    /// The native variable for a WireMock path, or nil when there is none. Names must be plain
    /// (letters, digits, `-`, `_`): Handlebars reads `{{request.path.id}{/each}}` as one path,
    /// and written natively it would not load (found by the wiremock fuzz target). A path
    /// segment by name must be one the written path captures, else the native loader refuses
    /// it; WireMock renders it empty.
    static func nativeVariable(_ path: String, pathVariables: Set<String>) -> String? {
        switch path {
        case "request.method", "request.body", "request.baseUrl", "request.path": return path
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

    static func nativeCall(_ helper: String, _ hash: [String: String]) -> String? {
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

extension WireMockResponseRenderer {
    /// The templated head and body as native templates; when any tag has no native form, the
    /// response as written, not templated.
    func encode(into response: inout EncodedResponse) {
        var text = NativeTemplateText(
            requestRoot: "request",
            parameters: parameters,
            pathVariables: response.pathVariables
        )
        let unconvertible = """
            the template uses tags without a native variable (blocks, helpers such as jsonPath); it is written \
            as plain text, not as a template
            """
        var headers: [(name: String, value: String)] = []
        for header in self.headers {
            guard let value = text.convert(header.value) else {
                response.gap(.dropped, ["response", "transformers"], unconvertible)
                return
            }
            headers.append((header.name, value))
        }
        var body = response.body
        switch self.body {
        case .fixed: break
        case .template(let template):
            let source = template.source
            if let node = try? JSONParser.parse(Array(source.utf8)), node.members != nil || node.elements != nil,
                JSONSerializer.string(node) == source
            {
                guard let converted = text.convert(json: node) else {
                    response.gap(.dropped, ["response", "transformers"], unconvertible)
                    return
                }
                body = .json(converted)
            } else {
                guard let converted = text.convert(source) else {
                    response.gap(.dropped, ["response", "transformers"], unconvertible)
                    return
                }
                body = .text(converted)
            }
        case .file(let name, _):
            response.gap(
                .dropped,
                ["response", "bodyFileName"],
                "a bodyFileName chosen by a template (\(name.source)) has no native form: the response has no body"
            )
        }
        response.headers = headers
        response.body = body
        response.templated = text.templated
        if text.escapes {
            response.gap(
                .approximated,
                ["response", "transformers"],
                "WireMock HTML-escapes {{...}} output; stubserver's templates do not (JSON bodies stay JSON-escaped)"
            )
        }
    }
}

extension WireMockWebhookRenderer {
    /// The webhook with its parts as native templates; nil (a gap) when a tag has no native form.
    func encode(pathVariables: EncodedPathVariables, gaps: inout [EncodingGap]) -> EncodedWebhook? {
        var text = NativeTemplateText(
            requestRoot: "originalRequest",
            parameters: parameters,
            pathVariables: pathVariables
        )
        func unconvertible() -> EncodedWebhook? {
            gaps.append(
                EncodingGap(
                    .dropped,
                    place,
                    "a webhook whose templates use tags without a native variable (helpers such "
                        + "as jsonPath, blocks) is not imported; serve the folder with --wiremock to keep it"
                )
            )
            return nil
        }
        guard let url = text.convert(self.url.text), let method = text.convert(self.method.text) else {
            return unconvertible()
        }
        var headers: [(name: String, value: String)] = []
        for header in self.headers {
            guard let value = text.convert(header.value.text) else { return unconvertible() }
            headers.append((header.name, value))
        }
        let carriesBody =
            ["POST", "PUT", "PATCH"].contains(method.uppercased()) || text.templated && method.contains("{{")
        var body = EncodedWebhook.Body.none
        switch self.body {
        case .none:
            break
        case .text(let part) where carriesBody:
            guard let converted = text.convert(part.text) else { return unconvertible() }
            body = .text(converted)
        case .bytes(let bytes) where carriesBody:
            body = .bytes(bytes)
        default:
            gaps.append(
                EncodingGap(.dropped, place, "WireMock sends no body with \(method); neither does the imported webhook")
            )
        }
        if text.escapes {
            gaps.append(
                EncodingGap(.approximated, place, "WireMock HTML-escapes {{...}} output; stubserver's templates do not")
            )
        }
        var encoded = EncodedWebhook(
            method: method.uppercased(),
            url: url,
            headers: headers,
            body: body,
            templated: text.templated
        )
        encoded.place = place
        return encoded
    }
}
