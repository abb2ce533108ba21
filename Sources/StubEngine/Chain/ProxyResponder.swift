import HTTP1
import SystemSupport

/// Forwarding to an upstream, for the stubs (`"proxy"` in a response) and for requests no stub
/// matches (`UnmatchedResponder`). The answer is a pending response the transport completes;
/// the outcome's report fills in as the upstream answers.
enum ProxyResponder {
    /// `before` sees the pending answer before the request leaves (an exchange observer, such as
    /// the recorder, follows it there: a transport may complete it at once).
    static func forward(
        _ request: IncomingRequest,
        rule: ProxyRule,
        transport: (any UpstreamTransport)?,
        stub: Stub?,
        recorded: Bool = false,
        before: ((PendingResponse) -> Void)? = nil
    ) -> Outcome {
        let report = ProxyReport(upstream: rule.upstream.description, recorded: recorded)
        guard let transport else {
            report.record(status: 502, milliseconds: nil, error: "no transport to upstreams")
            return Outcome(
                response: ForwardingRules.failure(
                    status: 502,
                    upstream: rule.upstream,
                    reason: "this server has no transport to upstreams"
                ),
                kind: .proxied(report, stub: stub)
            )
        }
        let pending = PendingResponse()
        // First, so the journal's transcript sees the stream from its first byte.
        pending.adjust { response in report.stream = ProxiedStreams.watch(response) }
        before?(pending)
        transport.forward(ForwardingRules.request(request, rule: rule), answer: pending, report: report)
        return Outcome(pending: pending, kind: .proxied(report, stub: stub))
    }
}

/// The last word for a request no stub matched: forwarded when a fallback upstream is set
/// (`--proxy`, a recording), else the near-miss 404. The engine's exchange observers (the
/// recorder) see each forwarded exchange and may follow it (`ForwardedExchangeObserver`).
final class UnmatchedResponder: FallbackResponder {
    let proxy: Locked<ProxyRule?>
    let transport: Locked<(any UpstreamTransport)?>
    let observers: [any ForwardedExchangeObserver]
    let nearMiss: NearMissResponder
    /// `--forward-proxy`: a proxy client's request goes to its own host, not to `proxy`.
    let forwardProxy: ForwardProxy?

    init(
        proxy: Locked<ProxyRule?>,
        transport: Locked<(any UpstreamTransport)?>,
        observers: [any ForwardedExchangeObserver],
        nearMiss: NearMissResponder,
        forwardProxy: ForwardProxy? = nil
    ) {
        self.proxy = proxy
        self.transport = transport
        self.observers = observers
        self.nearMiss = nearMiss
        self.forwardProxy = forwardProxy
    }

    func respond(to facts: RequestFacts) -> Outcome {
        guard let forwarding = forwardingRule(facts.request) else { return nearMiss.respond(to: facts) }
        var rule = forwarding.rule
        // Empty unless an observer follows this exchange: an empty array allocates nothing.
        var followers: [ForwardedExchangeFollower] = []
        for observer in observers {
            if let follower = observer.follow(facts.request, host: forwarding.host) { followers.append(follower) }
        }
        guard !followers.isEmpty else {
            return ProxyResponder.forward(facts.request, rule: rule, transport: transport.value, stub: nil)
        }
        for follower in followers { rule.setHeaders += follower.setHeaders }
        let following = followers
        return ProxyResponder.forward(facts.request, rule: rule, transport: transport.value, stub: nil, recorded: true)
        { pending in
            for follower in following { follower.answer(pending) }
        }
    }

    /// Where an unmatched request goes: a forward-proxy client's to the host it named (its
    /// `Host` kept), any other to the fallback upstream.
    /// With the host a forward-proxy client addressed, for a recording's `host` condition.
    private func forwardingRule(_ request: IncomingRequest) -> (rule: ProxyRule, host: String?)? {
        if let forwardProxy, let origin = ForwardProxy.origin(of: request) {
            let rule = ProxyRule(
                upstream: origin,
                preserveHost: true,
                timeoutMilliseconds: forwardProxy.timeoutMilliseconds
            )
            return (rule, request.hostWithoutPort?.lowercased() ?? origin.bareHost)
        }
        return proxy.value.map { ($0, nil) }
    }
}
