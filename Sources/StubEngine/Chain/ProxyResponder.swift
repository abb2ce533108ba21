import HTTP1
import SystemSupport

/// Forwarding to an upstream, for the stubs (`"proxy"` in a response) and as the fallback when
/// no stub matches (`--proxy URL`, instead of the near-miss 404). The answer is a pending
/// response the transport completes; the outcome's report fills in as the upstream answers.
struct ProxyResponder: FallbackResponder {
    let rule: ProxyRule
    let transport: Locked<(any UpstreamTransport)?>

    func respond(to facts: RequestFacts) -> Outcome {
        Self.forward(facts.request, rule: rule, transport: transport.value, stub: nil)
    }

    static func forward(_ request: IncomingRequest, rule: ProxyRule, transport: (any UpstreamTransport)?, stub: Stub?) -> Outcome {
        let report = ProxyReport(upstream: rule.upstream.description)
        guard let transport else {
            report.record(status: 502, milliseconds: nil, error: "no transport to upstreams")
            return Outcome(response: ForwardingRules.failure(status: 502, upstream: rule.upstream, reason: "this server has no transport to upstreams"),
                           kind: .proxied(report, stub: stub))
        }
        let pending = PendingResponse()
        transport.forward(ForwardingRules.request(request, rule: rule), answer: pending, report: report)
        return Outcome(pending: pending, kind: .proxied(report, stub: stub))
    }
}
