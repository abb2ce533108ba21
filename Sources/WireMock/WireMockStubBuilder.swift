#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import Handlebars
import JSON
import SystemSupport
import StubEngine

/// Turns a checked WireMock mapping into the engine's own `Stub`: the URL becomes a path
/// pattern wherever it can (so the exact-path index finds it, as fast as a native stub), the
/// rest become `WireMockCondition`s; the response is prepared once, or compiled into a
/// Handlebars renderer when it is templated.
package enum WireMockStubBuilder {
    package static func stub(
        _ m: WireMockMapping,
        _ c: inout WireMockContext,
        source: StubSource,
        order: Int,
        id: String,
        defaultName: String
    ) -> Stub? {
        let before = c.problems.count
        let request = pattern(m.request, &c, m.path + ".request")
        let response = makeResponse(
            m.response,
            &c,
            m.path + ".response",
            pathParameters: request.path?.parameterNames ?? []
        )
        guard !c.problems[before...].contains(where: { $0.severity == .error }), let response else { return nil }
        let webhooks = m.webhooks.compactMap { WireMockWebhookReader.compile($0, &c) }
        return Stub(
            name: m.name ?? defaultName,
            source: source,
            priority: m.priority,
            request: request,
            responses: [response],
            scenario: m.scenario,
            order: order,
            definition: m.node,
            dialect: .wiremock,
            id: id,
            webhooks: webhooks
        )
    }

    /// The request conditions (also used to find journal entries by a WireMock pattern).
    package static func pattern(_ r: WireMockRequest, _ c: inout WireMockContext, _ path: String) -> RequestPattern {
        var conditions: [WireMockCondition] = []
        var pathPattern: PathPattern?
        switch r.url {
        case .url(let url)?:
            let rawPath = url.firstIndex(of: "?").map { String(url[..<$0]) } ?? url
            pathPattern = literalPath(rawPath)
            conditions.append(.rawURL(.equalTo(url, caseInsensitive: false)))
        case .urlPattern(let regex)?:
            conditions.append(.rawURL(.matches(regex)))
        case .urlPath(let rawPath)?:
            if let literal = literalPath(rawPath) {
                pathPattern = literal
            } else {
                conditions.append(.rawPath(rawPath))
            }
        case .urlPathPattern(let regex)?:
            pathPattern = .regex(regex)
        case .urlPathTemplate(_, let template)?:
            pathPattern = template
        case nil:
            break
        }
        if !r.excludedMethods.isEmpty { conditions.append(.excludedMethods(r.excludedMethods)) }
        conditions += r.pathParameters.map { .pathParameter($0.name, $0.pattern) }
        conditions += r.query.map { .query($0.name, $0.pattern) }
        conditions += r.headers.map { .header($0.name, $0.pattern) }
        conditions += r.cookies.map { .cookie($0.name, $0.pattern) }
        conditions += r.form.map { .form($0.name, $0.pattern) }
        if let auth = r.basicAuth { conditions.append(.basicAuth(username: auth.username, password: auth.password)) }
        if let host = r.host { conditions.append(.host(host)) }
        if let port = r.port { conditions.append(.port(port)) }
        if r.scheme == "https" {
            conditions.append(.never("scheme https (stubserver serves http)", place: ["request", "scheme"]))
        }
        if let ip = r.clientIp { conditions.append(.clientIp(ip)) }
        conditions += r.body.enumerated().map { .body($0.element, index: $0.offset) }
        conditions += r.multipart.enumerated().map { .multipart($0.element, index: $0.offset) }
        conditions += r.unsupported.map { .never("\($0) (not supported by stubserver)", place: ["request", .key($0)]) }
        return RequestPattern(methods: r.methods, path: pathPattern, conditions: conditions)
    }

    /// A path of literal segments, percent-decoded as request paths are (so it goes into the
    /// exact-path index); nil when it cannot be one (bad escapes, dot segments, which clients
    /// remove before sending).
    static func literalPath(_ rawPath: String) -> PathPattern? {
        guard rawPath.hasPrefix("/") else { return nil }
        var segments: [PathPattern.Segment] = []
        for part in rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard part != "." && part != "..", let decoded = PercentDecoding.decode(part, strict: true) else {
                return nil
            }
            segments.append(.literal(decoded))
        }
        return .segments(source: rawPath, segments)
    }

    static func makeResponse(
        _ r: WireMockResponse,
        _ c: inout WireMockContext,
        _ path: String,
        pathParameters: Set<String>
    ) -> StubResponse? {
        if case .missingFile(let name) = r.body {
            return StubResponse(prepared: WireMockResponse.missingFileAnswer(name))
        }
        var headers = HeaderFields()
        for header in r.headers { headers.add(header.name, header.value) }
        let prepared = PreparedResponse(
            status: r.status,
            reason: r.statusMessage,
            headers: headers,
            body: r.staticBody ?? []
        )
        var delay: Delay? = r.delayDistribution ?? r.fixedDelay.map { .fixed($0) }
        if delay == .fixed(0) { delay = nil }
        let renderer = r.templated ? templateRenderer(r, &c, path) : nil
        return StubResponse(
            prepared: prepared,
            delay: delay,
            fault: r.fault,
            dribble: r.dribble,
            template: renderer,
            proxy: r.proxy
        )
    }

    private static func templateRenderer(
        _ r: WireMockResponse,
        _ c: inout WireMockContext,
        _ path: String
    ) -> WireMockResponseRenderer? {
        func compile(_ text: String, _ at: String) -> HandlebarsTemplate? {
            guard HandlebarsTemplate.hasTags(text) else { return nil }
            let key = String(at.dropFirst(path.count + 1))
            let position = r.positions[key] ?? r.positions[String(key.prefix { $0 != " " })]
            do {
                let template = try HandlebarsTemplate(text, knownRoots: WireMockTemplating.roots)
                for warning in template.warnings { c.warning(at, position, warning) }
                return template
            } catch {
                c.problem(
                    StubProblem(
                        .error,
                        file: c.displayPath,
                        position: position,
                        jsonPath: at,
                        message: "template: \(error)"
                    )
                )
                return nil
            }
        }
        var uses = false
        var headers: [(name: String, value: String, template: HandlebarsTemplate?)] = []
        for (i, header) in r.headers.enumerated() {
            let template = compile(header.value, path + ".headers" + DocumentProblem.pathComponent(header.name))
            if template != nil { uses = true }
            headers.append((r.headers[i].name, header.value, template))
        }
        var body = WireMockResponseRenderer.Body.fixed(r.staticBody ?? [])
        switch r.body {
        case .text(let s): if let t = compile(s, path + ".body") { body = .template(t) }
        case .json(let node):
            if let t = compile(JSONSerializer.string(node), path + ".jsonBody") { body = .template(t) }
        case .file(let name, let bytes):
            if let text = String(bytes: bytes, encoding: .utf8), let t = compile(text, path + ".bodyFileName (\(name))")
            {
                body = .template(t)
            }
        case .templatedFile(let nameTemplate): body = .file(nameTemplate, c.filesCache)
        case .none, .bytes, .missingFile: break
        }
        if case .fixed = body {} else { uses = true }
        guard uses else { return nil }
        return WireMockResponseRenderer(
            status: r.status,
            reason: r.statusMessage,
            headers: headers,
            body: body,
            parameters: r.transformerParameters
        )
    }
}
