import Foundation
import HTTP1
import JSON
import StubEngine

/// A request a closure responder answers (`StubDefinition(request:respond:)`): what the client
/// sent, with the path's `{name}` captures.
public struct StubRequest: Sendable {
    public let method: String
    /// The decoded path, without the query.
    public let path: String
    /// The target as sent (path and query, percent-encoding kept).
    public let target: String
    /// The `{name}` segments of the stub's path, by name: `/v1/users/{id}` gives `["id": "42"]`.
    public let pathParameters: [String: String]
    /// Query parameters in order, decoded.
    public let query: [(name: String, value: String)]
    /// Header fields in order, names as sent; repeats kept.
    public let headers: [(name: String, value: String)]
    public let body: Data

    init(_ request: IncomingRequest, pathParameters: [String: String]) {
        method = request.method
        path = request.path
        target = request.target
        self.pathParameters = pathParameters
        query = request.queryItems.map { ($0.name, $0.value) }
        headers = request.headers.fields.map { ($0.name, $0.value) }
        body = Data(request.body)
    }

    /// The first value of a header (any case).
    public func header(_ name: String) -> String? { RequestFields.header(name, in: headers) }
    /// The first value of a query parameter.
    public func query(_ name: String) -> String? { RequestFields.query(name, in: query) }
    /// The body as UTF-8 text; nil when it is not UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }
    /// The body decoded from JSON.
    public func json<T: Decodable>(_ type: T.Type = T.self) throws -> T { try JSONDecoder().decode(T.self, from: body) }
}

/// The lookups `StubRequest` and `RecordedRequest` share.
enum RequestFields {
    static func header(_ name: String, in headers: [(name: String, value: String)]) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    static func query(_ name: String, in query: [(name: String, value: String)]) -> String? {
        query.first { $0.name == name }?.value
    }
}

extension StubDefinition.Responder {
    /// The engine's hook for this closure: it runs in a task (off the server's threads) and its
    /// answer is decoded and rendered as a stub file's response is. A thrown error or an answer
    /// the loader refuses is a 500 that says why, so the test sees it.
    func computed(by engine: Engine, label: String) -> ComputedResponse {
        let respond = self.respond
        return { [weak engine] request, captures in
            let pending = PendingResponse()
            let task = Task {
                let answer: OutgoingResponse
                do {
                    let definition = try await respond(StubRequest(request, pathParameters: captures))
                    let json = JSONSerializer.bytes(DefinitionJSON.response(definition).node)
                    switch engine?.renderResponse(json: json, for: request, captures: captures, label: label) {
                    case .success(let response)?: answer = response
                    case .failure(let problems)?:
                        answer = .text(500, "stubserver: the response \(label) computed is not valid:\n\(problems)\n")
                    case nil: answer = .text(503, "stubserver: the stubs are gone\n")
                    }
                } catch {
                    answer = .text(500, "stubserver: \(label) threw: \(String(describing: error))\n")
                }
                pending.complete(answer)
            }
            pending.onCancel { task.cancel() }
            return pending
        }
    }
}
