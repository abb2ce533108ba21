import HTTP1
import SystemSupport

/// `--openapi SPEC` while serving: every request that imitates the API is checked against the
/// operation it targets before anything answers it. The report goes where near misses go (the
/// journal, the inspector, the log line, through `RequestFacts.contract`) and a request that
/// breaks the contract gets `X-Stubserver-Contract` on its answer. With `enforce`, such a
/// request is answered 400 or 422 with a problem report instead, before any stub runs.
///
/// A forwarded answer (`--proxy`, a stub that proxies) is checked against the documented
/// responses as its body passes and reported, never changed. The innermost wrapper: the journal
/// and the log, outside it, read the report from the facts once it is there.
final class ContractCheck: ResponderWrapper {
    let contract: any RequestContract
    let enforces: Bool

    init(contract: any RequestContract, enforces: Bool) {
        self.contract = contract
        self.enforces = enforces
    }

    /// The most of a forwarded body collected for the check; a larger one is checked for its
    /// status and headers only.
    static let maximumAnswerBytes = 4 << 20

    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        // The server's own routes and CORS preflights are not the API's.
        guard !AdminAPI.claims(facts.request.path), !Self.isPreflight(facts.request) else { return next(facts) }
        let report = contract.check(facts)
        facts.contract = report
        guard report.isClean else { return respond(to: facts, breaking: report, next: next) }
        let outcome = next(facts)
        checkForwarded(outcome, facts, report)
        return outcome
    }

    /// A request that breaks the contract: refused (`enforces`), or answered with the header.
    private func respond(
        to facts: RequestFacts,
        breaking report: ContractReport,
        next: (RequestFacts) -> Outcome
    ) -> Outcome {
        if enforces {
            return Outcome(response: report.rejection(for: facts.request), kind: .rejected(report))
        }
        var outcome = next(facts)
        let extra = HeaderFields([(ContractReport.headerName, report.headerValue)])
        switch outcome.reply {
        case .now(var response):
            response.prepared = response.prepared.adding(extra)
            outcome.reply = .now(response)
        case .later(let pending):
            pending.adjust { $0.prepared = $0.prepared.adding(extra) }
        }
        checkForwarded(outcome, facts, report)
        return outcome
    }

    /// A forwarded answer is checked on a report of its own: the contract may hand every clean
    /// request of an operation one shared report, and the answer's findings are this exchange's.
    private func checkForwarded(_ outcome: Outcome, _ facts: RequestFacts, _ report: ContractReport) {
        guard case .later(let pending) = outcome.reply, case .proxied = outcome.kind else { return }
        let own = report.forAnswer()
        facts.contract = own
        checkAnswer(pending, own)
    }

    /// The forwarded answer, once its head is there; its body as it passes (never held back).
    private func checkAnswer(_ pending: PendingResponse, _ report: ContractReport) {
        let contract = self.contract
        pending.onCancel { report.recordAnswer([]) }
        pending.adjust { response in
            let status = response.prepared.status
            let headers = response.prepared.headers
            // The proxy's own 502 or 504 is not the upstream's answer.
            guard headers["X-Stubserver-Proxy"] == nil else {
                report.recordAnswer([])
                return
            }
            guard case .stream(let stream) = response.delivery else {
                let body = response.prepared.body
                report.recordAnswer(contract.checkAnswer(status: status, headers: headers, body: body, of: report))
                return
            }
            let collected = Locked<[UInt8]?>([])
            stream.tap { event in
                switch event {
                case .bytes(let piece):
                    collected.withLock { body in
                        guard body != nil else { return }
                        if body!.count + piece.count > Self.maximumAnswerBytes {
                            body = nil
                        } else {
                            body!.append(contentsOf: piece)
                        }
                    }
                case .finished:
                    let body = collected.value
                    report.recordAnswer(contract.checkAnswer(status: status, headers: headers, body: body, of: report))
                case .broken:
                    report.recordAnswer([])
                }
            }
        }
    }

    static func isPreflight(_ request: IncomingRequest) -> Bool {
        request.method == "OPTIONS" && request.headers.contains("Origin")
            && request.headers.contains("Access-Control-Request-Method")
    }
}
