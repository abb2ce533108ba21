import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine
import SystemSupport

/// One line per request: method, path, status, what answered (a stub's name, admin, CORS
/// preflight or NO MATCH), time. The outermost wrapper of the engine's chain, so it sees each
/// outcome as it finally is, its kind kept through the journal, delay and CORS wrappers.
final class RequestLog: ResponderWrapper {
    let format: ServingOptions.LogFormat
    let verbose: Bool
    let console: Console

    init(format: ServingOptions.LogFormat, verbose: Bool, console: Console) {
        self.format = format
        self.verbose = verbose
        self.console = console
    }

    func respond(to facts: RequestFacts, next: (RequestFacts) -> Outcome) -> Outcome {
        guard format != .quiet else { return next(facts) }
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome = next(facts)
        if case .tunnel(let tunnel) = outcome.kind {
            // Logged when the server has opened it (or could not), and again when it ends.
            let log = self
            let request = facts.request
            tunnel.observe { progress in
                log.recordTunnel(
                    request,
                    tunnel,
                    progress,
                    microseconds: Int((DispatchTime.now().uptimeNanoseconds - started) / 1000)
                )
            }
            return outcome
        }
        switch outcome.reply {
        case .now(let response):
            record(
                facts.request,
                outcome.kind,
                response,
                microseconds: Int((DispatchTime.now().uptimeNanoseconds - started) / 1000),
                contract: facts.contract
            )
        case .later(let pending):
            // Logged when the answer exists; a client that left first is logged as such.
            let log = self
            let request = facts.request
            let kind = outcome.kind
            let contract = facts.contract
            pending.observe { response in
                log.record(
                    request,
                    kind,
                    response,
                    microseconds: Int((DispatchTime.now().uptimeNanoseconds - started) / 1000),
                    contract: contract
                )
            }
            // A forwarded answer is checked as its body passes, after its line: a line of its own.
            if case .proxied = outcome.kind, let contract {
                contract.whenAnswerChecked { violations in
                    guard !violations.isEmpty else { return }
                    log.recordAnswer(request, violations)
                }
            }
        }
        return outcome
    }

    func record(
        _ request: IncomingRequest,
        _ kind: OutcomeKind,
        _ response: OutgoingResponse?,
        microseconds: Int,
        contract: ContractReport? = nil
    ) {
        let outcome = Logged(kind: kind, response: response, contract: contract)
        switch format {
        case .quiet: return
        case .json: console.log(json(request, outcome, microseconds))
        case .text: console.log(text(request, outcome, microseconds))
        }
    }

    /// The OpenAPI contract's findings on a forwarded answer, known once its body has passed.
    func recordAnswer(_ request: IncomingRequest, _ violations: [ContractViolation]) {
        switch format {
        case .quiet: return
        case .json:
            let report = JSONSerializer.string(.array(violations.map(ContractReport.json)))
            let fields = [
                "\"time\":\(JSONSerializer.quoted(LogTime.rfc3339()))",
                "\"method\":\(JSONSerializer.quoted(request.method))",
                "\"target\":\(JSONSerializer.quoted(request.target))",
                "\"contract\":{\"response\":\(report)}",
            ]
            console.log("{" + fields.joined(separator: ",") + "}")
        case .text:
            let count = violations.count == 1 ? "1 violation" : "\(violations.count) violations"
            let head =
                "\(timestamp()) \(request.method) \(request.target) "
                + console.paint("contract:", "1;33") + " the upstream's answer: \(count)"
            console.log(([head] + violations.map { "    " + $0.line }).joined(separator: "\n"))
        }
    }

    /// What a line says of the answer: its kind, and its response unless the client left first.
    struct Logged {
        let kind: OutcomeKind
        let response: OutgoingResponse?
        let contract: ContractReport?
        /// nil when no status line went out: a fault, or a client that left first.
        var status: Int? { response.flatMap { $0.delivery.sendsStatusLine ? $0.prepared.status : nil } }
        var fault: String? { response?.delivery.faultName }
        var delayMilliseconds: Int { response?.delayMilliseconds ?? 0 }
        var stub: Stub? {
            switch kind {
            case .stub(let stub): stub
            case .proxied(_, let stub): stub
            default: nil
            }
        }
        var proxy: ProxyReport? { if case .proxied(let report, _) = kind { report } else { nil } }
        var nearMiss: NearMissReport? { if case .noMatch(let report) = kind { report.resolved } else { nil } }
    }

    func milliseconds(_ microseconds: Int) -> String {
        fixedPoint(Double(microseconds) / 1000, decimals: 2) + "ms"
    }

