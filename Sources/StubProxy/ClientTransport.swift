import HTTP1
import HTTPSockets
import StubEngine

/// Forwards over the server's own HTTP/1.1 client: http upstreams always, https ones through
/// TLS (the system's OpenSSL) where it is available. Bytes, repeated fields and name casing go
/// through as they came; nothing is decoded, followed or remembered.
package final class ClientTransport: UpstreamTransport {
    private let client: HTTPClient
    /// For https where the client has no TLS (macOS).
    private let fallback: (any UpstreamTransport)?

    package init(client: HTTPClient, fallback: (any UpstreamTransport)? = nil) {
        self.client = client
        self.fallback = fallback
    }

    package func forward(_ request: ForwardedRequest, answer: PendingResponse, report: ProxyReport) {
        let secure = request.upstream.scheme == "https"
        if secure, let fallback {
            fallback.forward(request, answer: answer, report: report)
            return
        }
        let endpoint = ClientEndpoint(host: request.upstream.bareHost, port: request.upstream.port, tls: secure)
        let outgoing = ClientRequest(
            method: request.method,
            target: request.target,
            headers: request.headers,
            body: request.body,
            upgrade: request.upgrade
        )
        let upstream = request.upstream
        let isHead = request.method == "HEAD"
        let task = client.send(outgoing, to: endpoint, timeoutMilliseconds: request.timeoutMilliseconds) { result in
            switch result {
            case .success(let response):
                report.record(status: response.head.status, milliseconds: response.milliseconds)
                answer.complete(Self.relay(response, isHead: isHead))
            case .failure(let failure):
                let status = if case .timeout = failure { 504 } else { 502 }
                report.record(status: status, milliseconds: nil, error: failure.description)
                answer.complete(
                    ForwardingRules.failure(status: status, upstream: upstream, reason: failure.description)
                )
            }
        }
        answer.onCancel { task.cancel() }
    }

    /// The upstream's response for the client: its head through the forwarding rules, its body
    /// streamed (with its length when the upstream gave one; chunked otherwise).
    static func relay(_ response: ClientResponse, isHead: Bool) -> OutgoingResponse {
        let head = response.head
        var length: Int?
        switch head.framing {
        case .length(let n): length = n
        case .none:
            // A HEAD answer describes the body it would have had: its length goes through.
            if isHead, !head.mustDropContentLength, let declared = head.headers["Content-Length"] {
                length = Int(declared)
            }
        case .chunked, .untilClose: length = nil
        }
        switch response.body {
        case .upgraded(let upstream):
            return switched(head, upstream)
        case .complete(let bytes):
            return OutgoingResponse(
                ForwardingRules.response(status: head.status, reason: head.reason, headers: head.headers, body: bytes)
            )
        case .stream(let body):
            let prepared = ForwardingRules.response(
                status: head.status,
                reason: head.reason,
                headers: head.headers,
                bodyLength: length
            )
            return OutgoingResponse(prepared, delivery: .stream(body))
        case .none:
            return OutgoingResponse(
                ForwardingRules.response(
                    status: head.status,
                    reason: head.reason,
                    headers: head.headers,
                    bodyLength: length
                )
            )
        }
    }

    /// A `101` from the upstream: the client's connection is switched too and spliced to the
    /// upstream's, so the protocol's bytes pass both ways as they are (frames, masks, pings
    /// and close codes untouched). The server writes `Connection: Upgrade`; `Upgrade` is put
    /// back (the forwarding rules drop it as hop-by-hop).
    static func switched(_ head: ResponseHead, _ upstream: ConnectionUpgrade) -> OutgoingResponse {
        var headers = ForwardingRules.responseHeaders(head.headers)
        headers.set("Upgrade", head.headers["Upgrade"] ?? "websocket")
        let client = ConnectionUpgrade()
        ConnectionUpgrade.splice(client, upstream)
        return OutgoingResponse(
            PreparedResponse(
                status: 101,
                reason: head.reason.isEmpty ? nil : head.reason,
                headers: headers,
                body: [],
                keepingDateAndServer: true
            ),
            delivery: .upgrade(client)
        )
    }
}
