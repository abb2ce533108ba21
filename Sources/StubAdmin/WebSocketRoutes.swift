#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTP1
import JSON
import StubEngine
import WebSocket

/// `GET /__admin/websockets` (the open connections) and `POST /__admin/websockets/{id}/send`
/// (a message to every open connection of a stub, named by id or name).
package struct WebSocketRoutes: AdminRouteSet {
    package init() {}

    package var routes: [(method: String, path: String)] {
        [("GET", "/__admin/websockets"), ("POST", "/__admin/websockets/{id}/send")]
    }

    package func claims(_ request: IncomingRequest) -> Bool {
        guard let rest = AdminAPI.rest(request.path) else { return false }
        return rest == "/websockets" || (rest.hasPrefix("/websockets/") && rest.hasSuffix("/send"))
    }

    package func handle(_ request: IncomingRequest, engine: Engine) -> OutgoingResponse {
        let rest = AdminAPI.rest(request.path) ?? ""
        if rest == "/websockets" {
            guard request.method == "GET" else {
                return AdminAPI.error(405, "GET /__admin/websockets lists the open connections")
            }
            return AdminAPI.json(200, .object([("websockets", .array(engine.webSockets.open.map(Self.encode)))]))
        }
        let key = String(rest.dropFirst("/websockets/".count).dropLast("/send".count))
        guard request.method == "POST" else {
            return AdminAPI.error(405, "POST a message to /__admin/websockets/{id}/send")
        }
        guard !key.isEmpty else {
            return AdminAPI.error(404, "name the stub: /__admin/websockets/{id or name}/send")
        }
        let stubs = engine.catalog.stubs.filter { ($0.id == key || $0.name == key) && $0.response.websocket != nil }
        guard !stubs.isEmpty else {
            return AdminAPI.error(404, "no WebSocket stub has the id or name \"\(StubProblem.bounded(key))\"")
        }
        let message: WebSocketEndpoint.Message
        switch Self.message(from: request.body) {
        case .success(let decoded): message = decoded
        case .failure(let problem): return AdminAPI.error(400, problem.message)
        }
        let sent = engine.webSockets.send(message, toStub: key)
        return AdminAPI.json(200, .object([("sent", .number(sent))]))
    }

    struct Problem: Error {
        let message: String
    }

    /// The body is the message, as `send` in a stub: a JSON string is sent as its text, other
    /// JSON compactly as text, `{"binary": "BASE64"}` as bytes.
    static func message(from body: [UInt8]) -> Result<WebSocketEndpoint.Message, Problem> {
        guard let node = try? JSONParser.parse(body) else {
            return .failure(
                Problem(
                    message:
                        "the body is the message to send, as JSON: \"text\", an object, or {\"binary\": \"BASE64\"}"
                )
            )
        }
        if let members = node.members, members.count == 1, members[0].key == "binary" {
            guard let text = members[0].value.string,
                let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters)
            else {
                return .failure(Problem(message: "binary: expected the message bytes as a base64 string"))
            }
            return .success(.binary(Array(data)))
        }
        return .success(.text(node.string ?? JSONSerializer.string(node)))
    }

    private static func encode(_ session: WebSocketSession) -> JSONNode {
        let counts = session.counts
        return .object([
            ("id", .number(session.id)),
            ("stubId", .string(session.stub.id)),
            ("stubName", .string(session.stub.name)),
            ("path", .string(session.path)),
            ("peer", .string(session.peer)),
            ("openedAt", .number(session.openedAtMilliseconds)),
            ("received", .number(counts.received)),
            ("sent", .number(counts.sent)),
        ])
    }
}
