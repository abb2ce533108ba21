import HTTP1

/// `--forward-proxy`: answers `CONNECT` (a tunnel, intercepted or blind, decided by host) and
/// refuses proxy requests from clients that may not use the proxy (`ForwardProxyAccess`).
/// Requests it lets through are matched by the stubs as any others; `UnmatchedResponder`
/// forwards the unmatched ones to their own host.
final class ForwardProxyResponder: Responder {
    let settings: ForwardProxy

    init(settings: ForwardProxy) {
        self.settings = settings
    }

    func respond(to facts: RequestFacts) -> Outcome? {
        let request = facts.request
        let isConnect = request.method == "CONNECT"
        // Origin-form requests (and those inside a tunnel, let in at its CONNECT) pass.
        guard isConnect || (request.tunnelAuthority == nil && ForwardProxy.origin(of: request) != nil) else {
            return nil
        }
        if let refusal = settings.access.refusal(request) {
            var headers = HeaderFields()
            if refusal.status == 407 { headers.add("Proxy-Authenticate", "Basic realm=\"stubserver\"") }
            headers.add("Content-Type", "text/plain; charset=utf-8")
            let response = OutgoingResponse(
                status: refusal.status,
                headers: headers,
                body: Array((refusal.message + "\n").utf8)
            )
            return Outcome(response: response, kind: .proxyRefused(refusal.message))
        }
        guard isConnect else { return nil }
        guard let authority = request.authority, let (host, port) = ConnectionTunnel.split(authority: authority) else {
            return Outcome(
                response: .text(400, "Bad Request: CONNECT needs host:port\n"),
                kind: .proxyRefused("CONNECT needs host:port")
            )
        }
        let tunnel = ConnectionTunnel(
            host: host,
            port: port,
            authority: authority,
            mode: settings.intercept.intercepts(host) ? .intercept : .relay
        )
        var response = OutgoingResponse(status: 200, headers: HeaderFields(), body: [])
        response.delivery = .tunnel(tunnel)
        return Outcome(response: response, kind: .tunnel(tunnel))
    }
}
