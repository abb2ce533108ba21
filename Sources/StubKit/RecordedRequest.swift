import Foundation
import StubEngine

/// One request the stubs received, from the journal: what the client sent and what answered it.
public struct RecordedRequest: Sendable, CustomStringConvertible {
    /// Increasing in arrival order; unique per `Stubs`.
    public let id: Int
    public let receivedAt: Date
    public let method: String
    /// The decoded path, without the query.
    public let path: String
    /// The target as sent (path and query, percent-encoding kept).
    public let target: String
    /// Query parameters in order, decoded (`+` stays `+`).
    public let query: [(name: String, value: String)]
    /// Header fields in order, names as sent; repeats kept.
    public let headers: [(name: String, value: String)]
    /// The body (the first 64 KiB of a larger one; see `bodySize`).
    public let body: Data
    /// The body's real size, when the journal kept only its start.
    public let bodySize: Int
    /// The name of the stub that answered; nil when none did (see `nearMiss`).
    public let stubName: String?
    /// The status sent; nil when none was: a fault (see `fault`), a client that left first, or
    /// an abandoned answer (see `abandoned`).
    public let status: Int?
    /// A delayed or dribbled answer that never reached the client whole: the client gave up
    /// (its timeout), or the server stopped, first. `duration` then runs to that moment.
    public let abandoned: Bool
    /// The stub's fault, sent instead of a response.
    public let fault: ResponseDefinition.Fault?
    /// How long the answer took, its delay included (to when it was abandoned, for one that was).
    public let duration: Duration
    /// For a request no stub matched: the closest stubs and what differed, as the 404 said it.
    public let nearMiss: String?
    /// With `Stubs(openAPI:)`: how the request (and a forwarded answer) broke the document, one
    /// line each (`query.limit: expected an integer, found the string "ten" (#/...)`); empty
    /// when it kept to it.
    public let contractViolations: [String]

    init(_ entry: JournalEntry) {
        id = entry.id
        receivedAt = Date(timeIntervalSince1970: Double(entry.receivedAtMilliseconds) / 1000)
        // Its head read once (the journal keeps the bytes as they came).
        let request = entry.request
        method = request.method
        path = request.path
        target = request.target
        query = request.queryItems.map { ($0.name, $0.value) }
        headers = request.headers.fields.map { ($0.name, $0.value) }
        body = Data(entry.body)
        bodySize = entry.bodySize
        stubName = entry.stubName
        status = entry.status
        abandoned = entry.isAbandoned
        fault = entry.fault.flatMap(ResponseDefinition.Fault.init(rawValue:))
        duration = .microseconds(Int64((entry.durationMilliseconds * 1000).rounded()))
        nearMiss = entry.nearMiss?.text
        contractViolations = entry.contract?.lines ?? []
    }

    /// The URL the client asked for, as the server saw it (its Host and target).
    public var url: URL? { URL(string: "http://" + (header("Host") ?? "localhost") + target) }

    /// Whether a stub answered.
    public var matched: Bool { stubName != nil }

    /// The first value of a header (any case).
    public func header(_ name: String) -> String? { RequestFields.header(name, in: headers) }

    /// The first value of a query parameter.
    public func query(_ name: String) -> String? { RequestFields.query(name, in: query) }

    /// The body as UTF-8 text; nil when it is not UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// The body decoded from JSON.
    public func json<T: Decodable>(_ type: T.Type = T.self) throws -> T { try JSONDecoder().decode(T.self, from: body) }

    /// `#3 POST /oauth/token → 401 "Login: wrong credentials"`: one line, for reports.
    public var description: String {
        let answer =
            fault.map { "fault \($0.rawValue)" } ?? (abandoned ? "abandoned" : nil) ?? status.map(String.init)
            ?? "no answer"
        return "#\(id) \(method) \(target) → \(answer) " + (stubName.map { "\"\($0)\"" } ?? "(no stub matched)")
    }
}
