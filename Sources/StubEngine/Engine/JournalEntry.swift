import HTTP1
import RegularExpressions

/// One request as the journal keeps it, with what was answered.
///
/// Its parts live in one immutable object: the journal moves an entry into its ring, and out
/// again when the ring lets it go, for every request. As a struct of some 300 bytes each move
/// was a copy of all of it (the profile showed eight per request); now it is a pointer.
///
/// The request is kept as it came: the bytes of its head (request line and header fields, in
/// order, names as sent, repeats and all) and its body. The method, target, path, query and
/// fields are read from those bytes again, by the server's own parser, when the entry is read
/// (the admin API, the inspector, verification): reading is rare, recording is every request.
package struct JournalEntry: Sendable {
    package internal(set) var id: Int
    private let parts: Parts

    /// Keeps `request`'s head as it came (`IncomingRequest.head`), its peer and its tunnel; or,
    /// for a request with no head (the in-process transport) or with `headers` given (fields
    /// whose credentials the journal does not keep), its fields. Its body is `body`: the journal
    /// may keep only the start.
    package init(
        id: Int,
        receivedAtMilliseconds: Int,
        request: borrowing IncomingRequest,
        headers: HeaderFields? = nil,
        body: [UInt8],
        bodySize: Int,
        stub: Stub?,
        status: Int?,
        durationMilliseconds: Double,
        nearMiss: NearMissReport?,
        proxy: ProxyReport?,
        response: JournalResponse?,
        refusal: String? = nil,
        regexAborts: [RegexAbort] = [],
        contract: ContractReport? = nil,
        delivery: JournalDelivery? = nil,
        tunnel: ConnectionTunnel? = nil
    ) {
        self.id = id
        let hasUnusual =
            nearMiss != nil || proxy != nil || refusal != nil || !regexAborts.isEmpty || contract != nil
            || delivery != nil || tunnel != nil || request.tunnelAuthority != nil
        parts = Parts(
            receivedAtMilliseconds: receivedAtMilliseconds,
            head: request.head.isEmpty || headers != nil
                ? .fields(FieldsBox(request, headers: headers)) : .wire(request.head),
            body: body,
            bodySize: bodySize,
            stub: stub,
            status: status,
            durationMilliseconds: durationMilliseconds,
            response: response,
            peer: request.peer,
            unusual: hasUnusual
                ? Unusual(
                    nearMiss: nearMiss,
                    proxy: proxy,
                    refusal: refusal,
                    regexAborts: regexAborts,
                    contract: contract,
                    delivery: delivery,
                    tunnel: tunnel,
                    tunnelAuthority: request.tunnelAuthority
                ) : nil
        )
    }

    /// Milliseconds since 1970.
    package var receivedAtMilliseconds: Int { parts.receivedAtMilliseconds }
    package var method: String { requestLine.method }
    /// The decoded path, without the query.
    package var path: String { requestLine.path }
    /// The request-target exactly as sent.
    package var target: String { requestLine.target }
    package var queryItems: [QueryItem] { requestLine.queryItems }
    /// In order, names as sent, repeats kept (a refused request's credentials replaced).
    package var headers: HeaderFields { requestHead.headers }
    /// The head's bytes as they came; empty for a request that had none (see `init`).
    package var head: [UInt8] {
        if case .wire(let bytes) = parts.head { return bytes }
        return []
    }
    /// At most `Journal.maximumBodyBytes` (whole while the request is being recorded);
    /// `bodySize` is the real size.
    package var body: [UInt8] { parts.body }
    package var bodySize: Int { parts.bodySize }
    package var stubID: String? { parts.stub?.id }
    package var stubName: String? { parts.stub?.name }
    /// The status line's code as sent; nil when none was: a fault (`response.fault`), a
    /// client that left before a promised answer came, or an abandoned answer (`isAbandoned`).
    package var status: Int? {
        if let tunnel = parts.unusual?.tunnel { return tunnel.progress.status }
        return isAbandoned ? nil : parts.status
    }
    /// `CONNECT` through the forward proxy: the tunnel, and how it went (a tunnel is all the
    /// journal knows of a blind one; an intercepted one's requests are entries of their own).
    package var tunnel: ConnectionTunnel? { parts.unusual?.tunnel }
    /// A request that came inside an intercepted tunnel: the tunnel's `host:port`.
    package var tunnelAuthority: String? { parts.unusual?.tunnelAuthority }
    /// The host the client addressed: the `CONNECT` or absolute-form target's, else `Host`.
    package var host: String? { tunnel?.authority ?? Self.host(of: requestHead) }
    /// As a client measures it: to the answer's last byte, or to when it was abandoned (while a
    /// delayed answer is underway: to its planned end).
    package var durationMilliseconds: Double {
        parts.unusual?.delivery?.measuredMilliseconds ?? parts.durationMilliseconds
    }
    /// An answer that takes its time (a delay, a dribble) and never reached the client whole:
    /// the client left, or the server stopped, first.
    package var isAbandoned: Bool { parts.unusual?.delivery?.state == .abandoned }
    package var nearMiss: NearMissReport? { parts.unusual?.nearMiss }
    /// For a forwarded request: the upstream, its status and time (or why it failed).
    package var proxy: ProxyReport? { parts.unusual?.proxy }
    /// The answer as the stub (or the near-miss report) gave it; nil when the client left first.
    package var response: JournalResponse? { parts.response }
    /// The client's address, `IP:port` (empty when the transport has none).
    package var peer: String { parts.peer }
    /// Regex matches that gave up on this request (the backtracking engine's budget), with the
    /// stub and condition each belonged to: each counted as no match.
    package var regexAborts: [RegexAbort] { parts.unusual?.regexAborts ?? [] }
    /// What the OpenAPI contract said of the request (`--openapi`); nil without one.
    package var contract: ContractReport? { parts.unusual?.contract }

    /// Why the admin API refused this request (`AdminProtection.Refusal.summary`); nil for
    /// every request it did not refuse. Refused requests are journaled so the developer sees
    /// what a web page or another machine tried.
    package var refusal: String? { parts.unusual?.refusal }

    /// A request no stub answered: near misses and proxied requests, not refused admin ones.
    package var isUnmatched: Bool { parts.stub == nil && refusal == nil }

    /// `reset`, `empty`, `garbage`, `hang`: what the client got instead of a response.
    package var fault: String? { parts.response?.fault }

    /// The request again, for `find` and `count` (the stub matcher runs on it), and for a reader
    /// that wants several of its parts: its head is read once.
    package var request: IncomingRequest {
        var request = requestHead
        request.body = parts.body
        request.peer = parts.peer
        request.authority = tunnel?.authority ?? Self.host(of: request)
        return request
    }

    /// The request line alone read again (method, target, path, query): what a list shows.
    package var requestLine: IncomingRequest {
        switch parts.head {
        case .wire(let bytes): Self.reread(bytes, fields: false)
        case .fields(let box): box.request
        }
    }

    /// The head read again: the request line and the header fields, with no body.
    private var requestHead: IncomingRequest {
        switch parts.head {
        case .wire(let bytes): Self.reread(bytes, fields: true)
        case .fields(let box): box.request
        }
    }

    private static func reread(_ bytes: [UInt8], fields: Bool) -> IncomingRequest {
        do {
            return fields
                ? try IncomingRequest(readingHead: bytes) : try IncomingRequest(readingRequestLineOf: bytes)
        } catch {
            // Never: the same parser accepted these bytes when they came, with tighter limits.
            assertionFailure("a journaled head no longer parses: \(error)")
            return IncomingRequest(method: "", target: "", path: "")
        }
    }

    private static func host(of request: IncomingRequest) -> String? {
        if request.target.utf8.first != UInt8(ascii: "/"),
            let absolute = try? IncomingRequest.make(
                method: "GET",
                target: request.target,
                headers: HeaderFields(),
                body: [],
                peer: "",
                authority: nil
            ), let authority = absolute.authority
        {
            return authority
        }
        return request.headers["Host"]
    }

    /// How the request line and fields are kept. Both cases are one reference, so the entry
    /// stays cheap to build and to free: an `IncomingRequest` stored inline was copied through
    /// its value witnesses, retaining each of its fields (callgrind).
    private enum Head: Sendable {
        /// The bytes as they came, read again when the entry is read.
        case wire([UInt8])
        /// A request that never was bytes, or whose credentials are not kept: its fields.
        case fields(FieldsBox)
    }

    private final class FieldsBox: Sendable {
        let request: IncomingRequest

        init(_ request: borrowing IncomingRequest, headers: HeaderFields?) {
            var kept = copy request
            // The body is the entry's own (perhaps cut); the whole one is not kept twice.
            kept.body = []
            kept.head = []
            if let headers { kept.headers = headers }
            self.request = kept
        }
    }

    /// What every entry has. A plain answered request sets nothing else, and each field here is
    /// one more to release when the ring lets the entry go (every request, once it is full).
    private final class Parts: Sendable {
        let receivedAtMilliseconds: Int
        let head: Head
        let body: [UInt8]
        let bodySize: Int
        /// The stub that answered (its id and name are read from it: one reference, not two strings).
        let stub: Stub?
        let status: Int?
        let durationMilliseconds: Double
        let response: JournalResponse?
        let peer: String
        /// nil for most requests: made only when one of its parts is there.
        let unusual: Unusual?

        init(
            receivedAtMilliseconds: Int,
            head: Head,
            body: [UInt8],
            bodySize: Int,
            stub: Stub?,
            status: Int?,
            durationMilliseconds: Double,
            response: JournalResponse?,
            peer: String,
            unusual: Unusual?
        ) {
            self.receivedAtMilliseconds = receivedAtMilliseconds
            self.head = head
            self.body = body
            self.bodySize = bodySize
            self.stub = stub
            self.status = status
            self.durationMilliseconds = durationMilliseconds
            self.response = response
            self.peer = peer
            self.unusual = unusual
        }
    }

    /// What only some entries have: a near miss, a forwarded request, a refusal, regex matches
    /// that gave up, a contract report, an answer that takes its time, a tunnel.
    private final class Unusual: Sendable {
        let nearMiss: NearMissReport?
        let proxy: ProxyReport?
        let refusal: String?
        let regexAborts: [RegexAbort]
        let contract: ContractReport?
        let delivery: JournalDelivery?
        let tunnel: ConnectionTunnel?
        let tunnelAuthority: String?

        init(
            nearMiss: NearMissReport?,
            proxy: ProxyReport?,
            refusal: String?,
            regexAborts: [RegexAbort],
            contract: ContractReport?,
            delivery: JournalDelivery?,
            tunnel: ConnectionTunnel?,
            tunnelAuthority: String?
        ) {
            self.nearMiss = nearMiss
            self.proxy = proxy
            self.refusal = refusal
            self.regexAborts = regexAborts
            self.contract = contract
            self.delivery = delivery
            self.tunnel = tunnel
            self.tunnelAuthority = tunnelAuthority
        }
    }
}

