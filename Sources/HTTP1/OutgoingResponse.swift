/// What the handler gives back: a prepared response plus how to deliver it.
///
/// The delivery actions exist for the stub engine's realistic-network features (delays, faults,
/// slow bodies). They are part of the HTTP layer because only it owns the socket and the timers:
/// a delay is a timer on the connection's event loop, never a sleeping thread.
package struct OutgoingResponse: Sendable {
    package var prepared: PreparedResponse
    /// Wait this long before sending anything (timer-based).
    package var delayMilliseconds: Int
    package var delivery: ResponseDelivery
    /// Close the connection after this response even if the client wanted keep-alive.
    package var closeConnection: Bool
    /// Told whether an answer that takes its time (a delay, a dribble) reached the client or
    /// was abandoned; nil for every other answer.
    package var deliveryReport: DeliveryReport?

    /// Whether the answer takes time on the wire: a delay, or a dribbled body.
    package var takesItsTime: Bool {
        if delayMilliseconds > 0 { return true }
        if case .dribble = delivery { return true }
        return false
    }

    package init(
        _ prepared: PreparedResponse,
        delayMilliseconds: Int = 0,
        delivery: ResponseDelivery = .normal,
        closeConnection: Bool = false
    ) {
        self.prepared = prepared
        self.delayMilliseconds = delayMilliseconds
        self.delivery = delivery
        self.closeConnection = closeConnection
        self.deliveryReport = nil
    }

    /// A plain response built on the spot (serialised now).
    package init(status: Int, headers: HeaderFields = HeaderFields(), body: [UInt8] = []) {
        self.init(PreparedResponse(status: status, headers: headers, body: body))
    }

    package static func text(_ status: Int, _ text: String) -> OutgoingResponse {
        var headers = HeaderFields()
        headers.add("Content-Type", "text/plain; charset=utf-8")
        return OutgoingResponse(status: status, headers: headers, body: Array(text.utf8))
    }
}

/// How the bytes reach the wire.
package enum ResponseDelivery: Sendable, Equatable {
    /// Head and body in one write where they fit.
    case normal
    /// The body in `chunks` pieces spread evenly over `durationMilliseconds`; framing intact.
    case dribble(chunks: Int, durationMilliseconds: Int)
    /// Close with a TCP reset (SO_LINGER 0) without sending a byte.
    case reset
    /// Close cleanly (FIN) without sending a byte.
    case closeWithoutResponse
    /// Write these bytes instead of a response, then close.
    case rawThenClose([UInt8])
    /// Never answer; hold the connection until the client leaves or the server stops.
    case hang
    /// The body comes in pieces from a producer (the prepared response's head was made for it
    /// with `PreparedResponse(status:headers:streamLength:)`).
    case stream(BodyStream)
    /// `101 Switching Protocols`, then the connection belongs to another protocol (a
    /// WebSocket): the prepared head goes out with `Connection: Upgrade`, and from then on the
    /// bytes go both ways through `ConnectionUpgrade`.
    case upgrade(ConnectionUpgrade)
    /// The answer to `CONNECT`: the connection becomes a tunnel (`ConnectionTunnel`).
    case tunnel(ConnectionTunnel)
}

extension ResponseDelivery {
    /// The stub format's name of a delivery that sends no response (`reset`, `empty`,
    /// `garbage`, `hang`): what logs and the journal show instead of a status.
    package var faultName: String? {
        switch self {
        case .reset: "reset"
        case .closeWithoutResponse: "empty"
        case .rawThenClose: "garbage"
        case .hang: "hang"
        case .normal, .dribble, .stream, .upgrade, .tunnel: nil
        }
    }

    /// Whether the client gets the prepared response's status line.
    package var sendsStatusLine: Bool { faultName == nil }

    package static func == (a: ResponseDelivery, b: ResponseDelivery) -> Bool {
        switch (a, b) {
        case (.normal, .normal), (.reset, .reset), (.closeWithoutResponse, .closeWithoutResponse), (.hang, .hang): true
        case let (.dribble(c1, d1), .dribble(c2, d2)): c1 == c2 && d1 == d2
        case let (.rawThenClose(x), .rawThenClose(y)): x == y
        case let (.stream(x), .stream(y)): x === y
        case let (.upgrade(x), .upgrade(y)): x === y
        case let (.tunnel(x), .tunnel(y)): x === y
        default: false
        }
    }
}

