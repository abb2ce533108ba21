import Dispatch
import HTTP1
import SystemSupport

/// Makes the webhook calls of the stub that answered: each rendered from the request now, sent
/// once the answer has gone out (its delay and dribbling over) and the webhook's own delay has
/// passed, through the engine's transport to upstreams (the server's HTTP client): the engine
/// knows no sockets. Every call is recorded in the `WebhookLog` with how it ended.
///
/// A wrapper outside the global delay, so the answer's time it waits for is the one the
/// client sees.
final class WebhookDispatcher: OutcomeAdjuster {
    let log: WebhookLog
    let transport: Locked<(any UpstreamTransport)?>
    let fallbackBaseURL: Locked<String>

    init(log: WebhookLog, transport: Locked<(any UpstreamTransport)?>, fallbackBaseURL: Locked<String>) {
        self.log = log
        self.transport = transport
        self.fallbackBaseURL = fallbackBaseURL
    }

    func adjust(_ outcome: inout Outcome, for facts: RequestFacts) {
        // A stub's answer or its forwarded one (WireMock runs a proxying mapping's webhooks too).
        guard outcome.stubHasWebhooks, let stub = outcome.stub else { return }
        fire(stub, facts, outcome.reply)
    }

    private func fire(_ stub: Stub, _ facts: RequestFacts, _ reply: Reply) {
        let request = facts.request
        let depth = max(0, Int(request.headers[Webhook.depthHeader] ?? "") ?? 0)
        let context = WebhookContext(facts: facts, captures: facts.captures, fallbackBaseURL: fallbackBaseURL.value)
        var scheduled: [(id: Int, call: WebhookCall, delay: Int)] = []
        for webhook in stub.webhooks {
            var call = webhook.renderer.render(context)
            call.headers.set(Webhook.depthHeader, String(depth + 1))
            let trigger = "\(request.method) \(request.target)"
            guard depth < Webhook.depthLimit else {
                let why =
                    "not sent: the request that caused it came at depth \(depth) (\(Webhook.depthHeader)); "
                    + "the limit is \(Webhook.depthLimit), so a webhook that calls this server stops there"
                _ = log.add(
                    stub: stub,
                    trigger: trigger,
                    depth: depth + 1,
                    call: call,
                    delayMilliseconds: 0,
                    state: .skipped,
                    error: why
                )
                continue
            }
            let delay = webhook.delay?.draw() ?? 0
            let id = log.add(stub: stub, trigger: trigger, depth: depth + 1, call: call, delayMilliseconds: delay)
            scheduled.append((id, call, delay))
        }
        guard !scheduled.isEmpty else { return }
        let calls = scheduled
        switch reply {
        case .now(let response):
            schedule(calls, afterAnswer: Self.answerMilliseconds(response))
        case .later(let pending):
            // A promised answer (a forwarding stub, a computed one): the calls wait for it; a
            // client that left first does not stop them, as in WireMock.
            pending.observe { [self] response in
                schedule(calls, afterAnswer: response.map(Self.answerMilliseconds) ?? 0)
            }
        }
    }

    /// How long the answer takes to go out: its delay, and its dribbling.
    private static func answerMilliseconds(_ response: OutgoingResponse) -> Int {
        if case .dribble(_, let duration) = response.delivery { return response.delayMilliseconds + duration }
        return response.delayMilliseconds
    }

    private func schedule(_ calls: [(id: Int, call: WebhookCall, delay: Int)], afterAnswer answer: Int) {
        for (id, call, delay) in calls {
            let wait = answer + delay
            if wait <= 0 {
                Self.queue.async { [self] in send(call, id: id) }
            } else {
                Self.queue.asyncAfter(deadline: .now() + .milliseconds(wait)) { [self] in send(call, id: id) }
            }
        }
    }

    /// Timers only: the calls themselves run on the server's event loops.
    private static let queue = DispatchQueue(label: "stubserver.webhooks")

    private func send(_ call: WebhookCall, id: Int) {
        guard let target = WebhookTarget(call.url) else {
            log.finish(
                id,
                status: nil,
                milliseconds: nil,
                error: "not sent: \"\(call.url)\" is not an http or https URL"
            )
            return
        }
        guard HTTPToken.isToken(call.method) else {
            log.finish(id, status: nil, milliseconds: nil, error: "not sent: \"\(call.method)\" is not an HTTP method")
            return
        }
        guard let transport = transport.value else {
            log.finish(
                id,
                status: nil,
                milliseconds: nil,
                error: "not sent: this server has no transport to other servers"
            )
            return
        }
        var headers = HeaderFields(capacity: call.headers.count + 1)
        for field in call.headers where !ServerOwnedFields.isFraming(field.name) {
            headers.add(field.name, field.value)
        }
        if !headers.contains("Host") { headers.add("Host", target.upstream.authority) }
        let request = ForwardedRequest(
            upstream: target.upstream,
            method: call.method,
            target: target.target,
            headers: headers,
            body: call.body,
            timeoutMilliseconds: Webhook.timeoutMilliseconds
        )
        let pending = PendingResponse()
        let report = ProxyReport(upstream: target.upstream.description)
        let log = self.log
        pending.whenComplete { response in
            if case .stream(let body) = response.delivery { Self.drain(body) }
            let result = report.result
            log.finish(id, status: result.status, milliseconds: result.milliseconds, error: result.error)
        }
        log.markSent(id)
        transport.forward(request, answer: pending, report: report)
    }

    /// Reads a streamed answer to its end and drops it, so its connection can serve again.
    private static func drain(_ body: BodyStream) {
        body.attach { [weak body] in _ = body?.take(unsent: 0) }
    }
}

/// A webhook's URL as the transport takes it: scheme, host and port, and the target (path and
/// query as written).
package struct WebhookTarget {
    let upstream: UpstreamURL
    let target: String

    package init?(_ url: String) {
        let withoutFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let beforeQuery = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        guard let upstream = UpstreamURL(String(beforeQuery)) else { return nil }
        let afterScheme = withoutFragment.dropFirst(upstream.scheme.count + 3)
        let afterAuthority = afterScheme.drop { $0 != "/" && $0 != "?" }
        self.upstream = upstream
        self.target = afterAuthority.hasPrefix("/") ? String(afterAuthority) : "/" + afterAuthority
    }
}
