import HTTP1
import SystemSupport
import WebSocket

/// Forwarded answers that stream, journaled as they happen like stubbed streams: an upstream's
/// event stream event by event (`sent`, as the client got them), a proxied WebSocket message by
/// message both ways (the client's as `received`, the upstream's as `sent`), and how each ended.
/// The watch only reads copies of the bytes as they pass (`BodyStream.tap`,
/// `ConnectionUpgrade.tapInput`): the relay does not wait for it.
package enum ProxiedStreams {
    /// The transcript for a forwarded answer that streams, watching it; nil for any other.
    static func watch(_ response: OutgoingResponse) -> StreamTranscript? {
        switch response.delivery {
        case .upgrade(let upgrade):
            return webSocket(upgrade)
        case .stream(let stream) where isEventStream(response.prepared.headers):
            return events(stream)
        default:
            return nil
        }
    }

    package static func isEventStream(_ headers: HeaderFields) -> Bool {
        guard let type = headers["Content-Type"] else { return false }
        let essence = type.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() } ?? ""
        return essence == "text/event-stream"
    }

    private static func events(_ stream: BodyStream) -> StreamTranscript {
        let transcript = StreamTranscript(kind: .events)
        let splitter = Locked(ServerSentEventSplitter(maximumBlockBytes: StreamTranscript.maximumItemBytes * 32))
        stream.tap { event in
            switch event {
            case .bytes(let piece):
                for block in splitter.withLock({ $0.append(piece) }) {
                    transcript.sent(block.id.map { "event id \($0)" } ?? "event", bytes: block.raw)
                }
            case .finished:
                if let last = splitter.withLock({ $0.finish() }) { transcript.sent("event", bytes: last.raw) }
                transcript.end("the upstream ended the stream")
            case .broken:
                transcript.end("cut off: the client left or the upstream broke off")
            }
        }
        return transcript
    }

    private static func webSocket(_ upgrade: ConnectionUpgrade) -> StreamTranscript {
        let transcript = StreamTranscript(kind: .websocket)
        let fromClient = Locked(WebSocketMessageReader())
        let fromUpstream = Locked(WebSocketMessageReader())
        upgrade.tapInput { bytes in
            for item in fromClient.withLock({ $0.read(bytes) }) {
                note(item, transcript, by: "the client", message: { transcript.received($0) })
            }
        }
        upgrade.output.tap { event in
            switch event {
            case .bytes(let bytes):
                for item in fromUpstream.withLock({ $0.read(bytes) }) {
                    note(item, transcript, by: "the upstream", message: { transcript.sent($0) })
                }
            case .finished:
                transcript.end("the upstream closed the connection")
            case .broken:
                transcript.end("the client closed the connection")
            }
        }
        return transcript
    }

    private static func note(
        _ item: WebSocketMessageReader.Item,
        _ transcript: StreamTranscript,
        by side: String,
        message: (String) -> Void
    ) {
        switch item {
        case .message(let content): message(WebSocketSession.describe(content))
        case .close(let code, let reason):
            transcript.note("close from \(side): \(code)" + (reason.isEmpty ? "" : " \(reason)"))
        case .unreadable(let why): transcript.note("\(side)'s frames are not read further: \(why)")
        }
    }
}
