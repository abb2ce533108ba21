#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import WebSocket

/// The answers of stubs that stream: server-sent events and WebSocket connections. Each gets
/// a transcript that the journal entry holds, so both are seen while they run.
enum StreamAnswers {
    static func events(
        _ script: EventStreamScript,
        _ response: StubResponse,
        _ stub: Stub,
        _ inputs: TemplateInputs,
        stallMilliseconds: Int
    ) -> Outcome {
        let transcript = StreamTranscript(kind: .events)
        let made = EventStreamPlayer.response(
            for: script,
            prepared: response.prepared,
            delayMilliseconds: response.delay?.draw() ?? 0,
            inputs: inputs,
            transcript: transcript,
            stallMilliseconds: stallMilliseconds
        )
        var outcome = Outcome(response: made, kind: .stub(stub))
        outcome.transcript = transcript
        return outcome
    }

    /// The upgrade when the request is a valid one; 426 for a request that asks for no
    /// upgrade (a WebSocket stub matched a plain GET), 400 for a broken handshake.
    static func webSocket(
        _ script: WebSocketScript,
        _ stub: Stub,
        _ inputs: TemplateInputs,
        hub: WebSocketHub
    ) -> Outcome {
        let request = inputs.request
        let header = { (name: String) -> String? in
            let values = request.headers.values(name)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        guard WebSocketHandshake.isUpgrade(header: header) else {
            var headers = HeaderFields()
            headers.add("Upgrade", "websocket")
            headers.add("Content-Type", "text/plain; charset=utf-8")
            let text = "stubserver: \(stub.name) is a WebSocket stub; connect with Upgrade: websocket\n"
            return Outcome(
                response: OutgoingResponse(status: 426, headers: headers, body: Array(text.utf8)),
                kind: .stub(stub)
            )
        }
        if let problem = WebSocketHandshake.problem(method: request.method, header: header) {
            let text = "stubserver: not a valid WebSocket upgrade: \(problem)\n"
            var headers = HeaderFields()
            headers.add("Sec-WebSocket-Version", "13")
            headers.add("Content-Type", "text/plain; charset=utf-8")
            return Outcome(
                response: OutgoingResponse(status: 400, headers: headers, body: Array(text.utf8)),
                kind: .stub(stub)
            )
        }
        var headers = HeaderFields()
        headers.add("Upgrade", "websocket")
        headers.add("Sec-WebSocket-Accept", WebSocketHandshake.acceptValue(forKey: header("Sec-WebSocket-Key") ?? ""))
        // No Sec-WebSocket-Extensions: every extension (permessage-deflate) is declined.
        let upgrade = ConnectionUpgrade()
        let session = WebSocketSession(
            id: hub.makeID(),
            stub: stub,
            script: script,
            upgrade: upgrade,
            inputs: inputs,
            hub: hub,
            openedAtMilliseconds: Int(Date().timeIntervalSince1970 * 1000)
        )
        session.start()
        var outcome = Outcome(
            response: OutgoingResponse(
                PreparedResponse(status: 101, headers: headers),
                delivery: .upgrade(upgrade)
            ),
            kind: .stub(stub)
        )
        outcome.transcript = session.transcript
        return outcome
    }
}
