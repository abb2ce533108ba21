import Foundation

/// A call the server makes after the stub answers: one entry of a stub file's `"webhooks"`
/// (docs/stub-format.md, Webhooks). Sent once the answer has gone out and `delay` has passed,
/// through the server's own HTTP client; each call is recorded with how it ended
/// (`GET /__admin/webhooks`).
///
///     var stub = StubDefinition(request: .post("/v1/payments/{id}"), response: ResponseDefinition(status: 202))
///     stub.webhooks = [WebhookDefinition(url: "http://127.0.0.1:9000/paid/{{request.path.id}}", template: true,
///                                        delay: .milliseconds(500))]
///
/// Through `StubURLProtocol` (no sockets) there is no client to send with: the calls are
/// recorded as failed.
public struct WebhookDefinition: Sendable, Equatable {
    /// An absolute http or https URL.
    public var url: String
    /// nil is POST.
    public var method: String?
    public var headers: [String: HeaderValue]?
    /// A string is sent as is (`text/plain`); any other value as JSON (`application/json`).
    public var body: JSONValue?
    /// Bytes (`application/octet-stream` unless a header says otherwise).
    public var bodyData: Data?
    /// `{{...}}` in the URL, method, header values and body, from the request that matched.
    public var template: Bool?
    /// Time to wait after the answer has gone out.
    public var delay: ResponseDefinition.Delay?

    public init(
        url: String,
        method: String? = nil,
        headers: [String: HeaderValue]? = nil,
        body: JSONValue? = nil,
        bodyData: Data? = nil,
        template: Bool? = nil,
        delay: ResponseDefinition.Delay? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.bodyData = bodyData
        self.template = template
        self.delay = delay
    }
}
