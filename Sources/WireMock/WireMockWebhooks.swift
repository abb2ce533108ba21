#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import Handlebars
import JSON
import StubEngine

/// A mapping's webhook as written: `serveEventListeners` (WireMock 3) or `postServeActions`
/// (WireMock 2, as an array of `{"name", "parameters"}` or an object of name to parameters).
/// Method, URL, header values and body are Handlebars templates over `originalRequest` and
/// `parameters`, compiled when the mapping becomes a stub.
package struct WireMockWebhook: Sendable {
    package enum Body: Sendable {
        case none
        case text(String)
        case bytes([UInt8])
    }

    package var method = "GET"
    package var url = ""
    package var headers: [(name: String, value: String)] = []
    package var body = Body.none
    package var delay: Delay?
    /// The parameters as written: templates see them as `parameters`.
    package var parameters: JSONNode
    /// Its JSON path, for messages.
    package var path: String
    /// Where it is below its mapping (`serveEventListeners[0].parameters`), for the import's notes.
    package var place: [DefinitionStep] = []
}

/// Reads a mapping's webhooks. WireMock takes a webhook's parameters without checking them
/// and fails the call when they are wrong, so a problem here is a warning and that webhook is
/// dropped; the mapping serves.
enum WireMockWebhookReader {
    static let listenerKeys = ["serveEventListeners", "postServeActions"]
    static let webhookName = "webhook"

    static func read(_ c: inout WireMockContext, _ mapping: JSONNode, _ path: String) -> [WireMockWebhook] {
        var webhooks: [WireMockWebhook] = []
        for key in listenerKeys {
            guard let list = mapping[key] else { continue }
            let listPath = path + "." + key
            if let elements = list.elements {
                for (i, element) in elements.enumerated() {
                    let at = "\(listPath)[\(i)]"
                    guard let name = element["name"]?.string else {
                        c.warning(
                            at,
                            element.position,
                            "expected {\"name\": \"webhook\", \"parameters\": {...}}; not run"
                        )
                        continue
                    }
                    guard name == webhookName else {
                        c.warning(
                            at + ".name",
                            element["name"]?.position,
                            "\"\(name)\" is a Java extension; only \"webhook\" is run"
                        )
                        continue
                    }
                    let parameters = element["parameters"] ?? .object([])
                    if var webhook = readWebhook(&c, parameters, at + ".parameters") {
                        webhook.place = [.key(key), .index(i), "parameters"]
                        webhooks.append(webhook)
                    }
                }
            } else if key == "postServeActions", let members = list.members {
                for member in members {
                    let at = listPath + DocumentProblem.pathComponent(member.key)
                    guard member.key == webhookName else {
                        c.warning(
                            at,
                            member.keyPosition,
                            "\"\(member.key)\" is a Java extension; only \"webhook\" is run"
                        )
                        continue
                    }
                    if var webhook = readWebhook(&c, member.value, at) {
                        webhook.place = [.key(key), .key(member.key)]
                        webhooks.append(webhook)
                    }
                }
            } else {
                c.warning(
                    listPath,
                    list.position,
                    "expected an array of {\"name\": \"webhook\", \"parameters\": {...}}; not run"
                )
            }
        }
        return webhooks
    }

