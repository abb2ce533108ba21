import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a stub answers: the `response` object of a stub file.
///
///     ResponseDefinition(status: 409, body: ["error_code": "E001", "message": "Username already exists"])
///     .json(["id": 1001], status: 201, headers: ["Location": "/v1/users/1001"])
///     .fault(.reset)
public struct ResponseDefinition: Sendable, Equatable {
    /// 100 to 599; nil is 200.
    public var status: Int?
    /// A value, or several for a repeated header (`["a=1", "b=2"]`).
    public var headers: [String: HeaderValue]?
    /// A string is sent as is (`text/plain`); any other value as JSON (`application/json`).
    public var body: JSONValue?
    /// A file relative to the stub folder (`Stubs(directory:)`), read when the stub is added.
    public var bodyFile: String?
    /// Bytes (`application/octet-stream` unless a header says otherwise).
    public var bodyData: Data?
    /// `{{...}}` substitution in the body and header values (`{{request.path.id}}`, `{{now}}`).
    public var template: Bool?
    public var delay: Delay?
    /// Instead of any response: what a broken network does.
    public var fault: Fault?
    /// The body in pieces over a time, as a slow network delivers it.
    public var dribble: Dribble?
    /// Server-sent events instead of a body (`.events(_:then:)`).
    public var events: [EventDefinition]?
    /// A raw `.sse` file replayed event by event instead of `events` (`.eventsFile(_:)`).
    public var eventsFile: String?
    /// With `eventsFile`: the time between its events.
    public var eventDelay: Duration?
    /// After the last event: close (the default), hold with heartbeats, or repeat.
    public var then: EventStreamEnd?

    public init(
        status: Int? = nil,
        headers: [String: HeaderValue]? = nil,
        body: JSONValue? = nil,
        bodyFile: String? = nil,
        bodyData: Data? = nil,
        template: Bool? = nil,
        delay: Delay? = nil,
        fault: Fault? = nil,
        dribble: Dribble? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.bodyData = bodyData
        self.template = template
        self.delay = delay
        self.fault = fault
        self.dribble = dribble
    }

    /// A JSON body.
    public static func json(
        _ body: JSONValue,
        status: Int = 200,
        headers: [String: HeaderValue]? = nil
    ) -> ResponseDefinition {
        ResponseDefinition(status: status, headers: headers, body: body)
    }

    /// A JSON body from any Encodable value (which may refuse to encode, hence `throws`).
    public static func json(
        encoding value: some Encodable,
        status: Int = 200,
        headers: [String: HeaderValue]? = nil
    ) throws -> ResponseDefinition {
        ResponseDefinition(status: status, headers: headers, body: try JSONValue(encoding: value))
    }

    /// A text body, sent as is (`text/plain; charset=utf-8` unless a header says otherwise).
    public static func text(
        _ text: String,
        status: Int = 200,
        headers: [String: HeaderValue]? = nil
    ) -> ResponseDefinition {
        ResponseDefinition(status: status, headers: headers, body: .string(text))
    }

    /// A status and no body.
    public static func status(_ status: Int, headers: [String: HeaderValue]? = nil) -> ResponseDefinition {
        ResponseDefinition(status: status, headers: headers)
    }

    /// A broken network instead of a response.
    public static func fault(_ fault: Fault) -> ResponseDefinition { ResponseDefinition(fault: fault) }

    /// What a broken network does instead of answering. Through either transport a client gets
    /// the same `URLError` code for each (`urlErrorCode`): the code URLSession reports for it
    /// over a real socket on this platform.
    public enum Fault: String, Sendable, CaseIterable {
        /// The connection is closed with a TCP reset before anything is sent.
        case reset
        /// The connection is closed cleanly before anything is sent.
        case empty
        /// Random bytes that are not HTTP, then the connection is closed.
        case garbage
        /// Nothing is ever sent: the client's timeout ends the request.
        case hang

        /// The `URLError` code a `URLSession` task fails with for this fault, through
        /// `LocalStubServer` and `StubURLProtocol` alike. The codes differ between Apple's
        /// URLSession and swift-corelibs-foundation's (libcurl), so they depend on the platform.
        public var urlErrorCode: URLError.Code {
            switch self {
            case .reset: .networkConnectionLost
            case .hang: .timedOut
            #if canImport(Darwin)
            case .empty: .networkConnectionLost
            case .garbage: .cannotParseResponse
            #else
            case .empty: .badServerResponse
            case .garbage: .unsupportedURL
            #endif
            }
        }
    }

    /// Time before the response: fixed, or drawn per request from a range (uniformly). Whole
    /// milliseconds, as in stub files.
    public enum Delay: Sendable, Equatable {
        case fixed(Duration)
        case random(ClosedRange<Duration>)

        public static func milliseconds(_ n: Int) -> Delay { .fixed(.milliseconds(n)) }
        public static func seconds(_ n: Double) -> Delay { .fixed(.seconds(n)) }
    }

    /// The body in `chunks` pieces spread over `duration`.
    public struct Dribble: Sendable, Equatable {
        public var chunks: Int
        public var duration: Duration
        public init(chunks: Int, over duration: Duration) {
            self.chunks = chunks
            self.duration = duration
        }
    }
}

/// A response header's value, or values for a repeated header.
public enum HeaderValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    case one(String)
    case many([String])

    public init(stringLiteral value: String) { self = .one(value) }
    public init(arrayLiteral elements: String...) { self = .many(elements) }
}
