import Foundation

/// One server-sent event of a response's `events` (docs/stub-format.md, Server-sent events):
/// written and flushed when it is due, `delay` after the previous one.
///
///     .events([
///         .data(["state": "cooking"], event: "status", id: "1"),
///         .data(["state": "on-the-way"], event: "status", id: "2", after: .milliseconds(1500)),
///         .comment("keep-alive", after: .seconds(1)),
///         .data("delivered {{request.path.id}}", event: "status", id: "3", after: .milliseconds(1500)),
///     ], then: .close)
public struct EventDefinition: Sendable, Equatable {
    /// A string is sent as text (one `data:` line per line); any other value as JSON on one
    /// line. `{{...}}` templates work in it.
    public var data: JSONValue?
    /// The event's type (`event:`).
    public var event: String?
    /// The event's id (`id:`): a client reconnecting with `Last-Event-ID` resumes after it.
    public var id: String?
    /// How long a client should wait before reconnecting (`retry:`), in whole milliseconds.
    public var retry: Duration?
    /// A comment line (`: text`), which clients ignore: a keep-alive.
    public var comment: String?
    /// After the previous event (after the head, for the first); whole milliseconds.
    public var delay: Duration?
    /// Instead of an event: what happens to the connection at this point of the stream.
    public var fault: Fault?

    public init(
        data: JSONValue? = nil,
        event: String? = nil,
        id: String? = nil,
        retry: Duration? = nil,
        comment: String? = nil,
        delay: Duration? = nil
    ) {
        self.data = data
        self.event = event
        self.id = id
        self.retry = retry
        self.comment = comment
        self.delay = delay
    }

    /// An event carrying `data`.
    public static func data(
        _ data: JSONValue,
        event: String? = nil,
        id: String? = nil,
        retry: Duration? = nil,
        after delay: Duration? = nil
    ) -> EventDefinition {
        EventDefinition(data: data, event: event, id: id, retry: retry, delay: delay)
    }

    /// A comment line, which clients ignore.
    public static func comment(_ text: String, after delay: Duration? = nil) -> EventDefinition {
        EventDefinition(comment: text, delay: delay)
    }

    /// The stream fails here: the events before it were sent.
    public static func fault(_ fault: Fault, after delay: Duration? = nil) -> EventDefinition {
        var event = EventDefinition(delay: delay)
        event.fault = fault
        return event
    }

    /// What happens to the connection mid-stream.
    public enum Fault: String, Sendable, CaseIterable {
        /// A TCP reset (a crashed backend, a dropped mobile link).
        case reset
        /// A clean close without the body's end: the stream is cut short.
        case empty
        /// Nothing more is sent, and the stream never ends.
        case hang
    }

    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let comment { members.append(("comment", .string(comment))) }
        if let event { members.append(("event", .string(event))) }
        if let id { members.append(("id", .string(id))) }
        if let retry { members.append(("retry", DefinitionJSON.milliseconds(retry))) }
        if let data { members.append(("data", data)) }
        if let delay { members.append(("delay", DefinitionJSON.milliseconds(delay))) }
        if let fault { members.append(("fault", .string(fault.rawValue))) }
        return .object(members)
    }
}

/// What an event stream does after its last event (`"then"`).
public enum EventStreamEnd: Sendable, Equatable {
    /// The response ends (the default).
    case close
    /// The stream stays open; a comment line every `heartbeat` (nil: 15 s) keeps proxies and
    /// clients from giving up on it.
    case hold(heartbeat: Duration? = nil)
    /// The list starts again (at least one event needs a delay).
    case `repeat`

    var members: [(key: String, value: JSONValue)] {
        switch self {
        case .close: [("then", "close")]
        case .hold(nil): [("then", "hold")]
        case .hold(let heartbeat?): [("then", "hold"), ("heartbeat", DefinitionJSON.milliseconds(heartbeat))]
        case .repeat: [("then", "repeat")]
        }
    }
}

extension ResponseDefinition {
    /// Server-sent events instead of a body (`text/event-stream`), each flushed when it is due.
    ///
    ///     .events([.data(["state": "cooking"]), .data(["state": "done"], after: .seconds(1))], then: .close)
    public static func events(
        _ events: [EventDefinition],
        then end: EventStreamEnd? = nil,
        status: Int? = nil,
        headers: [String: HeaderValue]? = nil
    ) -> ResponseDefinition {
        var response = ResponseDefinition(status: status, headers: headers)
        response.events = events
        response.then = end
        return response
    }

    /// A raw `.sse` file (relative to the stub folder, like `bodyFile`) replayed event by event,
    /// `eventDelay` apart.
    public static func eventsFile(
        _ path: String,
        eventDelay: Duration? = nil,
        then end: EventStreamEnd? = nil,
        status: Int? = nil,
        headers: [String: HeaderValue]? = nil
    ) -> ResponseDefinition {
        var response = ResponseDefinition(status: status, headers: headers)
        response.eventsFile = path
        response.eventDelay = eventDelay
        response.then = end
        return response
    }

    /// The stream members of a response's JSON, in the stub format's order.
    var streamMembers: [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if let events { members.append(("events", .array(events.map(\.json)))) }
        if let eventsFile { members.append(("eventsFile", .string(eventsFile))) }
        if let eventDelay { members.append(("eventDelay", DefinitionJSON.milliseconds(eventDelay))) }
        if let then { members += then.members }
        return members
    }
}