    static func readWebhook(_ c: inout WireMockContext, _ node: JSONNode, _ path: String) -> WireMockWebhook? {
        guard node.members != nil else {
            c.warning(
                path,
                node.position,
                "expected the webhook's parameters (an object), found \(node.kindDescription); not sent"
            )
            return nil
        }
        var webhook = WireMockWebhook(parameters: node, path: path)
        var problems: [(String, SourcePosition?, String)] = []
        func string(_ key: String) -> String? {
            guard let value = node[key] else { return nil }
            if let s = value.string { return s }
            problems.append((path + "." + key, value.position, "expected a string, found \(value.kindDescription)"))
            return nil
        }
        if let method = string("method") { webhook.method = method }
        if let url = string("url") {
            webhook.url = url
        } else if node["url"] == nil {
            problems.append((path, node.position, "a webhook needs a \"url\""))
        }
        if let headers = node["headers"] {
            var scratch = c
            let before = scratch.problems.count
            webhook.headers = WireMockResponseReader.headers(&scratch, headers, path + ".headers")
            problems += scratch.problems[before...].map { ($0.jsonPath ?? path, $0.position, $0.message) }
        }
        if let text = string("body") {
            webhook.body = .text(text)
        } else if let encoded = string("base64Body") {
            if let data = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) {
                webhook.body = .bytes(Array(data))
            } else {
                problems.append(
                    (
                        path + ".base64Body", node["base64Body"]?.position,
                        "expected the body bytes as a base64 string"
                    )
                )
            }
        }
        if node["bodyFileName"] != nil, case .none = webhook.body {
            problems.append(
                (
                    path + ".bodyFileName", node["bodyFileName"]?.position,
                    "a webhook's bodyFileName is not supported; give \"body\""
                )
            )
        }
        if let delay = node["delay"] {
            var scratch = c
            let before = scratch.problems.count
            webhook.delay = WireMockResponseReader.delayDistribution(&scratch, delay, path + ".delay", plus: 0)
            problems += scratch.problems[before...].map { ($0.jsonPath ?? path, $0.position, $0.message) }
        }
        for (at, position, message) in problems { c.warning(at, position, message + "; the webhook is not sent") }
        return problems.isEmpty ? webhook : nil
    }

    /// The roots a webhook template may name.
    static let roots: Set<String> = ["originalRequest", "parameters"]

    /// The webhook ready to render; nil (with a warning) when a template does not parse.
    static func compile(_ webhook: WireMockWebhook, _ c: inout WireMockContext) -> Webhook? {
        var failed = false
        func template(_ text: String, _ at: String) -> HandlebarsTemplate? {
            guard HandlebarsTemplate.hasTags(text) else { return nil }
            let position = WebhookParameterPaths.locate(webhook.parameters, at.dropFirst(webhook.path.count))
            do {
                let compiled = try HandlebarsTemplate(text, knownRoots: roots)
                for warning in compiled.warnings { c.warning(at, position, warning) }
                return compiled
            } catch {
                c.warning(at, position, "template: \(error); the webhook is not sent")
                failed = true
                return nil
            }
        }
        func part(_ text: String, _ at: String) -> WireMockWebhookRenderer.Part {
            WireMockWebhookRenderer.Part(text: text, template: template(text, at))
        }
        let method = part(webhook.method, webhook.path + ".method")
        let url = part(webhook.url, webhook.path + ".url")
        let headers = webhook.headers.map { header in
            (header.name, part(header.value, webhook.path + ".headers" + DocumentProblem.pathComponent(header.name)))
        }
        var body: WireMockWebhookRenderer.Body = .none
        switch webhook.body {
        case .none: break
        case .text(let s): body = .text(part(s, webhook.path + ".body"))
        case .bytes(let bytes): body = .bytes(bytes)
        }
        guard !failed else { return nil }
        let renderer = WireMockWebhookRenderer(
            method: method,
            url: url,
            headers: headers,
            body: body,
            parameters: webhook.parameters,
            place: webhook.place
        )
        return Webhook(renderer: renderer, delay: webhook.delay)
    }
}

/// Where a relative JSON path (`.headers.X`) points in a node, for a message's line and column.
enum WebhookParameterPaths {
    static func locate(_ node: JSONNode, _ relative: Substring) -> SourcePosition {
        var current = node
        for key in relative.split(separator: ".") {
            guard let next = current[String(key)] else { break }
            current = next
        }
        return current.position
    }
}

/// A WireMock webhook rendered per request, as WireMock does: every part through Handlebars
/// with the request as `originalRequest`; the body is sent only with a method that carries one
/// (POST, PUT, PATCH), as WireMock's client does.
struct WireMockWebhookRenderer: WebhookRenderer {
    struct Part: Sendable {
        let text: String
        let template: HandlebarsTemplate?
    }

    enum Body: Sendable {
        case none
        case text(Part)
        case bytes([UInt8])
    }

    let method: Part
    let url: Part
    let headers: [(name: String, value: Part)]
    let body: Body
    let parameters: JSONNode
    /// Where the webhook is below its mapping, for the import's notes.
    let place: [DefinitionStep]

    func render(_ context: WebhookContext) -> WebhookCall {
        let request = WireMockRequestModel(
            facts: context.facts,
            captures: context.captures,
            fallbackBaseURL: context.fallbackBaseURL
        )
        let data = WireMockWebhookData(request: request, parameters: parameters, facts: context.facts)
        func render(_ part: Part) -> String {
            part.template.map { HandlebarsRenderer.render($0, data: data) } ?? part.text
        }
        var fields = HeaderFields()
        for header in headers {
            fields.add(header.name, String(render(header.value).map { $0 == "\r" || $0 == "\n" ? " " : $0 }))
        }
        let method = render(self.method).trimmingWhitespace().uppercased()
        var bytes: [UInt8] = []
        if ["POST", "PUT", "PATCH"].contains(method) {
            switch body {
            case .none: break
            case .text(let part): bytes = Array(render(part).utf8)
            case .bytes(let b): bytes = b
            }
        }
        return WebhookCall(
            method: method,
            url: render(url).trimmingWhitespace(),
            headers: fields,
            body: bytes
        )
    }
}

/// What a webhook template sees at its root: the request as `originalRequest`, the webhook's
/// parameters as `parameters`.
struct WireMockWebhookData: HandlebarsData {
    let request: WireMockRequestModel
    let parameters: JSONNode
    let facts: RequestFacts

    func root(_ name: String) -> HandlebarsValue? {
        switch name {
        case "originalRequest": return .object(request)
        case "parameters": return HandlebarsValue(json: parameters)
        default: return nil
        }
    }

    func parseJSON(_ text: String) -> JSONNode? {
        if text.utf8.count == facts.request.body.count, text == facts.bodyText { return facts.json }
        return try? JSONParser.parse(Array(text.utf8), limits: .requestBody)
    }
}