/// What a journal entry keeps of its response: enough for the inspector to show it and to make
/// a stub from it. The server's own fields (`Date`, `Server`, framing) are not in `headers`.
package struct JournalResponse: Sendable {
    /// The answer as prepared (one reference: a stub's precomputed answer is shared, not copied).
    private let prepared: PreparedResponse
    /// The start of a body over `Journal.maximumBodyBytes`; nil when the whole body is kept.
    private let cutBody: [UInt8]?
    /// The stub's status, as it would have been sent (a fault sends none: see `fault`).
    package var status: Int { prepared.status }
    package var headers: HeaderFields { prepared.headers }
    /// At most `Journal.maximumBodyBytes`; `bodySize` is the real size (nil when streamed).
    package var body: [UInt8] { cutBody ?? prepared.body }
    package let bodySize: Int?
    package let delayMilliseconds: Int
    /// `reset`, `empty`, `garbage`, `hang`: the stub's fault, when the client got no response.
    package let fault: String?
    /// For an answer that streams (events, a WebSocket): what was sent and received, as it
    /// happens, and how it ended.
    package let stream: StreamTranscript?

    init(_ response: borrowing OutgoingResponse, stream: StreamTranscript? = nil) {
        self.stream = stream
        prepared = response.prepared
        let size = response.prepared.body.count
        // Kept by reference, however large; only a body over the limit is copied, cut.
        cutBody = size > Journal.maximumBodyBytes ? Array(response.prepared.body.prefix(Journal.maximumBodyBytes)) : nil
        delayMilliseconds = response.delayMilliseconds
        fault = response.delivery.faultName
        if case .stream(let stream) = response.delivery { bodySize = stream.length } else { bodySize = size }
    }
}
