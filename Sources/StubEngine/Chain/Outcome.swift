import HTTP1

/// What answered a request. Every wrapper of the chain keeps it, so the journal, the request log
/// and the global delay know what a response was (an admin answer is never delayed or logged as
/// "no match").
package enum OutcomeKind: Sendable {
    /// The admin API (`/__admin/...`), answered by the engine itself.
    case admin
    /// An admin request `AdminProtection` refused (a rebound Host, a cross-site page, no
    /// token). Unlike admin answers it is journaled: the developer sees who tried.
    case refused(AdminProtection.Refusal)
    /// A CORS preflight answered by `--cors` rather than by a stub.
    case preflight
    /// A stub matched.
    case stub(Stub)
    /// No stub matched; the report says what came closest.
    case noMatch(NearMissReport)
    /// Forwarded to an upstream: for no stub (`--proxy`), or for a stub whose response is
    /// `"proxy"`. The report fills in as the upstream answers.
    case proxied(ProxyReport, stub: Stub?)
    /// `--openapi-enforce`: the request broke the OpenAPI contract and was answered with a
    /// problem report before any stub.
    case rejected(ContractReport)
    /// `CONNECT` through the forward proxy: a tunnel, intercepted or blind; the server fills
    /// in how it went (status, bytes each way, duration).
    case tunnel(ConnectionTunnel)
    /// A proxy request (`CONNECT`, absolute-form) from a client that may not use the forward
    /// proxy, or a malformed `CONNECT`: the message says why.
    case proxyRefused(String)
}

/// The engine's answer to one request: the response (now, or promised) and what produced it.
package struct Outcome: Sendable {
    package var reply: Reply
    package var kind: OutcomeKind
    /// For an answer that streams (events, a WebSocket): what happens on it, as it happens.
    /// The journal entry keeps it.
    package var transcript: StreamTranscript?

    package init(response: OutgoingResponse, kind: OutcomeKind) {
        self.reply = .now(response)
        self.kind = kind
    }

    package init(pending: PendingResponse, kind: OutcomeKind) {
        self.reply = .later(pending)
        self.kind = kind
    }

    /// The response, when it is there already.
    package var response: OutgoingResponse? {
        if case .now(let response) = reply { response } else { nil }
    }

    /// The stub that answered, if one did.
    package var stub: Stub? {
        switch kind {
        case .stub(let stub): stub
        case .proxied(_, let stub): stub
        default: nil
        }
    }
    /// Whether the stub that answered has webhooks to call. Read in place: taking the stub out
    /// (`stub`) retained and released it, on every request, to learn that it has none.
    package var stubHasWebhooks: Bool {
        switch kind {
        case .stub(let stub): !stub.webhooks.isEmpty
        case .proxied(_, let stub?): !stub.webhooks.isEmpty
        default: false
        }
    }
    /// Why no stub answered, when none did.
    package var nearMiss: NearMissReport? { if case .noMatch(let report) = kind { report } else { nil } }
    package var isAdmin: Bool { if case .admin = kind { true } else { false } }
    /// Why the admin API refused the request, when it did.
    package var refusal: AdminProtection.Refusal? { if case .refused(let refusal) = kind { refusal } else { nil } }
    package var isPreflight: Bool { if case .preflight = kind { true } else { false } }

    /// Answers that imitate the API (stubs, near misses), as opposed to the server's own (admin,
    /// preflight): only these get the global delay and CORS decoration.
    package var imitatesTheAPI: Bool {
        switch kind {
        case .stub, .noMatch, .proxied, .rejected: true
        case .admin, .refused, .preflight, .tunnel, .proxyRefused: false
        }
    }
}
