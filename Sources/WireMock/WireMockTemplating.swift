#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import Handlebars
import JSON
import StubEngine
import SystemSupport

/// WireMock's response templating: the request model templates see (`request.url`,
/// `request.path`, `request.pathSegments.[n]`, `request.query.x`, `request.headers.x`,
/// `request.cookies.x`, `request.method`, `request.body`, `request.baseUrl`...), and the
/// renderer of a templated response (body, header values, and a `bodyFileName` chosen per
/// request), all compiled at load.
enum WireMockTemplating {
    /// The roots a WireMock template may name.
    static let roots: Set<String> = ["request", "parameters"]
}

/// A templated mapping's response.
struct WireMockResponseRenderer: ResponseRenderer {
    enum Body: Sendable {
        case fixed([UInt8])
        case template(HandlebarsTemplate)
        /// `bodyFileName` rendered per request, then that file (itself rendered when it has tags).
        case file(HandlebarsTemplate, WireMockFilesCache)
    }

    let status: Int
    let reason: String?
    let headers: [(name: String, value: String, template: HandlebarsTemplate?)]
    let body: Body
    let parameters: JSONNode?

    func render(_ context: TemplateContext) -> PreparedResponse {
        let data = WireMockTemplateData(
            facts: context.facts,
            captures: context.captures,
            fallbackBaseURL: context.fallbackBaseURL,
            parameters: parameters
        )
        var rendered = HeaderFields()
        for header in headers {
            rendered.add(header.name, header.template.map { HandlebarsRenderer.render($0, data: data) } ?? header.value)
        }
        var status = self.status
        let bytes: [UInt8]
        switch body {
        case .fixed(let b): bytes = b
        case .template(let template):
            let limit = context.maximumRenderedBytes
            guard let text = HandlebarsRenderer.render(template, data: data, limit: limit) else {
                return TemplateContext.overLimit(limit)
            }
            bytes = Array(text.utf8)
        case .file(let nameTemplate, let files):
            let name = HandlebarsRenderer.render(nameTemplate, data: data)
            switch files.lookup(name) {
            case .found(let file):
                if let template = file.template {
                    let limit = context.maximumRenderedBytes
                    guard let text = HandlebarsRenderer.render(template, data: data, limit: limit) else {
                        return TemplateContext.overLimit(limit)
                    }
                    bytes = Array(text.utf8)
                } else {
                    bytes = file.bytes
                }
            case .refused(let why):
                status = 500
                bytes = Array("\(why) (from the template \(nameTemplate.source)); it is not served\n".utf8)
            case .missing:
                status = 500
                bytes = Array(
                    "bodyFileName \"\(name)\" (from the template \(nameTemplate.source)) is not in __files\n".utf8
                )
            }
        }
        return PreparedResponse(
            status: status,
            reason: status == self.status ? reason : nil,
            headers: rendered,
            body: bytes
        )
    }
}

/// What a WireMock template sees at its root.
struct WireMockTemplateData: HandlebarsData {
    let facts: RequestFacts
    let captures: [String: String]
    let fallbackBaseURL: String
    let parameters: JSONNode?

    func root(_ name: String) -> HandlebarsValue? {
        switch name {
        case "request":
            return .object(WireMockRequestModel(facts: facts, captures: captures, fallbackBaseURL: fallbackBaseURL))
        case "parameters": return parameters.map { HandlebarsValue(json: $0) }
        default: return nil
        }
    }

    func parseJSON(_ text: String) -> JSONNode? {
        // The body is parsed once per request, whoever asks.
        if text.utf8.count == facts.request.body.count, text == facts.bodyText { return facts.json }
        return try? JSONParser.parse(Array(text.utf8), limits: .requestBody)
    }
}

/// `request` in a template. Members are computed when a tag asks for them.
struct WireMockRequestModel: HandlebarsObject, @unchecked Sendable {
    // RequestFacts is one request's, used on one thread while its template renders.
    let facts: RequestFacts
    let captures: [String: String]
    let fallbackBaseURL: String

    var text: String { facts.rawURL }

    func member(_ name: String) -> HandlebarsValue {
        let request = facts.request
        switch name {
        case "url": return .string(facts.rawURL)
        case "path":
            return .object(
                URLPathModel(path: facts.rawPath, segments: facts.segments.map(String.init), captures: captures)
            )
        case "pathSegments": return .list(facts.segments.map { .string(String($0)) })
        case "query":
            return .object(
                NamedValuesModel(lookup: { name in request.queryValues(name) }, text: request.rawQuery ?? "")
            )
        case "headers": return .object(NamedValuesModel(lookup: { request.headers.values($0) }, text: ""))
        case "cookies": return .object(NamedValuesModel(lookup: { facts.cookies($0) }, text: ""))
        case "method": return .string(request.method)
        case "body": return .string(facts.bodyText)
        case "bodyAsBase64": return .string(Base64.encode(request.body))
        case "baseUrl":
            guard let authority = request.authority, !authority.isEmpty else { return .string(fallbackBaseURL) }
            return .string("http://" + authority)
        case "host": return .string(request.hostWithoutPort ?? "")
        case "port": return facts.port.map { .number($0) } ?? .null
        case "scheme": return .string("http")
        case "clientIp": return .string(facts.clientIP)
        case "id": return .string(facts.templateRequestID)
        default: return .null
        }
    }
}

/// `request.path`: writes the path, and is also its segments (`request.path.[0]`) and the
/// `urlPathTemplate` variables (`request.path.id`), as in WireMock.
struct URLPathModel: HandlebarsObject {
    let path: String
    let segments: [String]
    let captures: [String: String]

    var text: String { path }
    var elements: [HandlebarsValue]? { segments.map { .string($0) } }

    func member(_ name: String) -> HandlebarsValue {
        if let value = captures[name] { return .string(value) }
        if let i = Int(name), segments.indices.contains(i) { return .string(segments[i]) }
        return .null
    }
}

/// Query parameters, headers or cookies by name: one value writes as itself, several as a list
/// (`[a, b]`, indexable with `.[1]`), as WireMock's `ListOrSingle` does. Header names ignore case.
struct NamedValuesModel: HandlebarsObject, @unchecked Sendable {
    // The closure reads one request's values, on the thread rendering it.
    let lookup: (String) -> [String]
    let text: String

    func member(_ name: String) -> HandlebarsValue {
        let values = lookup(name)
        return values.isEmpty ? .null : .object(HandlebarsValueList(values: values))
    }
}