    private func text(_ request: IncomingRequest, _ outcome: Logged, _ microseconds: Int) -> String {
        let statusText: String
        if let fault = outcome.fault {
            statusText = console.paint("FAULT \(fault)", "35")
        } else if let status = outcome.status {
            statusText = console.paint(String(status), status >= 500 ? "31" : status >= 400 ? "33" : "32")
        } else {
            statusText = console.paint("---", "2") + " (client left)"
        }
        // A request inside an intercepted tunnel names the host it went to.
        let target = request.tunnelAuthority.map { "https://\($0)\(request.target)" } ?? request.target
        var line = "\(timestamp()) \(request.method) \(target) \(statusText) "
        switch outcome.kind {
        case .stub(let stub): line += "\"\(stub.name)\""
        case .preflight: line += "CORS preflight"
        case .admin: line += "admin"
        case .refused(let refusal): line += console.paint("REFUSED", "1;31") + " admin request: \(refusal.summary)"
        case .noMatch: line += console.paint("NO MATCH", "1;31")
        case .rejected: line += console.paint("REJECTED", "1;31") + " by the OpenAPI contract (--openapi-enforce)"
        case .tunnel(let tunnel):
            // Not reached: a tunnel's lines are `tunnelText`'s.
            line += console.paint(tunnel.mode == .intercept ? "INTERCEPT" : "TUNNEL", "36")
        case .proxyRefused(let reason): line += console.paint("REFUSED", "1;31") + " proxy request: \(reason)"
        case .proxied(let report, let stub):
            let result = report.result
            line += console.paint("PROXY", "36") + " \(report.upstream)"
            if let stub { line += " for \"\(stub.name)\"" }
            if let error = result.error {
                line += " (\(error))"
            } else if let status = result.status, let ms = result.milliseconds {
                line += " (upstream \(status) in \(ms)ms)"
            }
        }
        line += " \(milliseconds(microseconds))"
        if outcome.delayMilliseconds > 0 { line += " (+\(outcome.delayMilliseconds)ms delay)" }
        if let contract = outcome.contract, !contract.isClean {
            let count = contract.violations.count == 1 ? "1 violation" : "\(contract.violations.count) violations"
            let of = contract.operation.map { " of \($0)" } ?? ""
            line += "\n    " + console.paint("contract:", "1;33") + " \(count)\(of)"
            line += contract.violations.map { "\n      " + $0.line }.joined()
        }
        if let report = outcome.nearMiss {
            // The console shows what the client got: the closest stubs and what differed.
            let indented = report.text.split(separator: "\n").dropFirst().map { "    " + $0 }
            if !indented.isEmpty { line += "\n" + indented.joined(separator: "\n") }
            if verbose, !request.body.isEmpty {
                line += "\n    request body: " + String(decoding: request.body.prefix(2048), as: UTF8.self)
            }
        }
        return line
    }

    private func json(_ request: IncomingRequest, _ outcome: Logged, _ microseconds: Int) -> String {
        var fields = [
            "\"time\":\(JSONSerializer.quoted(LogTime.rfc3339()))",
            "\"method\":\(JSONSerializer.quoted(request.method))",
            "\"target\":\(JSONSerializer.quoted(request.target))",
            "\"status\":\(outcome.status.map(String.init) ?? "null")",
            outcome.fault.map { "\"fault\":\(JSONSerializer.quoted($0))" },
            "\"stub\":\(outcome.stub.map { JSONSerializer.quoted($0.name) } ?? "null")",
            "\"ms\":\(fixedPoint(Double(microseconds) / 1000, decimals: 3))",
        ].compactMap { $0 }
        if outcome.delayMilliseconds > 0 { fields.append("\"delayMs\":\(outcome.delayMilliseconds)") }
        if case .refused(let refusal) = outcome.kind {
            fields.append("\"refused\":\(JSONSerializer.quoted(refusal.summary))")
        }
        if let proxy = outcome.proxy {
            let result = proxy.result
            var parts = ["\"upstream\":\(JSONSerializer.quoted(proxy.upstream))"]
            if let status = result.status { parts.append("\"status\":\(status)") }
            if let ms = result.milliseconds { parts.append("\"ms\":\(ms)") }
            if let error = result.error { parts.append("\"error\":\(JSONSerializer.quoted(error))") }
            fields.append("\"proxy\":{" + parts.joined(separator: ",") + "}")
        }
        if let report = outcome.nearMiss { fields.append("\"nearMiss\":\(report.json)") }
        if let contract = outcome.contract, !contract.isClean {
            fields.append("\"contract\":\(JSONSerializer.string(contract.json))")
        }
        if verbose, outcome.nearMiss != nil, !request.body.isEmpty {
            fields.append(
                "\"body\":\(JSONSerializer.quoted(String(decoding: request.body.prefix(2048), as: UTF8.self)))"
            )
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    func timestamp() -> String {
        console.paint(LogTime.clock(), "2")
    }
}

/// Timestamps for log lines, from the one formatter per format (`DateFormats`).
enum LogTime {
    /// `HH:mm:ss.SSS` in local time, for the console.
    static func clock() -> String {
        let now = Date()
        let offset = ZoneDatabase.local.offset(atEpochSeconds: Int(now.timeIntervalSince1970)).seconds
        return DateFormats.clock(
            epochMilliseconds: Int((now.timeIntervalSince1970 * 1000).rounded(.down)) + offset * 1000
        )
    }

    /// RFC 3339 in UTC with milliseconds, for JSON logs.
    static func rfc3339() -> String {
        DateFormats.rfc3339(
            epochMilliseconds: Int((Date().timeIntervalSince1970 * 1000).rounded(.down)),
            withMilliseconds: true
        )
    }
}