/// A response serialised once: status line, the handler's headers and `Content-Length`.
/// The server adds `Date`, `Server` and `Connection` per request and the final CRLF, so a stub
/// that never changes is encoded once at load and served by copying bytes.
///
/// Its parts live in one immutable object, so a copy is one retain: a response is copied
/// several times on its way from the stub to the socket (into the outcome, the journal, the
/// reply), and as a plain struct each copy retained and released its head, fields and body.
package struct PreparedResponse: Sendable {
    /// The numbers are 32-bit so the object fits malloc's 64-byte size class, not the 80-byte
    /// one: a folder of 10,000 stubs keeps one per response (a head is at most a few KiB).
    private final class Storage: Sendable {
        let headers: HeaderFields
        let head: [UInt8]
        let body: [UInt8]
        let status: Int32
        let lengthLineStart: UInt32
        let lengthLineEnd: UInt32
        let carriesDateAndServer: Bool

        init(
            status: Int,
            headers: HeaderFields,
            head: [UInt8],
            body: [UInt8],
            lengthLine: Range<Int>,
            carriesDateAndServer: Bool
        ) {
            self.status = Int32(clamping: status)  // 100 to 599 by the loaders; never a trap
            self.headers = headers
            self.head = head
            self.body = body
            lengthLineStart = UInt32(clamping: lengthLine.lowerBound)
            lengthLineEnd = UInt32(clamping: lengthLine.upperBound)
            self.carriesDateAndServer = carriesDateAndServer
        }
    }

    private let storage: Storage

    package var status: Int { Int(storage.status) }
    package var headers: HeaderFields { storage.headers }
    /// Status line and header lines, each CRLF-terminated; no blank line.
    package var head: [UInt8] { storage.head }
    package var body: [UInt8] { storage.body }
    /// Where the `Content-Length` line sits in `head` (empty range when the status has no body),
    /// so a new body only rewrites that line.
    var lengthLine: Range<Int> { Int(storage.lengthLineStart)..<Int(storage.lengthLineEnd) }
    /// The head carries its own `Date` and `Server` (a proxied response, relayed as it came):
    /// the server adds neither.
    package var carriesDateAndServer: Bool { storage.carriesDateAndServer }

    package init(status: Int, reason: String? = nil, headers: HeaderFields = HeaderFields(), body: [UInt8] = []) {
        self.init(status: status, reason: reason, headers: headers, body: body, keepingDateAndServer: false)
    }

    /// With `keepingDateAndServer`, the handler's `Date` and `Server` are kept and the server adds
    /// none (a proxied answer carries the upstream's).
    package init(status: Int, reason: String?, headers: HeaderFields, body: [UInt8], keepingDateAndServer: Bool) {
        self.init(
            status: status,
            reason: reason,
            headers: headers,
            body: body,
            length: body.count,
            keepingDateAndServer: keepingDateAndServer
        )
    }

    /// The head with a `Content-Length` of `length` (none when nil: a stream of unknown length).
    /// Built byte by byte into one buffer sized up front: a proxied response is prepared per
    /// request, and string interpolation and growing arrays showed in the proxy's profile.
    private init(
        status: Int,
        reason: String?,
        headers: HeaderFields,
        body: [UInt8],
        length: Int?,
        keepingDateAndServer: Bool
    ) {
        let isServerOwned = { (name: String) in
            keepingDateAndServer ? ServerOwnedFields.isFraming(name) : ServerOwnedFields.contains(name)
        }
        // Usually every field stays as it is (a proxied head has had its framing fields taken
        // out already): then the fields are shared, not copied one by one.
        let kept: HeaderFields
        if headers.contains(where: { isServerOwned($0.name) || Self.needsSanitising($0.value) }) {
            var filtered = HeaderFields(capacity: headers.count)
            for field in headers where !isServerOwned(field.name) {
                filtered.add(field.name, Self.sanitised(field.value))
            }
            kept = filtered
        } else {
            kept = headers
        }
        var fieldBytes = 0
        for field in kept { fieldBytes += field.name.utf8.count + field.value.utf8.count + 4 }
        let reasonPhrase = reason ?? HTTPStatus.reason(status)
        var head: [UInt8] = []
        head.reserveCapacity(9 + 4 + reasonPhrase.utf8.count + 2 + fieldBytes + 40)
        head.append(contentsOf: "HTTP/1.1 ".utf8)
        head.appendDecimal(status)
        head.append(ByteClass.space)
        head.append(contentsOf: reasonPhrase.utf8)
        head.append(contentsOf: "\r\n".utf8)
        for field in kept {
            head.append(contentsOf: field.name.utf8)
            head.append(contentsOf: ": ".utf8)
            head.append(contentsOf: field.value.utf8)
            head.append(contentsOf: "\r\n".utf8)
        }
        let lengthStart = head.count
        if Self.allowsBody(status), let length {
            Self.appendLengthLine(length, to: &head)
        }
        self.init(
            status: status,
            headers: kept,
            head: head,
            body: Self.allowsBody(status) ? body : [],
            lengthLine: lengthStart..<head.count,
            carriesDateAndServer: keepingDateAndServer
        )
    }

    private static func appendLengthLine(_ length: Int, to head: inout [UInt8]) {
        head.append(contentsOf: "Content-Length: ".utf8)
        head.appendDecimal(length)
        head.append(contentsOf: "\r\n".utf8)
    }

    private init(
        status: Int,
        headers: HeaderFields,
        head: [UInt8],
        body: [UInt8],
        lengthLine: Range<Int>,
        carriesDateAndServer: Bool
    ) {
        storage = Storage(
            status: status,
            headers: headers,
            head: head,
            body: body,
            lengthLine: lengthLine,
            carriesDateAndServer: carriesDateAndServer
        )
    }

    /// The same status and headers with another body: only the `Content-Length` line is
    /// rewritten (templated bodies change per request; their heads do not).
    package func replacingBody(_ newBody: [UInt8]) -> PreparedResponse {
        guard Self.allowsBody(status) else { return self }
        var newHead: [UInt8] = []
        newHead.reserveCapacity(head.count + 4)
        newHead.append(contentsOf: head[..<lengthLine.lowerBound])
        Self.appendLengthLine(newBody.count, to: &newHead)
        let end = newHead.count
        newHead.append(contentsOf: head[lengthLine.upperBound...])
        return PreparedResponse(
            status: status,
            headers: headers,
            head: newHead,
            body: newBody,
            lengthLine: lengthLine.lowerBound..<end,
            carriesDateAndServer: carriesDateAndServer
        )
    }

    /// The head of a streamed response: `Content-Length` when the length is known, none when it
    /// is not (the server then frames the body: chunked for HTTP/1.1, until close for 1.0).
    package init(
        status: Int,
        reason: String? = nil,
        headers: HeaderFields,
        streamLength: Int?,
        keepingDateAndServer: Bool = false
    ) {
        self.init(
            status: status,
            reason: reason,
            headers: headers,
            body: [],
            length: streamLength,
            keepingDateAndServer: keepingDateAndServer
        )
    }

    /// A copy with more fields appended to the serialised head, without re-encoding the rest:
    /// for per-request additions (CORS) to a response prepared once at load.
    package func adding(_ extra: HeaderFields) -> PreparedResponse {
        var headers = self.headers
        var head = self.head
        for field in extra where !ServerOwnedFields.contains(field.name) {
            let value = Self.sanitised(field.value)
            headers.add(field.name, value)
            head.append(contentsOf: field.name.utf8)
            head.append(contentsOf: ": ".utf8)
            head.append(contentsOf: value.utf8)
            head.append(contentsOf: "\r\n".utf8)
        }
        return PreparedResponse(
            status: status,
            headers: headers,
            head: head,
            body: body,
            lengthLine: lengthLine,
            carriesDateAndServer: carriesDateAndServer
        )
    }

    /// 1xx, 204 and 304 carry no body and no Content-Length (RFC 9110 §8.6, §15.3.5, §15.4.5).
    package static func allowsBody(_ status: Int) -> Bool {
        !(status < 200 || status == 204 || status == 304)
    }

    private static func needsSanitising(_ value: String) -> Bool {
        value.utf8.contains { $0 == 10 || $0 == 13 || $0 == 0 }
    }

    /// A header value may not contain CR or LF (response splitting); they become spaces.
    private static func sanitised(_ value: String) -> String {
        guard needsSanitising(value) else { return value }
        // By scalar: "\r\n" is one Character, so a Character-wise replace would miss it.
        var scalars = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            scalars.append(scalar == "\r" || scalar == "\n" || scalar == "\0" ? " " : scalar)
        }
        return String(scalars)
    }
}
