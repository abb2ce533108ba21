#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Handlebars
import JSON
import StubEngine

/// Webhooks: a mapping's `serveEventListeners` and `postServeActions` webhooks as the stub's
/// `"webhooks"`. WireMock's parts are always templates; a part whose tags all have a native
/// variable (`originalRequest.X` becomes `request.X`, `parameters.X` the parameter's value) is
/// written as a native template, and a webhook with a tag that has none is not imported.
extension WireMockConversion {
    mutating func webhooks(_ m: WireMockMapping) -> JSONNode? {
        var converted: [JSONNode] = []
        for webhook in m.webhooks {
            if let node = convertWebhook(webhook, m) { converted.append(node) }
        }
        return converted.isEmpty ? nil : .array(converted)
    }

    private mutating func convertWebhook(_ w: WireMockWebhook, _ m: WireMockMapping) -> JSONNode? {
        var templated = false
        var escapes = false
        let pathVariables = Self.pathVariables(m)
        func convert(_ text: String) -> String? {
            guard HandlebarsTemplate.hasTags(text) else { return text }
            let roots: Set<String> = ["originalRequest", "parameters"]
            guard let pieces = (try? HandlebarsTemplate(text, knownRoots: roots))?.flatPieces else { return nil }
            var out = ""
            for piece in pieces {
                switch piece {
                case .text(let s):
                    out += s
                case .path(let path, let escaped):
                    if path.hasPrefix("parameters.") {
                        let value = w.parameters[String(path.dropFirst("parameters.".count))]
                        guard let literal = value?.string ?? value?.number?.text else { return nil }
                        out += literal
                        continue
                    }
                    guard path.hasPrefix("originalRequest."),
                        let native = Self.nativeVariable(
                            "request." + path.dropFirst("originalRequest.".count),
                            pathVariables: pathVariables
                        )
                    else { return nil }
                    escapes = escapes || escaped
                    templated = true
                    out += "{{\(native)}}"
                case .call(let helper, let params, let hash, _):
                    guard let native = Self.nativeCall(helper, params, hash) else { return nil }
                    templated = true
                    out += "{{\(native)}}"
                }
            }
            return out
        }
        func unconvertible() -> JSONNode? {
            noteWebhook(
                .dropped,
                w,
                "a webhook whose templates use tags without a native variable (helpers such "
                    + "as jsonPath, blocks) is not imported; serve the folder with --wiremock to keep it"
            )
            return nil
        }
        guard let url = convert(w.url), let method = convert(w.method) else { return unconvertible() }
        var members: [(String, JSONNode)] = [("url", .string(url)), ("method", .string(method.uppercased()))]
        var headers: [(String, JSONNode)] = []
        for header in w.headers {
            guard let value = convert(header.value) else { return unconvertible() }
            headers.append((header.name, .string(value)))
        }
        if !headers.isEmpty { members.append(("headers", .object(headers))) }
        let carriesBody = ["POST", "PUT", "PATCH"].contains(method.uppercased()) || templated && method.contains("{{")
        switch w.body {
        case .none:
            break
        case .text(let text) where carriesBody:
            guard let body = convert(text) else { return unconvertible() }
            members.append(("body", .string(body)))
        case .bytes(let bytes) where carriesBody:
            members.append(("bodyBase64", .string(Data(bytes).base64EncodedString())))
        default:
            noteWebhook(.dropped, w, "WireMock sends no body with \(method); neither does the imported webhook")
        }
        if templated { members.append(("template", .bool(true))) }
        switch w.delay {
        case .fixed(let ms)?: members.append(("delay", .number(ms)))
        case .uniform(let lo, let hi)?:
            members.append(("delay", .object([("min", .number(lo)), ("max", .number(hi))])))
        case .logNormal(let median, _, _, let plus)?:
            members.append(("delay", .number(median + plus)))
            noteWebhook(.approximated, w, "a lognormal delay becomes a fixed delay of its median (\(median + plus) ms)")
        case nil: break
        }
        if escapes {
            noteWebhook(.approximated, w, "WireMock HTML-escapes {{...}} output; stubserver's templates do not")
        }
        return .object(members)
    }

    private mutating func noteWebhook(_ kind: WireMockImporter.Note.Kind, _ w: WireMockWebhook, _ message: String) {
        appendNote(
            WireMockImporter.Note(
                kind: kind,
                file: file,
                position: w.parameters.position,
                jsonPath: w.path,
                message: message
            )
        )
    }
}
