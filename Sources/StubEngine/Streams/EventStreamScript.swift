import HTTP1

/// A stub's server-sent events (`"events"` or `"eventsFile"`), compiled at load: each event's
/// bytes are encoded once, and only an event whose data uses `{{...}}` is rendered per request.
package struct EventStreamScript: Sendable {
    /// What happens after the last event.
    package enum End: Sendable, Equatable {
        /// The response ends (the last chunk).
        case close
        /// The stream stays open; a comment line every `heartbeatMilliseconds` keeps proxies
        /// and clients from giving up on it.
        case hold(heartbeatMilliseconds: Int)
        /// The list starts again.
        case repeatAll
    }

    /// Faults an event may carry: what happens to the connection at that point of the stream.
    package enum StreamFault: String, Sendable, CaseIterable {
        /// A TCP reset (what a crashed backend or a dropped mobile link looks like).
        case reset
        /// A clean close without the chunked body's end: the stream is cut short.
        case empty
        /// Nothing more is sent, and the stream never ends.
        case hang
    }

    package struct Event: Sendable {
        /// Milliseconds after the previous event (after the request for the first).
        package let delayMilliseconds: Int
        /// The event's id, for `Last-Event-ID` resumption.
        let id: String?
        let content: Content

        package init(delayMilliseconds: Int, id: String? = nil, content: Content) {
            self.delayMilliseconds = delayMilliseconds
            self.id = id
            self.content = content
        }
    }

    package enum Content: Sendable {
        /// The bytes as they go out.
        case fixed([UInt8])
        /// Data rendered per request, then encoded with the fixed fields.
        case templated(EventFields, data: Template)
        case fault(StreamFault)
    }

    /// The fields of an event other than its data.
    package struct EventFields: Sendable {
        let comment: String?
        let event: String?
        let id: String?
        let retry: Int?

        package func encode(data: String?) -> [UInt8] {
            ServerSentEvents.encode(comment: comment, event: event, id: id, retry: retry, data: data)
        }

        package init(comment: String? = nil, event: String? = nil, id: String? = nil, retry: Int? = nil) {
            self.comment = comment
            self.event = event
            self.id = id
            self.retry = retry
        }
    }

    let events: [Event]
    package let end: End

    package var eventCount: Int { events.count }

    /// The default heartbeat of `"then": "hold"`: the interval browsers and proxies tolerate.
    package static let defaultHeartbeatMilliseconds = 15_000

    /// Where a stream resumes for a client that sends `Last-Event-ID`: after the event with
    /// that id, or from the start when no event has it.
    func resumeIndex(lastEventID: String?) -> Int {
        guard let lastEventID, let found = events.lastIndex(where: { $0.id == lastEventID }) else { return 0 }
        return found + 1
    }

    package init(events: [Event], end: End) {
        self.events = events
        self.end = end
    }
}

/// What a stub answers that goes on after the head: events, or a WebSocket. Indirect, so a
/// response carries one reference for it.
package indirect enum StreamAnswer: Sendable {
    case events(EventStreamScript)
    case webSocket(WebSocketScript)
}
