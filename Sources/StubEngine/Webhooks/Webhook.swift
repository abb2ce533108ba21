import HTTP1

/// A call the server makes after a stub answered: a webhook (WireMock's `serveEventListeners`
/// and `postServeActions`, the stub format's `"webhooks"`). Compiled at load: its parts are
/// templates ready to render; the delay is drawn per call.
package struct Webhook: Sendable {
    /// Method, URL, headers and body for one request that matched.
    package let renderer: any WebhookRenderer
    /// Waited after the answer has gone out, before the call is made.
    package let delay: Delay?

    package init(renderer: any WebhookRenderer, delay: Delay?) {
        self.renderer = renderer
        self.delay = delay
    }

    /// Calls carry the depth of the request that caused them plus one; a request at the limit
    /// causes none, so a webhook pointed at the server itself stops after this many rounds.
    package static let depthHeader = "X-Stubserver-Webhook-Depth"
    package static let depthLimit = 5
    /// No response head within this time and the call is recorded as failed.
    package static let timeoutMilliseconds: Int64 = 10_000
}

/// What a webhook renders from: the request that matched, with its path captures.
package struct WebhookContext {
    package let facts: RequestFacts
    package let captures: [String: String]
    /// `{{request.baseUrl}}` when the request names no host.
    package let fallbackBaseURL: String
}

/// One webhook rendered for one request: what will be sent.
package struct WebhookCall: Sendable {
    package var method: String
    package var url: String
    package var headers: HeaderFields
    package var body: [UInt8]

    package init(method: String, url: String, headers: HeaderFields, body: [UInt8]) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// Renders a webhook's parts: the stub format's templates, or WireMock's Handlebars.
package protocol WebhookRenderer: Sendable {
    func render(_ context: WebhookContext) -> WebhookCall
    /// The webhook as the stub format writes it (`StubEncoder.encodeModel`), or nil with a gap
    /// saying why it cannot be written. `pathVariables` are the `{name}`s of the written path.
    func encode(pathVariables: EncodedPathVariables, gaps: inout [EncodingGap]) -> EncodedWebhook?
}

extension WebhookRenderer {
    package func encode(pathVariables: EncodedPathVariables, gaps: inout [EncodingGap]) -> EncodedWebhook? {
        gaps.append(EncodingGap(.dropped, ["webhooks"], "a webhook the stub format cannot say is not written"))
        return nil
    }
}

/// A call whose parts are all fixed (no template).
package struct FixedWebhook: WebhookRenderer {
    let call: WebhookCall

    package func render(_ context: WebhookContext) -> WebhookCall { call }

    package init(call: WebhookCall) {
        self.call = call
    }

    package func encode(pathVariables: EncodedPathVariables, gaps: inout [EncodingGap]) -> EncodedWebhook? {
        EncodedWebhook(
            method: call.method,
            url: call.url,
            headers: call.headers.fields.map { ($0.name, $0.value) },
            body: call.body.isEmpty ? .none : .bytes(call.body),
            templated: false
        )
    }
}

/// A native webhook with `"template": true`: each part rendered per request.
package struct NativeWebhookTemplate: WebhookRenderer {
    let method: Template
    let url: Template
    let headers: [(name: String, value: Template)]
    /// nil: `fixedBody` (none, or bytes from `bodyBase64`).
    let body: Template?
    let fixedBody: [UInt8]

    package init(
        method: Template,
        url: Template,
        headers: [(name: String, value: Template)],
        body: Template?,
        fixedBody: [UInt8]
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.fixedBody = fixedBody
    }

    package func render(_ context: WebhookContext) -> WebhookCall {
        let data = TemplateContext(
            facts: context.facts,
            captures: context.captures,
            fallbackBaseURL: context.fallbackBaseURL
        )
        var fields = HeaderFields()
        for header in headers {
            // A rendered value may not break the head: line breaks become spaces.
            let value = (header.value.renderString(data) ?? "").map { $0 == "\r" || $0 == "\n" ? " " : $0 }
            fields.add(header.name, String(value))
        }
        // Bounded as a response is (`--max-rendered-body`): a body over it is sent as the
        // message that says so; a method, URL or header value over it is left empty.
        let overLimit = TemplateContext.overLimit(data.maximumRenderedBytes).body
        return WebhookCall(
            method: method.renderString(data) ?? "",
            url: url.renderString(data) ?? "",
            headers: fields,
            body: body.map { $0.render(data) ?? overLimit } ?? fixedBody
        )
    }
}
