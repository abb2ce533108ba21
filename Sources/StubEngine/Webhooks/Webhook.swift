import HTTP1

/// A call the server makes after a stub answered: a webhook (WireMock's `serveEventListeners`
/// and `postServeActions`, the stub format's `"webhooks"`). Compiled at load: its parts are
/// templates ready to render; the delay is drawn per call.
package struct Webhook: Sendable {
    /// Method, URL, headers and body for one request that matched.
    let renderer: any WebhookRenderer
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
}

/// A call whose parts are all fixed (no template).
struct FixedWebhook: WebhookRenderer {
    let call: WebhookCall

    func render(_ context: WebhookContext) -> WebhookCall { call }
}
